// Serializability checker: see checker.h for the definitions (Adya's DSG).
//
// Pipeline, single-threaded and linear in accesses + edges (plus the sort of
// each key's versions), so that millions of transactions check in seconds:
//   1. validate the transaction records and look for duplicate ids (sort);
//   2. turn every access into one Item (two if it read an older version than
//      it overwrote) and scatter the Items into hash buckets of ~64K (two
//      streaming passes over the history: count, then fill);
//   3. per bucket, group the Items by key in the cache (KeyGrouper) and order
//      each key's Items by version; every (key, version) run then holds the
//      readers of that version and the writers that overwrote it, and its
//      installer is found among the key's writers; derive the ww/wr/rw edges
//      (and the inconsistencies) from each run (derive_key);
//   4. build a CSR adjacency, run an iterative Tarjan SCC;
//   5. on a cycle, BFS inside the cyclic components for a shortest cycle and
//      label its edges by re-reading the accesses of the transactions on it.
// docs/verify.md has the definitions, the witness format and measurements.
#include "engine/verify/checker.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include "engine/core/json.h"

namespace ccb::verify {

const char* edge_kind_name(EdgeKind k) {
  switch (k) {
    case EdgeKind::kWW: return "ww";
    case EdgeKind::kWR: return "wr";
    case EdgeKind::kRW: return "rw";
  }
  return "?";
}

const char* violation_kind_name(ViolationKind k) {
  switch (k) {
    case ViolationKind::kNone: return "none";
    case ViolationKind::kMalformed: return "malformed";
    case ViolationKind::kDuplicateTxn: return "duplicate_txn";
    case ViolationKind::kLostUpdate: return "lost_update";
    case ViolationKind::kAbortedRead: return "aborted_read";
    case ViolationKind::kUnknownVersion: return "unknown_version";
    case ViolationKind::kCycle: return "cycle";
  }
  return "?";
}

std::string key_to_string(GlobalKey k) {
  return std::to_string(table_of(k)) + "/" + std::to_string(local_key_of(k));
}

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Dense transaction indices are 32 bits; the two largest values are sentinels.
constexpr uint32_t kMaxTxns = std::numeric_limits<uint32_t>::max() - 2;
constexpr uint32_t kLoader = std::numeric_limits<uint32_t>::max();      // transaction 0
constexpr uint32_t kNoTxn = std::numeric_limits<uint32_t>::max() - 1;   // "none"

constexpr uint64_t kBucketItems = 65536;  // 2 MiB of items: grouped within L2/L3

constexpr uint32_t kRoleRead = 1;   // the access read `version`
constexpr uint32_t kRoleWrite = 2;  // the access installed a version over `version`
// The access overwrote the transaction's own version (`version` = its id): no
// edge, but the transaction must have installed that version with another
// write of the key.
constexpr uint32_t kRoleOwnOverwrite = 4;

// One access as the grouping pass needs it. A read-modify-write that read the
// version it overwrote (the normal case) is one Item with both roles; one that
// read an older version than it overwrote becomes two Items. The writer's id
// (= the version it installed) is carried along: looking it up per item in a
// table indexed by transaction would be a cache miss per write.
struct Item {
  GlobalKey key;
  VersionId version;    // the version read and/or overwritten
  VersionId installed;  // the transaction's id (its version, if it wrote)
  uint32_t txn;         // dense index into History::txns
  uint32_t role;        // kRoleRead | kRoleWrite, or kRoleOwnOverwrite
};
static_assert(sizeof(Item) == 32);

// Groups the items of one bucket by key and orders each key's items by
// version. A hash table over the bucket's keys plus a counting sort is linear
// and stays in the cache; a comparison sort of the whole bucket cost twice as
// much. Keys come out in the order of their first item (deterministic).
class KeyGrouper {
 public:
  // Calls fn(begin, end) once per key with that key's items sorted by version.
  template <class Fn>
  void group(const Item* first, const Item* last, Fn&& fn) {
    const size_t m = static_cast<size_t>(last - first);
    int cap_bits = 1;
    while ((size_t{1} << cap_bits) < 2 * m) ++cap_bits;
    const size_t mask = (size_t{1} << cap_bits) - 1;
    slot_id_.assign(mask + 1, 0);  // 0 = empty, else key number + 1
    slot_key_.resize(mask + 1);
    key_no_.resize(m);
    start_.assign(1, 0);
    uint32_t n_keys = 0;
    for (size_t i = 0; i < m; ++i) {
      const GlobalKey k = first[i].key;
      // A multiplier other than bucket_of's: the bucket's keys share those bits.
      size_t s = static_cast<size_t>((k * 0xC2B2AE3D27D4EB4Full) >> (64 - cap_bits));
      while (slot_id_[s] != 0 && slot_key_[s] != k) s = (s + 1) & mask;
      if (slot_id_[s] == 0) {
        slot_id_[s] = ++n_keys;
        slot_key_[s] = k;
        start_.push_back(0);
      }
      key_no_[i] = slot_id_[s] - 1;
      ++start_[slot_id_[s]];
    }
    for (uint32_t k = 0; k < n_keys; ++k) start_[k + 1] += start_[k];
    if (out_.size() < m) out_.resize(m);
    cursor_.assign(start_.begin(), start_.end() - 1);
    for (size_t i = 0; i < m; ++i) out_[cursor_[key_no_[i]]++] = first[i];
    for (uint32_t k = 0; k < n_keys; ++k) {
      Item* b = out_.data() + start_[k];
      Item* e = out_.data() + start_[k + 1];
      sort_by_version(b, e);
      fn(static_cast<const Item*>(b), static_cast<const Item*>(e));
    }
  }

