// Vertex-ranking policies for the FVS algorithms (Ding et al. §4.2).
//
// A policy ranks the vertices of the residual graph; the FVS algorithms put
// the top-ranked vertex (or the top k) into the feedback vertex set, i.e.
// abort it. Ranks compare lexicographically (primary, then secondary); an
// exact tie goes to the lower node id, so every algorithm is deterministic.
//
// The thread-aware policy of §4.2 ("Reduce inter-thread conflicts") assigns
// a batch to threads instead of ranking FVS vertices; see thread_assign.h.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ccb::reorder {

enum class Policy {
  kMaxDegree,   // max(in, out)                               "max_degree"
  kSumDegree,   // in + out                                   "sum_degree"
  kProdDegree,  // in * out; maximizes commits                "prod_degree" (alias "mc")
  kRandom,      // a random ranking, fixed per (seed, node)   "random"
  kRct,         // fewest restarts first, ties by in * out    "rct"
  kRdeg,        // in * out / 2^restarts                      "rdeg"
  kValue,       // lowest transaction value first, ties by in * out   "value"
};

// Throws std::invalid_argument naming the field "policy" and the allowed names.
Policy parse_policy(std::string_view name);
std::string_view policy_name(Policy p);
// Comma-separated list of the accepted names (for error and help texts).
std::string policy_names();

struct Rank {
  double primary = 0;
  double secondary = 0;
};

// Inputs of a rank: degrees in the (sub)graph the algorithm works on, and the
// transaction's attributes.
struct VertexInfo {
  uint32_t in_degree = 0;
  uint32_t out_degree = 0;
  uint32_t restarts = 0;
  double priority = 0;
  uint64_t random_key = 0;
};

Rank rank(Policy p, const VertexInfo& v);

// True when vertex a (rank ra) goes into the FVS before vertex b (rank rb).
inline bool ranks_before(const Rank& ra, uint32_t a, const Rank& rb, uint32_t b) {
  if (ra.primary != rb.primary) return ra.primary > rb.primary;
  if (ra.secondary != rb.secondary) return ra.secondary > rb.secondary;
  return a < b;
}

// The random ranking key of node v under seed (splitmix64 of both).
uint64_t random_key(uint64_t seed, uint32_t v);

}  // namespace ccb::reorder
