// Independent reference implementations for the checker's tests. They are
// deliberately naive (permutations, pairwise scans) and share no code with
// engine/verify/checker.cpp; they only work for tiny histories.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <numeric>
#include <vector>

#include "engine/verify/checker.h"
#include "engine/verify/history.h"

namespace ccb::verify::testing {

inline const TxnRecord* find_txn(const History& h, uint64_t id) {
  for (const TxnRecord& t : h.txns)
    if (t.txn_id == id) return &t;
  return nullptr;
}

inline std::vector<AccessRecord> accesses_of(const History& h, const TxnRecord& t) {
  return {h.accesses.begin() + static_cast<std::ptrdiff_t>(t.first_access),
          h.accesses.begin() + static_cast<std::ptrdiff_t>(t.first_access + t.n_accesses)};
}

// Serializability by definition: is there a serial order of the committed
// transactions in which every read returns the version it recorded and every
// write overwrites the version it recorded (i.e. the order reproduces the
// reads and the version order)? Tries every permutation: n <= 8.
inline bool brute_force_serializable(const History& h) {
  std::vector<uint64_t> ids;
  for (const TxnRecord& t : h.txns) ids.push_back(t.txn_id);
  std::vector<uint64_t> sorted_ids = ids;
  std::sort(sorted_ids.begin(), sorted_ids.end());
  if (std::adjacent_find(sorted_ids.begin(), sorted_ids.end()) != sorted_ids.end()) return false;
  if (std::find(ids.begin(), ids.end(), 0u) != ids.end()) return false;
  std::vector<size_t> order(h.txns.size());
  std::iota(order.begin(), order.end(), 0);
  do {
    std::map<GlobalKey, VersionId> current;  // absent = version 0
    bool ok = true;
    for (size_t i = 0; i < order.size() && ok; ++i) {
      const TxnRecord& t = h.txns[order[i]];
      for (const AccessRecord& a : accesses_of(h, t)) {
        VersionId& cur = current[a.key];
        if (a.read_version != kNotRead && a.read_version != cur) ok = false;
        if (a.wrote()) {
          if (a.prev_version != cur) ok = false;
          cur = t.txn_id;
        }
        if (!ok) break;
      }
    }
    if (ok) return true;
  } while (std::next_permutation(order.begin(), order.end()));
  return false;
}

// Does dependency d really link transaction `from` to `to`? Re-derived from
// Adya's definitions by scanning both transactions' accesses.
inline bool dependency_holds(const History& h, uint64_t from, uint64_t to, const Dependency& d) {
  const TxnRecord* f = find_txn(h, from);
  const TxnRecord* t = find_txn(h, to);
  if (!f || !t || from == to) return false;
  bool from_writes = false, from_reads_version = false, to_overwrites = false, to_reads_from = false;
  for (const AccessRecord& a : accesses_of(h, *f)) {
    if (a.key != d.key) continue;
    from_writes |= a.wrote();
    from_reads_version |= a.read_version == d.version;
  }
  for (const AccessRecord& a : accesses_of(h, *t)) {
    if (a.key != d.key) continue;
    to_overwrites |= a.wrote() && a.prev_version == d.version;
    to_reads_from |= a.read_version == from;
  }
  switch (d.kind) {
    case EdgeKind::kWW: return d.version == from && from_writes && to_overwrites;
    case EdgeKind::kWR: return d.version == from && from_writes && to_reads_from;
    case EdgeKind::kRW: return from_reads_version && to_overwrites;
  }
  return false;
}

// The DSG by pairwise comparison: adj[i][j] for txns[i] -> txns[j].
inline std::vector<std::vector<bool>> pairwise_dsg(const History& h) {
  const size_t n = h.txns.size();
  std::vector<std::vector<bool>> adj(n, std::vector<bool>(n, false));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const TxnRecord& a = h.txns[i];
      const TxnRecord& b = h.txns[j];
      for (const AccessRecord& x : accesses_of(h, a)) {
        for (const AccessRecord& y : accesses_of(h, b)) {
          if (x.key != y.key) continue;
          if (x.wrote() && y.wrote() && y.prev_version == a.txn_id) adj[i][j] = true;               // ww
          if (x.wrote() && y.read_version == a.txn_id) adj[i][j] = true;                            // wr
          if (x.read_version != kNotRead && y.wrote() && y.prev_version == x.read_version) adj[i][j] = true;  // rw
        }
      }
    }
  }
  return adj;
}

// Length of a shortest cycle (0 if acyclic), by BFS from every node.
inline size_t shortest_cycle_length(const std::vector<std::vector<bool>>& adj) {
  const size_t n = adj.size();
  size_t best = 0;
  for (size_t s = 0; s < n; ++s) {
    std::vector<int> dist(n, -1);
    std::deque<size_t> q{s};
    dist[s] = 0;
    while (!q.empty()) {
      const size_t u = q.front();
      q.pop_front();
      for (size_t w = 0; w < n; ++w) {
        if (!adj[u][w]) continue;
        if (w == s) {
          const size_t len = static_cast<size_t>(dist[u]) + 1;
          if (best == 0 || len < best) best = len;
        } else if (dist[w] < 0) {
          dist[w] = dist[u] + 1;
          q.push_back(w);
        }
      }
    }
  }
  return best;
}

}  // namespace ccb::verify::testing