 private:
  static void sort_by_version(Item* b, Item* e) {
    if (e - b > 16) {
      std::sort(b, e, [](const Item& x, const Item& y) { return x.version < y.version; });
      return;
    }
    for (Item* i = b + 1; i < e; ++i) {  // insertion sort: most keys have a few items
      const Item x = *i;
      Item* j = i;
      for (; j > b && (j - 1)->version > x.version; --j) *j = *(j - 1);
      *j = x;
    }
  }

  std::vector<uint32_t> slot_id_;
  std::vector<GlobalKey> slot_key_;
  std::vector<uint32_t> key_no_;
  std::vector<uint64_t> start_, cursor_;
  std::vector<Item> out_;
};

// Fibonacci hashing spreads keys whose entropy sits in the low bits (local
// keys) or the top bits (table ids) over the buckets.
inline uint32_t bucket_of(GlobalKey key, int bits) {
  if (bits == 0) return 0;
  return static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

// Violation precedence: the enum order (malformed first, cycle last). Keeps
// the first violation found of the most basic kind.
void offer(Violation& cur, Violation&& v) {
  if (cur.kind == ViolationKind::kNone || v.kind < cur.kind) cur = std::move(v);
}

std::string txn_name(uint64_t id) { return "T" + std::to_string(id); }

Violation key_violation(ViolationKind kind, GlobalKey key, VersionId version,
                        std::vector<uint64_t> txns, std::string message) {
  Violation v;
  v.kind = kind;
  v.has_key = true;
  v.key = key;
  v.version = version;
  v.txns = std::move(txns);
  v.message = std::move(message);
  return v;
}

// Everything the pipeline shares between phases.
struct Checker {
  const History& h;
  const CheckOptions& opts;
  CheckResult& res;
  uint32_t n = 0;                // transactions
  std::vector<uint64_t> ids;     // dense index -> txn id
  std::vector<uint64_t> edges;   // (from << 32) | to
  bool inconsistent = false;     // some version-order inconsistency was found
  // CSR adjacency.
  std::vector<uint64_t> offsets;
  std::vector<uint32_t> targets;
  std::vector<uint32_t> comp;    // SCC id per transaction

  Checker(const History& hist, const CheckOptions& o, CheckResult& r) : h(hist), opts(o), res(r) {}

  bool validate();
  void group_and_derive_edges();
  void derive_key(const Item* b, const Item* e, std::vector<std::pair<uint64_t, uint32_t>>& writers);
  void build_graph();
  void tarjan();
  void find_witness();
  WitnessEdge label_edge(uint32_t a, uint32_t b) const;

  void emit(uint32_t from, uint32_t to) {
    if (!inconsistent) edges.push_back((uint64_t{from} << 32) | to);
  }
};

// Phase 1: structural validity and unique ids. Returns false (with the
// violation set) when the rest of the check cannot proceed.
bool Checker::validate() {
  const uint64_t n_acc = h.accesses.size();
  if (h.txns.size() > kMaxTxns) {
    Violation v;
    v.kind = ViolationKind::kMalformed;
    v.message = "history has " + std::to_string(h.txns.size()) + " transactions; the checker supports at most " +
                std::to_string(kMaxTxns);
    offer(res.violation, std::move(v));
    return false;
  }
  n = static_cast<uint32_t>(h.txns.size());
  ids.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    const TxnRecord& t = h.txns[i];
    ids[i] = t.txn_id;
    std::string problem;
    if (t.txn_id == 0) {
      problem = "transaction record " + std::to_string(i) + " has id 0, which is reserved for the loader";
    } else if (t.first_access > n_acc || t.n_accesses > n_acc - t.first_access) {
      problem = "transaction " + txn_name(t.txn_id) + " claims accesses [" + std::to_string(t.first_access) + ", " +
                std::to_string(t.first_access + t.n_accesses) + ") but the history has " + std::to_string(n_acc);
    }
    if (!problem.empty()) {
      Violation v;
      v.kind = ViolationKind::kMalformed;
      v.message = std::move(problem);
      v.txns = {t.txn_id};
      offer(res.violation, std::move(v));
      return false;
    }
    res.counts.accesses += t.n_accesses;
  }
  std::vector<uint64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) {
    uint64_t count = 0;
    for (uint64_t id : ids) count += (id == *dup);
    Violation v;
    v.kind = ViolationKind::kDuplicateTxn;
    v.message = "transaction id " + std::to_string(*dup) + " appears " + std::to_string(count) +
                " times among the committed transactions";
    v.txns = {*dup};
    offer(res.violation, std::move(v));
    return false;
  }
  return true;
}

