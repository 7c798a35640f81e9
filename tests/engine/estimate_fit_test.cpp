// EstimateFit (engine/stats/estimate_fit.h): Pearson's r on worked examples
// and against the two-pass formula on random data, and the per-batch
// makespan, ratio and longest-queue scores.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/core/json.h"
#include "engine/core/random.h"
#include "engine/stats/estimate_fit.h"

namespace ccb {
namespace {

TEST(Correlation, WorkedExamples) {
  Correlation up, down, none, one;
  for (double x : {1.0, 2.0, 3.0}) {
    up.add(x, 2 * x + 1);
    down.add(x, 10 - x);
    none.add(x, 5);
  }
  one.add(1, 1);
  EXPECT_DOUBLE_EQ(up.r(), 1.0);
  EXPECT_DOUBLE_EQ(down.r(), -1.0);
  EXPECT_TRUE(std::isnan(none.r()));  // no variation in y
  EXPECT_TRUE(std::isnan(one.r()));
  // x = 1, 2, 3, 4; y = 2, 1, 4, 3: deviations (-1.5, -0.5, 0.5, 1.5) and
  // (-0.5, -1.5, 1.5, 0.5): r = 3 / sqrt(5 x 5) = 0.6.
  Correlation some;
  const double xs[] = {1, 2, 3, 4}, ys[] = {2, 1, 4, 3};
  for (int i = 0; i < 4; ++i) some.add(xs[i], ys[i]);
  EXPECT_NEAR(some.r(), 0.6, 1e-12);
}

// Rounding must not carry r past +-1 (the result schema bounds it): a run's
// perfectly correlated makespans once gave 1.0000000000000024.
TEST(Correlation, StaysWithinOneOnExactlyLinearData) {
  Random rng(11);
  for (int round = 0; round < 2000; ++round) {
    Correlation up, down;
    const int n = 2 + static_cast<int>(rng.below(30));
    const double slope = 1e-3 + static_cast<double>(rng.below(1000000)) / 997.0;
    for (int i = 0; i < n; ++i) {
      const double x = 1e6 + static_cast<double>(rng.below(1000000)) * 1e3;
      up.add(x, slope * x + 17);
      down.add(x, -slope * x + 17);
    }
    if (std::isnan(up.r())) continue;  // every x drawn equal
    ASSERT_LE(up.r(), 1.0) << "round " << round;
    ASSERT_GE(down.r(), -1.0) << "round " << round;
    ASSERT_NEAR(up.r(), 1.0, 1e-9);
  }
}

TEST(Correlation, MatchesTheTwoPassFormulaOnLargeValues) {
  Random rng(3);
  for (int round = 0; round < 20; ++round) {
    std::vector<double> x, y;
    Correlation c;
    for (int i = 0, n = 2 + static_cast<int>(rng.below(60)); i < n; ++i) {
      x.push_back(1e8 + static_cast<double>(rng.below(1'000'000)));
      y.push_back(0.5 * x.back() + static_cast<double>(rng.below(400'000)));
      c.add(x.back(), y.back());
    }
    double mx = 0, my = 0;
    for (size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
    mx /= static_cast<double>(x.size()), my /= static_cast<double>(y.size());
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
    }
    EXPECT_NEAR(c.r(), sxy / std::sqrt(sxx * syy), 1e-9) << round;
  }
}

// Three batches of three workers; worker 2 has no queue in the second.
TEST(EstimateFit, BatchesGiveMakespansRatioAndLongestHits) {
  EstimateFit fit;
  EXPECT_TRUE(fit.empty());
  const std::vector<double> e1 = {10, 20, 30}, e2 = {5, 40, 0}, e3 = {7, 7, 1};
  const std::vector<uint64_t> m1 = {100, 200, 300}, m2 = {300, 200, 0}, m3 = {50, 100, 10};
  fit.add_batch(e1, m1);  // longest: 2 and 2 (hit); makespans 30 / 300
  fit.add_batch(e2, m2);  // longest: 1 and 0 (miss); 40 / 300
  fit.add_batch(e3, m3);  // longest: 0 (first of a tie) and 1 (miss); 7 / 100
  EXPECT_FALSE(fit.empty());
  JsonWriter w;
  fit.to_json(w);
  const std::string& j = w.str();
  EXPECT_NE(j.find("\"queues\": 8"), std::string::npos) << j;
  EXPECT_NE(j.find("\"makespan_ratio\": 0.11"), std::string::npos) << j;  // (30 + 40 + 7) / (300 + 300 + 100)
  EXPECT_NE(j.find("\"longest_hit_pct\": 33.3333"), std::string::npos) << j;
  EXPECT_NE(j.find("\"measured_load_ratio\": 4.8333"), std::string::npos) << j;  // (300/100 + 300/200 + 100/10) / 3
}

}  // namespace
}  // namespace ccb
