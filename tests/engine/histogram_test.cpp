// Latency histogram: bounded relative error of quantiles, exact small values.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/core/random.h"
#include "engine/stats/histogram.h"

namespace ccb {
namespace {

TEST(LatencyHistogram, QuantilesWithinRelativeErrorOfExact) {
  LatencyHistogram h;
  Random rng(3);
  std::vector<uint64_t> values;
  for (int i = 0; i < 100000; ++i) {
    const uint64_t v = 100 + rng.below(1000) * rng.below(1000);  // a skewed spread over 100 ns .. 1 ms
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {0.5, 0.9, 0.95, 0.99, 0.999}) {
    const double exact = static_cast<double>(values[static_cast<size_t>(q * values.size()) - 1]);
    EXPECT_NEAR(h.quantile(q), exact, exact / 32.0) << "q=" << q;
  }
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.count(), values.size());
}

TEST(LatencyHistogram, SmallValuesAreExactAndMergeAdds) {
  LatencyHistogram a, b;
  for (uint64_t v = 0; v < 100; ++v) a.record(v);
  b.record(1'000'000);
  a.merge(b);
  EXPECT_EQ(a.count(), 101u);
  EXPECT_EQ(a.quantile(0.5), 50.0);
  EXPECT_EQ(a.max(), 1'000'000u);
  EXPECT_DOUBLE_EQ(a.mean(), (99.0 * 100 / 2 + 1e6) / 101);
}

TEST(LatencyHistogram, BucketBoundsContainTheirValues) {
  Random rng(5);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t v = rng.next() >> rng.below(64);
    const int idx = LatencyHistogram::index_of(v);
    ASSERT_LT(idx, LatencyHistogram::kBuckets);
    ASSERT_LE(LatencyHistogram::lower_bound(idx), v);
    ASSERT_GE(LatencyHistogram::upper_bound(idx), v);
  }
}

}  // namespace
}  // namespace ccb