// Phase 2 + 3: bucket the accesses by key hash, sort each bucket, derive edges.
void Checker::group_and_derive_edges() {
  // An access yields an Item with the read role and/or one with the write
  // role; a write over the transaction's own version gets its own role.
  auto for_each_item = [&](auto&& fn) {
    for (uint32_t t = 0; t < n; ++t) {
      const TxnRecord& tr = h.txns[t];
      const AccessRecord* a = h.accesses.data() + tr.first_access;
      for (uint32_t j = 0; j < tr.n_accesses; ++j) {
        const AccessRecord& ac = a[j];
        const bool read = ac.read_version != kNotRead;
        const bool write = ac.wrote();
        const bool own = write && ac.prev_version == tr.txn_id;
        if (read && write && !own && ac.read_version == ac.prev_version) {
          fn(Item{ac.key, ac.read_version, tr.txn_id, t, kRoleRead | kRoleWrite});
        } else {
          if (read) fn(Item{ac.key, ac.read_version, tr.txn_id, t, kRoleRead});
          if (write) fn(Item{ac.key, ac.prev_version, tr.txn_id, t, own ? kRoleOwnOverwrite : kRoleWrite});
        }
      }
    }
  };

  for (uint32_t t = 0; t < n; ++t) {
    const TxnRecord& tr = h.txns[t];
    for (uint32_t j = 0; j < tr.n_accesses; ++j) {
      const AccessRecord& ac = h.accesses[tr.first_access + j];
      res.counts.reads += ac.read_version != kNotRead;
      res.counts.writes += ac.wrote();
    }
  }
  // Buckets of about kBucketItems items (most accesses become one item): a
  // bucket sorts inside the cache, and there are few enough buckets (at most
  // 2^16) for the scatter pass to stream into.
  int bits = 0;
  while (bits < 16 && (res.counts.accesses >> bits) > kBucketItems) ++bits;
  const size_t nb = size_t{1} << bits;

  std::vector<uint64_t> start(nb + 1, 0);
  for_each_item([&](const Item& it) { ++start[bucket_of(it.key, bits) + 1]; });
  for (size_t b = 0; b < nb; ++b) start[b + 1] += start[b];
  const uint64_t n_items = start[nb];
  // Uninitialized on purpose: every slot is written by the scatter pass.
  std::unique_ptr<Item[]> items(new Item[n_items]);
  {
    std::vector<uint64_t> cursor(start.begin(), start.end() - 1);
    for_each_item([&](const Item& it) { items[cursor[bucket_of(it.key, bits)]++] = it; });
  }

  // Each read yields at most a wr and an rw edge, each write at most a ww edge.
  edges.reserve(2 * res.counts.reads + res.counts.writes);
  std::vector<std::pair<uint64_t, uint32_t>> writers;  // (installed version = txn id, txn) of one key
  KeyGrouper grouper;
  for (size_t b = 0; b < nb; ++b) {
    Item* first = items.get() + start[b];
    Item* last = items.get() + start[b + 1];
    grouper.group(first, last, [&](const Item* kb, const Item* ke) { derive_key(kb, ke, writers); });
  }
}

