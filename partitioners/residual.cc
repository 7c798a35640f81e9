#include "partitioners/residual.h"

#include <algorithm>

namespace ccb {

std::vector<KeyAccess> accesses_by_key(std::span<const TxnDesc> bundle) {
  std::vector<KeyAccess> acc;
  size_t total = 0;
  for (const auto& d : bundle) total += d.read_set.size() + d.write_set.size();
  acc.reserve(total);
  for (uint32_t t = 0; t < bundle.size(); ++t) {
    for (GlobalKey key : bundle[t].read_set) acc.push_back({key, t, false});
    for (GlobalKey key : bundle[t].write_set) acc.push_back({key, t, true});
  }
  std::sort(acc.begin(), acc.end(), [](const KeyAccess& a, const KeyAccess& b) { return a.key < b.key; });
  return acc;
}

void split_with_residual(std::span<const KeyAccess> acc, std::span<const uint32_t> part_of, unsigned k,
                         Partitioning& out) {
  // One pass per record finds its writers' and its accessors' partitions.

  // Up to two distinct partitions of a set of accesses: enough to answer
  // "is there one other than p?".
  struct TwoParts {
    uint32_t a = UINT32_MAX, b = UINT32_MAX;
    void add(uint32_t p) {
      if (a == UINT32_MAX) a = p;
      else if (p != a && b == UINT32_MAX) b = p;
    }
    bool has_other_than(uint32_t p) const { return (a != UINT32_MAX && a != p) || (b != UINT32_MAX && b != p); }
  };
  const uint32_t n = static_cast<uint32_t>(part_of.size());
  std::vector<uint8_t> in_residual(n, 0);
  for (size_t lo = 0; lo < acc.size();) {
    size_t hi = lo;
    TwoParts writers, all;
    for (; hi < acc.size() && acc[hi].key == acc[lo].key; ++hi) {
      const uint32_t p = part_of[acc[hi].txn];
      all.add(p);
      if (acc[hi].write) writers.add(p);
    }
    if (writers.a != UINT32_MAX && all.b != UINT32_MAX) {  // written, and accessed from two partitions
      for (size_t i = lo; i < hi; ++i) {
        const uint32_t p = part_of[acc[i].txn];
        // A writer conflicts with any accessor elsewhere; a reader with a writer elsewhere.
        if (acc[i].write ? all.has_other_than(p) : writers.has_other_than(p)) in_residual[acc[i].txn] = 1;
      }
    }
    lo = hi;
  }
  out.parts.assign(k, {});
  out.residual.clear();
  for (uint32_t t = 0; t < n; ++t) {
    if (in_residual[t]) out.residual.push_back(t);
    else out.parts[part_of[t]].push_back(t);
  }
}

void parts_of_assignment(std::span<const uint32_t> part_of, unsigned k, Partitioning& out) {
  out.parts.assign(k, {});
  out.residual.clear();
  for (uint32_t t = 0; t < part_of.size(); ++t) out.parts[part_of[t]].push_back(t);
}

void extract_residual(std::span<const TxnDesc> bundle, Partitioning& io) {
  std::vector<uint32_t> part_of(bundle.size());
  for (uint32_t p = 0; p < io.parts.size(); ++p)
    for (uint32_t t : io.parts[p]) part_of[t] = p;
  split_with_residual(accesses_by_key(bundle), part_of, static_cast<unsigned>(io.parts.size()), io);
}

uint32_t MajorityRouter::decide() {
  uint32_t best = 0;
  for (uint32_t p = 1; p < votes_.size(); ++p) {
    if (votes_[p] > votes_[best] || (votes_[p] == votes_[best] && load_[p] < load_[best])) best = p;
  }
  std::fill(votes_.begin(), votes_.end(), 0);
  ++load_[best];
  return best;
}

}  // namespace ccb
