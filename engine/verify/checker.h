// Serializability checker for recorded histories.
//
// Builds the direct serialization graph (DSG) of Adya, "Weak Consistency: A
// Generalized Theory and Optimistic Implementations for Distributed
// Transactions" (PhD thesis, MIT 1999), Sec. 3.1.4 / Def. 5 and 6, over the
// committed transactions of a History (engine/verify/history.h), and decides
// whether it is acyclic, i.e. whether the history is conflict-serializable
// (Adya's PL-3: no G0, G1 or G2 cycle; Sec. 3.2 and 4.3).
//
// Edges, for every key x (self-edges are dropped; the loader's virtual
// transaction 0 only has outgoing edges, so it can be on no cycle and its
// edges are left out of the graph and of the counts):
//   ww  Ti -> Tj  "directly write-depends": Ti installs x_i and Tj installs the
//                 next version of x (Tj's prev_version is x_i).
//   wr  Ti -> Tj  "directly read-depends": Tj reads x_i, installed by Ti.
//   rw  Ti -> Tj  "directly anti-depends": Ti reads x_k and Tj installs the
//                 version of x that directly follows x_k.
// The version order of x is the one recorded by the prev_version chains.
//
// Before the graph is searched the history is checked for self-consistency;
// these are reported as violations too, because no serial order can explain
// them and the graph over them would be meaningless:
//   duplicate_txn     two transaction records with the same id
//   malformed         transaction id 0 (reserved for the loader), an access
//                     range outside History::accesses, more than 2^32 - 3
//                     transactions, or one transaction installing two versions
//                     of the same key
//   lost_update       two committed writers both installed their version over
//                     the same version of a key (a fork in the version chain)
//   aborted_read      a read of a version of x that no committed transaction
//                     installed on x (Adya's G1a "aborted read" / a dirty read
//                     of a write that never committed)
//   unknown_version   a write whose prev_version is a version of x that no
//                     committed transaction installed on x
//   cycle             the DSG has a cycle (G0 if all ww, G1c if ww/wr only,
//                     G2 if it has an rw edge); the witness is a shortest cycle
//
// A write whose prev_version equals its own transaction id is an overwrite of
// that transaction's own earlier write of the key and adds no edge (if the
// transaction wrote the key nowhere else, that is an unknown_version). The
// order of accesses inside a transaction is not modelled: a read of the
// transaction's own version is accepted whenever it wrote the key.
//
// Thread safety: check_serializable is a pure function of its argument; it may
// run concurrently on different (or the same, read-only) histories.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/verify/history.h"

namespace ccb::verify {

enum class EdgeKind : uint8_t { kWW, kWR, kRW };
const char* edge_kind_name(EdgeKind k);  // "ww", "wr", "rw"

enum class ViolationKind : uint8_t {
  kNone,
  kMalformed,
  kDuplicateTxn,
  kLostUpdate,
  kAbortedRead,
  kUnknownVersion,
  kCycle,
};
const char* violation_kind_name(ViolationKind k);  // "none", "malformed", ...

// One reason for a witness edge: on `key`, `from` and `to` conflict as `kind`.
// `version` is the version both accesses are about: for ww the version `to`
// overwrote (installed by `from`), for wr the version `to` read (installed by
// `from`), for rw the version `from` read (which `to` overwrote next).
struct Dependency {
  EdgeKind kind = EdgeKind::kWW;
  GlobalKey key = 0;
  VersionId version = 0;
};

// One edge of a witness cycle, with every dependency between the two
// transactions (at most kMaxDepsPerEdge kept; deps_total counts all).
struct WitnessEdge {
  static constexpr size_t kMaxDepsPerEdge = 8;
  uint64_t from_txn = 0;
  uint64_t to_txn = 0;
  std::vector<Dependency> deps;
  uint64_t deps_total = 0;
};

struct Violation {
  ViolationKind kind = ViolationKind::kNone;
  std::string message;  // one human-readable line
  // cycle: the cycle's transactions in order; edges[i] goes from txns[i] to
  // txns[(i + 1) % txns.size()]. Other kinds: the transactions involved.
  std::vector<uint64_t> txns;
  std::vector<WitnessEdge> edges;  // cycle only
  // cycle: true when the witness is a shortest cycle of the whole DSG; false
  // when the search budget ran out first (huge strongly connected components),
  // and then it is the shortest cycle through the start nodes searched.
  bool minimal = false;
  // Non-cycle kinds about one key version: the key and the version involved.
  bool has_key = false;
  GlobalKey key = 0;
  VersionId version = 0;
};

struct CheckCounts {
  uint64_t txns = 0;
  uint64_t accesses = 0;
  uint64_t reads = 0;   // accesses with a read_version
  uint64_t writes = 0;  // accesses with a prev_version
  // Dependencies, one per (key, version, pair of accesses), before parallel
  // edges between the same two transactions are merged; self and loader
  // edges excluded.
  uint64_t edges_ww = 0;
  uint64_t edges_wr = 0;
  uint64_t edges_rw = 0;
  uint64_t graph_edges = 0;  // edges in the searched graph (after merging within a key version)
  // Inconsistencies found (all of them, not only the reported one).
  uint64_t lost_updates = 0;
  uint64_t aborted_reads = 0;
  uint64_t unknown_versions = 0;
  // Strongly connected components with more than one transaction.
  uint64_t cyclic_sccs = 0;
  uint64_t largest_scc = 0;
};

struct PhaseTimes {
  double group_seconds = 0;    // bucket + sort accesses by key, derive edges
  double graph_seconds = 0;    // build the CSR adjacency
  double scc_seconds = 0;      // Tarjan
  double witness_seconds = 0;  // shortest cycle search + labelling
};

struct CheckResult {
  bool serializable = true;
  Violation violation;  // kind kNone when serializable
  CheckCounts counts;
  PhaseTimes phases;
  double check_seconds = 0;
};

struct CheckOptions {
  // Upper bound on edge visits spent searching for a shortest cycle (BFS from
  // every transaction of the cyclic components, smallest component first).
  // The first BFS always completes, so a witness is always produced.
  uint64_t witness_edge_budget = 100'000'000;
};

CheckResult check_serializable(const History& h, const CheckOptions& opts = {});

// JSON rendering with ccb::JsonWriter (engine/core/json.h), no trailing
// newline. violation_to_json gives "null" when there is no violation: it is
// the `violation` member of the run result.
std::string violation_to_json(const Violation& v);
std::string check_result_to_json(const CheckResult& r);

// "table/local" spelling of a global key used in messages, e.g. "3/1042".
std::string key_to_string(GlobalKey k);

}  // namespace ccb::verify