// The items of one key, sorted by version. Adya Def. 5 edges.
void Checker::derive_key(const Item* b, const Item* e, std::vector<std::pair<uint64_t, uint32_t>>& writers) {
  const GlobalKey key = b->key;
  // The versions of this key that committed transactions installed: a
  // transaction's version id is its own id.
  writers.clear();
  for (const Item* it = b; it != e; ++it) {
    if (it->role & kRoleWrite) writers.emplace_back(it->installed, it->txn);
  }
  std::sort(writers.begin(), writers.end());
  for (size_t i = 1; i < writers.size(); ++i) {
    if (writers[i].first == writers[i - 1].first) {
      inconsistent = true;
      Violation v = key_violation(ViolationKind::kMalformed, key, writers[i].first, {writers[i].first},
                                  txn_name(writers[i].first) + " installed two versions of key " + key_to_string(key) +
                                      " (two writes, neither over its own version)");
      offer(res.violation, std::move(v));
    }
  }

  size_t wi = 0;
  for (const Item* vb = b; vb != e;) {
    const VersionId version = vb->version;
    const Item* ve = vb + 1;
    while (ve != e && ve->version == version) ++ve;

    // Versions ascend run by run and writers are sorted by the version they
    // installed, so one forward walk finds every run's installer.
    while (wi < writers.size() && writers[wi].first < version) ++wi;
    uint32_t installer = kLoader;
    if (version != kInitialVersion)
      installer = (wi < writers.size() && writers[wi].first == version) ? writers[wi].second : kNoTxn;
    uint32_t next = kNoTxn;  // the writer of the version directly after `version`
    uint32_t n_next = 0, n_read = 0;
    const Item* second_next = nullptr;
    for (const Item* it = vb; it != ve; ++it) {
      n_read += (it->role & kRoleRead) != 0;
      if (it->role & kRoleWrite) {
        if (n_next == 0) next = it->txn;
        else if (n_next == 1) second_next = it;
        ++n_next;
      }
    }

    bool ok = true;
    if (n_next >= 2) {
      // Two committed writers overwrote the same version: the version order
      // forks, one update is lost (no serial order has both read `version`).
      ok = false;
      ++res.counts.lost_updates;
      const uint64_t t1 = ids[next], t2 = ids[second_next->txn];
      offer(res.violation,
            key_violation(ViolationKind::kLostUpdate, key, version, {t1, t2},
                          "lost update on key " + key_to_string(key) + ": " + txn_name(t1) + " and " + txn_name(t2) +
                              " both installed a version over version " + std::to_string(version)));
    }
    if (installer == kNoTxn) {
      // Adya G1a: the version was never installed on this key by a committed
      // transaction (it belongs to an aborted or unrecorded write).
      ok = false;
      for (const Item* it = vb; it != ve; ++it) {
        const uint64_t t = ids[it->txn];
        if (it->role & kRoleRead) {
          ++res.counts.aborted_reads;
          offer(res.violation, key_violation(ViolationKind::kAbortedRead, key, version, {t},
                                             "aborted read: " + txn_name(t) + " read version " +
                                                 std::to_string(version) + " of key " + key_to_string(key) +
                                                 ", which no committed transaction installed on that key"));
        }
        if (it->role & (kRoleWrite | kRoleOwnOverwrite)) {
          ++res.counts.unknown_versions;
          offer(res.violation, key_violation(ViolationKind::kUnknownVersion, key, version, {t},
                                             "broken version chain: " + txn_name(t) + " overwrote version " +
                                                 std::to_string(version) + " of key " + key_to_string(key) +
                                                 ", which no committed transaction installed on that key"));
        }
      }
    }
    if (!ok) {
      inconsistent = true;
    } else {
      // ww: installer -> next writer.
      if (installer != kLoader && next != kNoTxn && installer != next) {
        ++res.counts.edges_ww;
        emit(installer, next);
      }
      for (const Item* it = vb; it != ve; ++it) {
        if (!(it->role & kRoleRead)) continue;
        const uint32_t r = it->txn;
        // wr: installer -> reader. When the reader is also the next writer
        // the ww edge above already links the same pair.
        if (installer != kLoader && installer != r) {
          ++res.counts.edges_wr;
          if (r != next) emit(installer, r);
        }
        // rw: reader -> writer of the next version.
        if (next != kNoTxn && r != next) {
          ++res.counts.edges_rw;
          emit(r, next);
        }
      }
    }
    vb = ve;
  }
}

