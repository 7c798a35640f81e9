#include "engine/core/zipf.h"

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace ccb {

double ZipfDistribution::zeta(uint64_t n, double theta) {
  static std::mutex mu;
  static std::map<std::pair<uint64_t, double>, double> cache;
  {
    std::lock_guard<std::mutex> g(mu);
    auto it = cache.find({n, theta});
    if (it != cache.end()) return it->second;
  }
  // Summing the small terms first keeps the rounding error low.
  double sum = 0;
  for (uint64_t i = n; i >= 1; --i) sum += std::pow(static_cast<double>(i), -theta);
  std::lock_guard<std::mutex> g(mu);
  cache[{n, theta}] = sum;
  return sum;
}

ZipfDistribution::ZipfDistribution(uint64_t n, double theta) : n_(n), theta_(theta) {
  if (n < 1) throw std::invalid_argument("zipf: n must be >= 1");
  if (!(theta >= 0) || !std::isfinite(theta))
    throw std::invalid_argument("zipf: theta must be a finite number >= 0, got " + std::to_string(theta));
  zetan_ = zeta(n, theta);
  if (theta < 1) {
    // Gray et al., section 3 ("Zipfian distribution"), as used by YCSB/DBx1000.
    const double zeta2 = zeta(2, theta);
    alpha_ = 1.0 / (1.0 - theta);
    eta_ = n == 1 ? 0.0
                  : (1.0 - std::pow(2.0 / static_cast<double>(n), 1.0 - theta)) / (1.0 - zeta2 / zetan_);
    half_pow_theta_ = std::pow(0.5, theta);
  } else {
    h_integral_x1_ = h_integral(1.5) - 1.0;
    h_integral_n_ = h_integral(static_cast<double>(n) + 0.5);
    s_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
  }
}

double ZipfDistribution::probability(uint64_t k) const {
  return std::pow(static_cast<double>(k + 1), -theta_) / zetan_;
}

uint64_t ZipfDistribution::sample(Random& rng) const {
  if (n_ == 1) return 0;
  if (theta_ >= 1) return sample_rejection_inversion(rng);
  const double u = rng.uniform();
  const double uz = u * zetan_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + half_pow_theta_) return 1;
  const auto k = static_cast<uint64_t>(static_cast<double>(n_) * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  return k < n_ ? k : n_ - 1;
}

// --- Rejection-inversion (Hormann & Derflinger 1996), ranks 1..n, exponent theta.
// h(x) = x^-theta is the (unnormalized) density of the continuous hat; H is its
// integral, chosen so that H(x) = log(x) when theta = 1 (expm1/log1p forms keep
// it accurate near theta = 1).
namespace {
double expm1_over_x(double x) { return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0); }
double log1p_over_x(double x) { return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x / 3.0); }
}  // namespace

double ZipfDistribution::h(double x) const { return std::exp(-theta_ * std::log(x)); }

double ZipfDistribution::h_integral(double x) const {
  const double log_x = std::log(x);
  return expm1_over_x((1.0 - theta_) * log_x) * log_x;
}

double ZipfDistribution::h_integral_inverse(double x) const {
  double t = x * (1.0 - theta_);
  if (t < -1.0) t = -1.0;  // guards rounding at the end of the support
  return std::exp(log1p_over_x(t) * x);
}

uint64_t ZipfDistribution::sample_rejection_inversion(Random& rng) const {
  for (;;) {
    const double u = h_integral_n_ + rng.uniform() * (h_integral_x1_ - h_integral_n_);
    const double x = h_integral_inverse(u);
    auto k = static_cast<uint64_t>(x + 0.5);
    if (k < 1) k = 1;
    if (k > n_) k = n_;
    const double kd = static_cast<double>(k);
    if (kd - x <= s_ || u >= h_integral(kd + 0.5) - h(kd)) return k - 1;
  }
}

}  // namespace ccb
