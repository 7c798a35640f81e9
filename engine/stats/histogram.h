// Latency histogram with bounded relative error (log-linear buckets in the
// style of HdrHistogram): values below 128 ns are exact; above, each power of
// two is split into 64 sub-buckets, so a recorded value is reported within
// 1/64 (1.6%) of its true value. Fixed size (about 30 KB), no allocation when
// recording. Per-thread instances are merged after the run.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace ccb {

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 6;
  static constexpr int kSub = 1 << kSubBits;  // sub-buckets per power of two
  static constexpr int kBuckets = kSub * (64 - kSubBits) + 2 * kSub;

  void record(uint64_t ns) {
    ++counts_[index_of(ns)];
    ++count_;
    sum_ += ns;
    if (ns > max_) max_ = ns;
  }
  void merge(const LatencyHistogram& o) {
    for (int i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
    count_ += o.count_;
    sum_ += o.sum_;
    if (o.max_ > max_) max_ = o.max_;
  }
  uint64_t count() const { return count_; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }

  // Smallest recorded bucket value v such that at least q of the samples are
  // <= v (q in [0, 1]); the bucket's midpoint, capped by the maximum.
  double quantile(double q) const {
    if (count_ == 0) return 0.0;
    const double target = q * static_cast<double>(count_);
    uint64_t seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (static_cast<double>(seen) >= target && counts_[i] > 0) {
        const double mid = 0.5 * static_cast<double>(lower_bound(i) + upper_bound(i));
        return mid > static_cast<double>(max_) ? static_cast<double>(max_) : mid;
      }
    }
    return static_cast<double>(max_);
  }

  static int index_of(uint64_t v) {
    if (v < 2 * kSub) return static_cast<int>(v);
    const int msb = 63 - std::countl_zero(v);
    const int shift = msb - kSubBits;  // >= 1
    return kSub * shift + static_cast<int>(v >> shift);
  }
  static uint64_t lower_bound(int i) {
    if (i < 2 * kSub) return static_cast<uint64_t>(i);
    const int shift = i / kSub - 1;
    return static_cast<uint64_t>(i - kSub * shift) << shift;
  }
  static uint64_t upper_bound(int i) {
    if (i < 2 * kSub) return static_cast<uint64_t>(i);
    const int shift = i / kSub - 1;
    return lower_bound(i) + (uint64_t{1} << shift) - 1;
  }

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0, sum_ = 0, max_ = 0;
};

}  // namespace ccb