// Phase 4a: CSR adjacency from the edge list (counting sort by source).
void Checker::build_graph() {
  res.counts.graph_edges = edges.size();
  offsets.assign(size_t{n} + 1, 0);
  for (uint64_t e : edges) ++offsets[(e >> 32) + 1];
  for (uint32_t v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
  targets.resize(edges.size());
  std::vector<uint64_t> cursor(offsets.begin(), offsets.end() - 1);
  for (uint64_t e : edges) targets[cursor[e >> 32]++] = static_cast<uint32_t>(e);
  std::vector<uint64_t>().swap(edges);
}

// Phase 4b: iterative Tarjan (an explicit call stack: histories have
// dependency chains millions of transactions long).
void Checker::tarjan() {
  constexpr uint32_t kUnvisited = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> index(n, kUnvisited), low(n, 0);
  std::vector<uint8_t> on_stack(n, 0);
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, uint64_t>> calls;  // (node, next edge position)
  comp.assign(n, 0);
  uint32_t counter = 0, n_comps = 0;

  for (uint32_t s = 0; s < n; ++s) {
    if (index[s] != kUnvisited) continue;
    index[s] = low[s] = counter++;
    stack.push_back(s);
    on_stack[s] = 1;
    calls.emplace_back(s, offsets[s]);
    while (!calls.empty()) {
      const uint32_t v = calls.back().first;
      uint64_t& pos = calls.back().second;
      if (pos < offsets[v + 1]) {
        const uint32_t w = targets[pos++];
        if (index[w] == kUnvisited) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          calls.emplace_back(w, offsets[w]);  // invalidates `pos`; not used again
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        uint64_t size = 0;
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          comp[w] = n_comps;
          ++size;
        } while (w != v);
        ++n_comps;
        if (size > 1) {
          ++res.counts.cyclic_sccs;
          res.counts.largest_scc = std::max(res.counts.largest_scc, size);
        }
      }
      calls.pop_back();
      if (!calls.empty()) {
        const uint32_t u = calls.back().first;
        low[u] = std::min(low[u], low[v]);
      }
    }
  }
}

