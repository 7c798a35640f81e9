// The Zipf generator against the analytic distribution P(k) = (k+1)^-theta / zeta(n, theta).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "engine/core/zipf.h"

namespace ccb {
namespace {

// Pearson chi-square statistic over bins of ranks, merging the tail into
// bins with an expected count of at least 50.
double chi_square(const std::vector<uint64_t>& counts, const std::vector<double>& pmf, uint64_t samples, int* dof) {
  double chi = 0, obs = 0, expct = 0;
  int bins = 0;
  for (uint64_t k = 0; k < pmf.size(); ++k) {
    obs += static_cast<double>(counts[k]);
    expct += pmf[k] * static_cast<double>(samples);
    if (expct >= 50 || k + 1 == pmf.size()) {
      chi += (obs - expct) * (obs - expct) / expct;
      obs = expct = 0;
      ++bins;
    }
  }
  *dof = bins - 1;
  return chi;
}

// The distribution Gray et al.'s formula induces, computed independently of
// the generator by inverting its map from u in [0, 1) to keys: key 0 for
// u < 1/zeta_n, key 1 below (1 + 0.5^theta)/zeta_n, and for larger u the key
// floor(n (eta u - eta + 1)^(1/(1-theta))), which is >= j exactly when
// u >= ((j/n)^(1-theta) - 1 + eta) / eta.
std::vector<double> gray_induced_pmf(uint64_t n, double theta) {
  const double zetan = ZipfDistribution::zeta(n, theta);
  const double eta = (1 - std::pow(2.0 / n, 1 - theta)) / (1 - ZipfDistribution::zeta(2, theta) / zetan);
  const double u0 = 1 / zetan, u1 = (1 + std::pow(0.5, theta)) / zetan;
  std::vector<double> pmf(n, 0.0);
  pmf[0] = u0;
  pmf[1] = u1 - u0;
  auto boundary = [&](double j) { return (std::pow(j / n, 1 - theta) - 1 + eta) / eta; };
  for (uint64_t j = 0; j < n; ++j) {
    const double lo = std::max(u1, boundary(static_cast<double>(j)));
    const double hi = j + 1 == n ? 1.0 : std::min(1.0, boundary(static_cast<double>(j + 1)));
    if (hi > lo) pmf[j] += hi - lo;
  }
  return pmf;
}

class ZipfFit : public ::testing::TestWithParam<double> {};

TEST_P(ZipfFit, EmpiricalFrequenciesMatchTheLaw) {
  const double theta = GetParam();
  const uint64_t n = 1000, samples = 2'000'000;
  ZipfDistribution d(n, theta);
  Random rng(42);
  std::vector<uint64_t> counts(n);
  for (uint64_t i = 0; i < samples; ++i) {
    const uint64_t k = d.sample(rng);
    ASSERT_LT(k, n);
    ++counts[k];
  }
  // Both methods are exact for the two hottest keys.
  for (uint64_t k = 0; k < 2; ++k) {
    const double expected = d.probability(k) * samples;
    EXPECT_NEAR(counts[k], expected, 5 * std::sqrt(expected)) << "rank " << k + 1;
  }
  // Rank-frequency: log(frequency) falls with slope -theta in log(rank).
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int m = 0;
  for (uint64_t k = 9; k < n; k += 10) {
    double c = 0;
    for (uint64_t j = k - 9; j <= k; ++j) c += static_cast<double>(counts[j]);
    const double x = std::log(static_cast<double>(k - 4)), y = std::log(c / 10);
    sx += x, sy += y, sxx += x * x, sxy += x * y, ++m;
  }
  const double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
  EXPECT_NEAR(slope, -theta, 0.05);
  // Chi-square against the exact distribution of the method used: the Zipf
  // law itself for theta >= 1 (rejection-inversion is exact), the
  // distribution Gray's formula induces for theta < 1. Critical value: 99.99%.
  std::vector<double> pmf(n);
  if (theta >= 1) {
    for (uint64_t k = 0; k < n; ++k) pmf[k] = d.probability(k);
  } else {
    pmf = gray_induced_pmf(n, theta);
  }
  int dof = 0;
  const double chi = chi_square(counts, pmf, samples, &dof);
  EXPECT_LT(chi, dof + 3.72 * std::sqrt(2.0 * dof)) << "theta " << theta << " dof " << dof;
}

INSTANTIATE_TEST_SUITE_P(Thetas, ZipfFit, ::testing::Values(0.0, 0.5, 0.8, 0.9, 0.99, 1.0, 1.2, 1.5));

TEST(Zipf, ThetaZeroIsUniform) {
  ZipfDistribution d(10, 0.0);
  for (uint64_t k = 0; k < 10; ++k) EXPECT_DOUBLE_EQ(d.probability(k), 0.1);
}

TEST(Zipf, SameSeedSameSequence) {
  ZipfGenerator a(1'000'000, 0.99, 7), b(1'000'000, 0.99, 7), c(1'000'000, 0.99, 8);
  int differ = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differ += x != c.next();
  }
  EXPECT_GT(differ, 100);
}

TEST(Zipf, SingleKeyAndBadArguments) {
  ZipfGenerator one(1, 0.9, 1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(one.next(), 0u);
  EXPECT_THROW(ZipfDistribution(0, 0.5), std::invalid_argument);
  EXPECT_THROW(ZipfDistribution(10, -0.1), std::invalid_argument);
  EXPECT_THROW(ZipfDistribution(10, NAN), std::invalid_argument);
}

// Beyond 2^26 keys zeta's tail is the Euler-Maclaurin sum: forced here
// (exact_terms 0) on ranges small enough to sum term by term, it agrees with
// the term-by-term sum to far below the rounding of a long sum.
TEST(Zipf, EulerMaclaurinTailMatchesTheSum) {
  for (double theta : {0.0, 0.5, 0.99, 1.0, 1.0 + 1e-13, 1.5, 3.0, 10.0}) {
    for (auto [lo, hi] : {std::pair<uint64_t, uint64_t>{1, 3'000'000}, {17, 200'000}, {1000, 70'000}}) {
      const double exact = ZipfDistribution::power_sum(lo, hi, theta);
      const double em = ZipfDistribution::power_sum(lo, hi, theta, 0);
      EXPECT_NEAR(em, exact, 1e-13 * exact) << "theta " << theta << " [" << lo << ", " << hi << "]";
    }
  }
  // zeta itself: exact up to kExactZetaTerms keys, so every stream drawn
  // over at most 2^26 keys is unchanged.
  EXPECT_EQ(ZipfDistribution::zeta(1000, 0.9), ZipfDistribution::power_sum(1, 1000, 0.9));
  // A distribution over 2^40 keys is set up at once and draws in range.
  ZipfDistribution huge(uint64_t{1} << 40, 0.8);
  Random rng(5);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(huge.sample(rng), uint64_t{1} << 40);
}

}  // namespace
}  // namespace ccb
