// time(T) for TSgen: TSKD §3 "By default, TsPAR uses execution histories to
// coarsely estimate costs; if T is instantiated with the same parameters as
// T' in the history, and if T and T' are based on the same template (e.g.,
// stored procedure), then TsPAR uses the cost of T' ... When no T' has the
// same parameters as T, TsPAR picks a T' with parameters close to that of T
// ... In the extreme case, TSKD uses the sizes of the access sets of the
// transactions as a fallback."
//
// A transaction's template is its type; its parameters are those a TxnDesc
// carries: the access-set size and cost_params (the runtime-skew and I/O
// ranks of TSKD's extensions, which set most of a skewed transaction's time)
// [INF: the keys themselves are left out, as no two transactions of a bundle
// are expected to repeat them]. The history is the mean serial time of the
// transactions committed in the warm-up, per (type, cost_params, size):
//   the same type and parameters in the history -> that mean;
//   same type, other parameters                 -> the entry of the same type
//                                                  with the nearest
//                                                  cost_params (sum of the
//                                                  differences), then the
//                                                  nearest size, its mean
//                                                  scaled by size / its size;
//   type unseen, history not empty              -> size x the history's mean
//                                                  time per key;
//   empty history                               -> the access-set size (units).
// Only relative costs matter to TSgen (§3), so the fallbacks only need to
// keep the ratios roughly right. Estimates of parameters not in the history
// are remembered until the history changes (a replayed bundle asks again).
//
// Thread safety: observe() and estimate() by one thread at a time; known()
// (read-only) by any number of threads while neither runs, so a bundle's
// estimates can run in chunks on the team (TSKD's front-end), with the few
// parameters not seen yet estimated serially after them.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "engine/core/txn_desc.h"

namespace ccb::tspar {

class CostModel {
 public:
  static size_t set_size(const TxnDesc& d) { return d.read_set.size() + d.write_set.size(); }

  void observe(const TxnDesc& d, double ns) {
    Mean& m = history_[key_of(d)];
    m.sum += ns;
    ++m.n;
    total_ns_ += ns;
    total_keys_ += static_cast<double>(set_size(d));
    ++samples_;
    nearest_.clear();
  }

  double estimate(const TxnDesc& d) const {
    if (const std::optional<double> e = known(d)) return *e;
    auto [memo, fresh] = nearest_.try_emplace(key_of(d), 0.0);
    if (fresh) memo->second = nearest(memo->first);
    return memo->second;
  }

  // estimate(d) where it needs no new memo: the empty history's size, the
  // history's mean, or the memo of an earlier estimate; else nothing.
  std::optional<double> known(const TxnDesc& d) const {
    if (samples_ == 0) return static_cast<double>(set_size(d));
    const Key key = key_of(d);
    if (auto it = history_.find(key); it != history_.end()) return it->second.mean();
    if (auto it = nearest_.find(key); it != nearest_.end()) return it->second;
    return std::nullopt;
  }

  uint64_t samples() const { return samples_; }

 private:
  using Params = std::array<uint32_t, 2>;
  using Key = std::tuple<uint32_t, Params, size_t>;  // type, cost_params, access-set size
  struct Mean {
    double sum = 0;
    uint64_t n = 0;
    double mean() const { return sum / static_cast<double>(n); }
  };
  static Key key_of(const TxnDesc& d) { return {d.type, d.cost_params, set_size(d)}; }

  // A key not in the history: its type's entry with the nearest parameters
  // (then size), scaled to the size; else the history's time per key.
  double nearest(const Key& key) const {
    const auto& [type, params, size] = key;
    const Mean* best = nullptr;
    size_t best_size = 0;
    std::pair<uint64_t, size_t> best_gap{std::numeric_limits<uint64_t>::max(), 0};
    for (auto it = history_.lower_bound(Key{type, {}, 0}); it != history_.end() && std::get<0>(it->first) == type; ++it) {
      const auto& [t, p, s] = it->first;
      uint64_t param_gap = 0;
      for (size_t i = 0; i < params.size(); ++i) param_gap += p[i] > params[i] ? p[i] - params[i] : params[i] - p[i];
      const std::pair<uint64_t, size_t> gap{param_gap, s > size ? s - size : size - s};
      if (gap < best_gap) best = &it->second, best_size = s, best_gap = gap;
    }
    if (best != nullptr)
      return best_size == 0 ? best->mean() : best->mean() * static_cast<double>(size) / static_cast<double>(best_size);
    const double per_key = total_keys_ > 0 ? total_ns_ / total_keys_ : 1.0;
    return per_key * static_cast<double>(size);
  }

  std::map<Key, Mean> history_;
  mutable std::map<Key, double> nearest_;  // estimates of keys not in the history
  double total_ns_ = 0, total_keys_ = 0;
  uint64_t samples_ = 0;
};

}  // namespace ccb::tspar