// All dependencies from transaction a to transaction b, re-derived from their
// accesses (same rules as derive_key, restricted to the two transactions).
WitnessEdge Checker::label_edge(uint32_t a, uint32_t b) const {
  const TxnRecord& ta = h.txns[a];
  const TxnRecord& tb = h.txns[b];
  const AccessRecord* A = h.accesses.data() + ta.first_access;
  const AccessRecord* B = h.accesses.data() + tb.first_access;
  std::vector<uint32_t> bidx(tb.n_accesses);
  for (uint32_t j = 0; j < tb.n_accesses; ++j) bidx[j] = j;
  std::sort(bidx.begin(), bidx.end(), [&](uint32_t x, uint32_t y) { return B[x].key < B[y].key; });

  std::vector<Dependency> deps;
  for (uint32_t i = 0; i < ta.n_accesses; ++i) {
    const AccessRecord& x = A[i];
    auto lo = std::lower_bound(bidx.begin(), bidx.end(), x.key,
                               [&](uint32_t j, GlobalKey k) { return B[j].key < k; });
    for (auto it = lo; it != bidx.end() && B[*it].key == x.key; ++it) {
      const AccessRecord& y = B[*it];
      const bool x_wrote = x.wrote() && x.prev_version != ta.txn_id;
      const bool y_wrote = y.wrote() && y.prev_version != tb.txn_id;
      if (x_wrote && y_wrote && y.prev_version == ta.txn_id) deps.push_back({EdgeKind::kWW, x.key, ta.txn_id});
      if (x_wrote && y.read_version == ta.txn_id) deps.push_back({EdgeKind::kWR, x.key, ta.txn_id});
      if (x.read_version != kNotRead && y_wrote && y.prev_version == x.read_version)
        deps.push_back({EdgeKind::kRW, x.key, x.read_version});
    }
  }
  auto key_of = [](const Dependency& d) { return std::make_tuple(d.kind, d.key, d.version); };
  std::sort(deps.begin(), deps.end(), [&](const Dependency& p, const Dependency& q) { return key_of(p) < key_of(q); });
  deps.erase(std::unique(deps.begin(), deps.end(),
                         [&](const Dependency& p, const Dependency& q) { return key_of(p) == key_of(q); }),
             deps.end());
  assert(!deps.empty() && "a graph edge without a dependency between its transactions");
  WitnessEdge we;
  we.from_txn = ta.txn_id;
  we.to_txn = tb.txn_id;
  we.deps_total = deps.size();
  if (deps.size() > WitnessEdge::kMaxDepsPerEdge) deps.resize(WitnessEdge::kMaxDepsPerEdge);
  we.deps = std::move(deps);
  return we;
}

