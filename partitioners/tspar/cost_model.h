// time(T) for TSgen: TSKD §3 "By default, TsPAR uses execution histories to
// coarsely estimate costs; if T is instantiated with the same parameters as
// T' in the history, and if T and T' are based on the same template (e.g.,
// stored procedure), then TsPAR uses the cost of T' ... When no T' has the
// same parameters as T, TsPAR picks a T' with parameters close to that of T
// ... In the extreme case, TSKD uses the sizes of the access sets of the
// transactions as a fallback."
//
// [INF: "parameters" = the transaction type and its access-set size (the
// only parameters a TxnDesc carries).] The history is the mean serial time of
// the transactions committed in the warm-up, per (type, access-set size):
//   same type and size in the history      -> that mean;
//   same type, other sizes only            -> the mean of the nearest size,
//                                             scaled by size / that size;
//   type unseen, history not empty         -> size x the history's mean time
//                                             per key;
//   empty history                          -> the access-set size (units).
// Only relative costs matter to TSgen (§3), so the fallbacks only need to
// keep the ratios roughly right.
//
// Thread safety: observe() and estimate() by one thread at a time.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <utility>

#include "engine/core/txn_desc.h"

namespace ccb::tspar {

class CostModel {
 public:
  static size_t set_size(const TxnDesc& d) { return d.read_set.size() + d.write_set.size(); }

  void observe(const TxnDesc& d, double ns) {
    Mean& m = history_[{d.type, set_size(d)}];
    m.sum += ns;
    ++m.n;
    total_ns_ += ns;
    total_keys_ += static_cast<double>(set_size(d));
    ++samples_;
  }

  double estimate(const TxnDesc& d) const {
    const size_t size = set_size(d);
    if (samples_ == 0) return static_cast<double>(size);
    const Key key{d.type, size};
    auto hi = history_.lower_bound(key);
    if (hi != history_.end() && hi->first == key) return hi->second.mean();
    // Nearest size of the same type: the neighbours of `key` in (type, size) order.
    const Mean* best = nullptr;
    size_t best_size = 0, best_gap = SIZE_MAX;
    auto consider = [&](auto it) {
      if (it->first.first != d.type) return;
      const size_t s = it->first.second;
      const size_t gap = s > size ? s - size : size - s;
      if (gap < best_gap) best = &it->second, best_size = s, best_gap = gap;
    };
    if (hi != history_.end()) consider(hi);
    if (hi != history_.begin()) consider(std::prev(hi));
    if (best != nullptr)
      return best_size == 0 ? best->mean() : best->mean() * static_cast<double>(size) / static_cast<double>(best_size);
    const double per_key = total_keys_ > 0 ? total_ns_ / total_keys_ : 1.0;
    return per_key * static_cast<double>(size);
  }

  uint64_t samples() const { return samples_; }

 private:
  using Key = std::pair<uint32_t, size_t>;
  struct Mean {
    double sum = 0;
    uint64_t n = 0;
    double mean() const { return sum / static_cast<double>(n); }
  };
  std::map<Key, Mean> history_;
  double total_ns_ = 0, total_keys_ = 0;
  uint64_t samples_ = 0;
};

}  // namespace ccb::tspar
