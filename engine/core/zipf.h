// Zipfian key generator: P(rank i) proportional to 1 / i^theta, ranks 1..n,
// returned as 0-based keys (rank 1 -> key 0, the hottest).
//
// theta in [0, 1): the method of Gray et al., "Quickly generating
//   billion-record synthetic databases" (SIGMOD 1994), the one YCSB and
//   DBx1000 use (exact for the two hottest ranks, an approximation of the
//   tail). theta = 0 is uniform.
// theta >= 1: Gray's formula divides by (1 - theta), so instead we sample the
//   exact distribution with rejection-inversion (Hormann & Derflinger, "Rejection-
//   inversion to generate variates from monotone discrete distributions", 1996).
//
// The normalization constant zeta(n, theta) is summed term by term up to
// kExactZetaTerms keys (O(n), at most about a second); beyond, the first
// kZetaHeadTerms terms are summed and the rest is the Euler-Maclaurin tail
// (integral, end-point and three Bernoulli corrections; relative error far
// below the rounding of a 2^26-term sum), so setting up a distribution over
// any n costs at most O(kExactZetaTerms). ZipfDistribution computes it once
// and caches it process-wide, so many per-thread generators over the same
// (n, theta) share it. Thread safety: a ZipfDistribution is
// immutable after construction; a ZipfGenerator is owned by one thread.
#pragma once

#include <cstdint>

#include "engine/core/random.h"

namespace ccb {

class ZipfDistribution {
 public:
  // REQUIRES: n >= 1, theta >= 0 (checked; throws std::invalid_argument).
  ZipfDistribution(uint64_t n, double theta);

  // Draws one key in [0, n) using `u`, a source of uniform randoms.
  uint64_t sample(Random& rng) const;

  // Exact probability of key k (0-based) under the Zipf law; for tests.
  double probability(uint64_t k) const;

  uint64_t n() const { return n_; }
  double theta() const { return theta_; }

  // zeta(n, theta) = sum_{i=1..n} 1/i^theta, memoized per (n, theta).
  static double zeta(uint64_t n, double theta);
  // sum_{i=lo..hi} 1/i^theta: term by term (from hi down) when the range
  // holds at most `exact_terms` keys, else the first kZetaHeadTerms terms
  // plus the Euler-Maclaurin sum of the rest. REQUIRES: 1 <= lo <= hi.
  static double power_sum(uint64_t lo, uint64_t hi, double theta, uint64_t exact_terms = kExactZetaTerms);
  static constexpr uint64_t kExactZetaTerms = uint64_t{1} << 26;
  static constexpr uint64_t kZetaHeadTerms = uint64_t{1} << 16;

 private:
  uint64_t n_;
  double theta_;
  double zetan_;
  // Gray et al. constants (theta < 1).
  double alpha_ = 0, eta_ = 0, half_pow_theta_ = 0;
  // Rejection-inversion constants (theta >= 1).
  double h_integral_x1_ = 0, h_integral_n_ = 0, s_ = 0;
  double h(double x) const;
  double h_integral(double x) const;
  double h_integral_inverse(double x) const;
  uint64_t sample_rejection_inversion(Random& rng) const;
};

// Convenience: a distribution plus its own random stream.
class ZipfGenerator {
 public:
  ZipfGenerator(uint64_t n, double theta, uint64_t seed) : dist_(n, theta), rng_(seed) {}
  uint64_t next() { return dist_.sample(rng_); }
  const ZipfDistribution& distribution() const { return dist_; }

 private:
  ZipfDistribution dist_;
  Random rng_;
};

}  // namespace ccb