// Phase 5: a shortest cycle. BFS from s inside s's component finds the
// shortest cycle through s; the minimum over all sources of all cyclic
// components is the shortest cycle of the graph. Components are searched
// smallest first and each BFS stops once it cannot beat the best so far.
void Checker::find_witness() {
  // Nodes of each cyclic component, components ordered by size.
  uint32_t n_comps = 0;
  for (uint32_t v = 0; v < n; ++v) n_comps = std::max(n_comps, comp[v] + 1);
  std::vector<uint32_t> comp_size(n_comps, 0);
  for (uint32_t v = 0; v < n; ++v) ++comp_size[comp[v]];
  std::vector<uint32_t> cyclic;
  for (uint32_t c = 0; c < n_comps; ++c)
    if (comp_size[c] > 1) cyclic.push_back(c);
  std::stable_sort(cyclic.begin(), cyclic.end(), [&](uint32_t x, uint32_t y) { return comp_size[x] < comp_size[y]; });
  std::vector<uint32_t> slot(n_comps, kNoTxn);
  for (uint32_t i = 0; i < cyclic.size(); ++i) slot[cyclic[i]] = i;
  std::vector<std::vector<uint32_t>> members(cyclic.size());
  for (uint32_t v = 0; v < n; ++v)
    if (slot[comp[v]] != kNoTxn) members[slot[comp[v]]].push_back(v);

  std::vector<int32_t> dist(n, -1);
  std::vector<uint32_t> parent(n, kNoTxn);
  std::vector<uint32_t> queue;
  std::vector<uint32_t> best_cycle;
  uint64_t best = std::numeric_limits<uint64_t>::max();
  uint64_t visits = 0;
  bool exhausted = false;

  for (size_t ci = 0; ci < cyclic.size() && !exhausted && best > 2; ++ci) {
    const uint32_t c = cyclic[ci];
    for (uint32_t s : members[ci]) {
      if (best == 2) break;  // no cycle is shorter than two transactions
      if (visits >= opts.witness_edge_budget && !best_cycle.empty()) {
        exhausted = true;
        break;
      }
      queue.clear();
      queue.push_back(s);
      dist[s] = 0;
      bool found = false;
      for (size_t qi = 0; qi < queue.size() && !found; ++qi) {
        const uint32_t u = queue[qi];
        if (static_cast<uint64_t>(dist[u]) + 1 >= best) break;  // cannot improve
        for (uint64_t p = offsets[u]; p < offsets[u + 1]; ++p) {
          ++visits;
          const uint32_t w = targets[p];
          if (comp[w] != c) continue;
          if (w == s) {
            best = static_cast<uint64_t>(dist[u]) + 1;
            best_cycle.clear();
            for (uint32_t x = u; x != s; x = parent[x]) best_cycle.push_back(x);
            best_cycle.push_back(s);
            std::reverse(best_cycle.begin(), best_cycle.end());
            found = true;
            break;
          }
          if (dist[w] < 0) {
            dist[w] = dist[u] + 1;
            parent[w] = u;
            queue.push_back(w);
          }
        }
      }
      for (uint32_t x : queue) dist[x] = -1;
    }
  }

  Violation v;
  v.kind = ViolationKind::kCycle;
  v.minimal = !exhausted;
  bool all_ww = true, all_ww_wr = true;
  std::string path;
  for (size_t i = 0; i < best_cycle.size(); ++i) {
    const uint32_t a = best_cycle[i], b = best_cycle[(i + 1) % best_cycle.size()];
    WitnessEdge we = label_edge(a, b);
    // Adya's phenomena classify a cycle by its weakest possible reading: an
    // edge that is (also) ww counts as ww, else wr, else rw.
    bool has_ww = false, has_wr = false;
    for (const Dependency& d : we.deps) {
      has_ww |= d.kind == EdgeKind::kWW;
      has_wr |= d.kind == EdgeKind::kWR;
    }
    all_ww &= has_ww;
    all_ww_wr &= has_ww || has_wr;
    const Dependency& d0 = we.deps.front();
    if (i == 0) path = txn_name(we.from_txn);
    path += " -" + std::string(edge_kind_name(d0.kind)) + "(" + key_to_string(d0.key) + ")-> " + txn_name(we.to_txn);
    v.txns.push_back(we.from_txn);
    v.edges.push_back(std::move(we));
  }
  const char* phenomenon = all_ww      ? "G0 write cycle"
                           : all_ww_wr ? "G1c circular information flow"
                                       : "G2 anti-dependency cycle";
  v.message = std::string(phenomenon) + " of " + std::to_string(best_cycle.size()) + " transactions" +
              (v.minimal ? "" : " (search budget exhausted: may not be the shortest)") + ": " + path;
  offer(res.violation, std::move(v));
}

}  // namespace

