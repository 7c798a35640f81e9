// How well a bundle front-end's estimates of its per-thread queues
// (BundlePlan::queue_estimates; TSKD: TSgen's load of each RC-free queue, from
// the cost history of TSKD §3) match the times the workers measured running
// them, over the measured batches of the bundle executor:
//   queues                the (batch, worker) pairs with a non-empty queue;
//   correlation           Pearson's r of estimated and measured queue times;
//   makespan_correlation  r of the batch's largest estimate (the estimated
//                         makespan of the queue phase) and its largest
//                         measured queue time;
//   makespan_ratio        sum of the estimated makespans / sum of the
//                         measured ones (in ns once the estimates are);
//   longest_hit_pct       of the batches with two or more queues, the % whose
//                         queue estimated longest was measured longest;
//   measured_load_ratio   of those batches, the mean of the longest measured
//                         queue time over the shortest (the load ratio the
//                         estimates meant to balance, as measured).
// r is null where it is undefined (fewer than two pairs, or no variation).
//
// Thread safety: one thread (the executor's coordinator).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

#include "engine/core/json.h"

namespace ccb {

// Pearson's correlation coefficient, accumulated pair by pair (Welford's
// updates of the means and co-moments: no cancellation of large sums).
class Correlation {
 public:
  void add(double x, double y) {
    ++n_;
    const double dx = x - mean_x_, dy = y - mean_y_;
    mean_x_ += dx / static_cast<double>(n_);
    mean_y_ += dy / static_cast<double>(n_);
    m2x_ += dx * (x - mean_x_);
    m2y_ += dy * (y - mean_y_);
    cxy_ += dx * (y - mean_y_);
  }
  uint64_t n() const { return n_; }
  // NaN (null in JSON) when undefined: fewer than two pairs or no variation.
  double r() const {
    if (n_ < 2 || m2x_ <= 0 || m2y_ <= 0) return std::numeric_limits<double>::quiet_NaN();
    // |r| <= 1 exactly in real arithmetic; rounding can step past it (a
    // perfectly correlated batch gave 1.0000000000000024).
    return std::clamp(cxy_ / std::sqrt(m2x_ * m2y_), -1.0, 1.0);
  }

 private:
  uint64_t n_ = 0;
  double mean_x_ = 0, mean_y_ = 0, m2x_ = 0, m2y_ = 0, cxy_ = 0;
};

class EstimateFit {
 public:
  // One batch: worker t's estimate and measured time (ns) of its own queues;
  // workers without a queue (estimate 0) are left out.
  void add_batch(std::span<const double> estimates, std::span<const uint64_t> measured_ns) {
    const size_t n = std::min(estimates.size(), measured_ns.size());
    double est_max = 0, measured_max = 0, measured_min = std::numeric_limits<double>::infinity();
    size_t est_arg = 0, measured_arg = 0, queues = 0;
    for (size_t t = 0; t < n; ++t) {
      if (estimates[t] <= 0) continue;
      const double m = static_cast<double>(measured_ns[t]);
      queues_.add(estimates[t], m);
      ++queues;
      if (estimates[t] > est_max) est_max = estimates[t], est_arg = t;
      if (m > measured_max) measured_max = m, measured_arg = t;
      measured_min = std::min(measured_min, m);
    }
    if (queues == 0) return;
    makespans_.add(est_max, measured_max);
    est_makespan_ += est_max;
    measured_makespan_ += measured_max;
    if (queues >= 2) {
      ++contests_;
      hits_ += est_arg == measured_arg;
      load_ratio_sum_ += measured_max / std::max(measured_min, 1.0);
    }
  }
  bool empty() const { return queues_.n() == 0; }

  void to_json(JsonWriter& w) const {
    w.begin_object();
    w.key("queues").value(queues_.n());
    w.key("correlation").value(queues_.r());
    w.key("makespan_correlation").value(makespans_.r());
    w.key("makespan_ratio").value(measured_makespan_ > 0 ? est_makespan_ / measured_makespan_ : 0.0);
    const double contests = static_cast<double>(contests_);
    const double none = std::numeric_limits<double>::quiet_NaN();
    w.key("longest_hit_pct").value(contests_ ? 100.0 * static_cast<double>(hits_) / contests : none);
    w.key("measured_load_ratio").value(contests_ ? load_ratio_sum_ / contests : none);
    w.end_object();
  }

 private:
  Correlation queues_, makespans_;
  double est_makespan_ = 0, measured_makespan_ = 0;
  uint64_t contests_ = 0, hits_ = 0;
  double load_ratio_sum_ = 0;
};

}  // namespace ccb