CheckResult check_serializable(const History& h, const CheckOptions& opts) {
  const auto t0 = Clock::now();
  CheckResult res;
  res.counts.txns = h.txns.size();
  Checker c(h, opts, res);
  if (c.validate()) {
    auto t = Clock::now();
    c.group_and_derive_edges();
    res.phases.group_seconds = seconds_since(t);
    if (!c.inconsistent) {
      t = Clock::now();
      c.build_graph();
      res.phases.graph_seconds = seconds_since(t);
      t = Clock::now();
      c.tarjan();
      res.phases.scc_seconds = seconds_since(t);
      if (res.counts.cyclic_sccs > 0) {
        t = Clock::now();
        c.find_witness();
        res.phases.witness_seconds = seconds_since(t);
      }
    }
  }
  res.serializable = res.violation.kind == ViolationKind::kNone;
  res.check_seconds = seconds_since(t0);
  return res;
}

// ---------------------------------------------------------------------------
// JSON rendering through the project's writer (engine/core/json.h).
// ---------------------------------------------------------------------------
namespace {

// Key as its number plus its table / local split, for readers of the JSON.
void write_key_fields(JsonWriter& w, GlobalKey k) {
  w.key("key").value(k);
  w.key("table").value(table_of(k));
  w.key("local_key").value(local_key_of(k));
}

void write_violation(JsonWriter& w, const Violation& v) {
  if (v.kind == ViolationKind::kNone) {
    w.value(nullptr);
    return;
  }
  w.begin_object();
  w.key("kind").value(violation_kind_name(v.kind));
  w.key("message").value(v.message);
  w.key("txns").begin_array();
  for (uint64_t t : v.txns) w.value(t);
  w.end_array();
  if (v.has_key) {
    write_key_fields(w, v.key);
    w.key("version").value(v.version);
  }
  if (v.kind == ViolationKind::kCycle) {
    w.key("minimal").value(v.minimal);
    w.key("edges").begin_array();
    for (const WitnessEdge& e : v.edges) {
      w.begin_object();
      w.key("from").value(e.from_txn);
      w.key("to").value(e.to_txn);
      w.key("deps_total").value(e.deps_total);
      w.key("deps").begin_array();
      for (const Dependency& d : e.deps) {
        w.begin_object();
        w.key("kind").value(edge_kind_name(d.kind));
        write_key_fields(w, d.key);
        w.key("version").value(d.version);
        w.end_object();
      }
      w.end_array();
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}

}  // namespace

std::string violation_to_json(const Violation& v) {
  JsonWriter w;
  write_violation(w, v);
  return w.str();
}

std::string check_result_to_json(const CheckResult& r) {
  JsonWriter w;
  w.begin_object();
  w.key("serializable").value(r.serializable);
  w.key("violation");
  write_violation(w, r.violation);
  const CheckCounts& c = r.counts;
  w.key("counts").begin_object();
  w.key("txns").value(c.txns);
  w.key("accesses").value(c.accesses);
  w.key("reads").value(c.reads);
  w.key("writes").value(c.writes);
  w.key("edges_ww").value(c.edges_ww);
  w.key("edges_wr").value(c.edges_wr);
  w.key("edges_rw").value(c.edges_rw);
  w.key("graph_edges").value(c.graph_edges);
  w.key("lost_updates").value(c.lost_updates);
  w.key("aborted_reads").value(c.aborted_reads);
  w.key("unknown_versions").value(c.unknown_versions);
  w.key("cyclic_sccs").value(c.cyclic_sccs);
  w.key("largest_scc").value(c.largest_scc);
  w.end_object();
  w.key("phases").begin_object();
  w.key("group_seconds").value(r.phases.group_seconds);
  w.key("graph_seconds").value(r.phases.graph_seconds);
  w.key("scc_seconds").value(r.phases.scc_seconds);
  w.key("witness_seconds").value(r.phases.witness_seconds);
  w.end_object();
  w.key("check_seconds").value(r.check_seconds);
  w.end_object();
  return w.str();
}

}  // namespace ccb::verify
