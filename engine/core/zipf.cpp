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
  const double sum = power_sum(1, n, theta);
  std::lock_guard<std::mutex> g(mu);
  cache[{n, theta}] = sum;
  return sum;
}

double ZipfDistribution::power_sum(uint64_t lo, uint64_t hi, double theta, uint64_t exact_terms) {
  if (lo < 1 || lo > hi) throw std::invalid_argument("zipf: power_sum needs 1 <= lo <= hi");
  auto terms = [&](uint64_t from, uint64_t to) {  // the small terms first keep the rounding error low
    double sum = 0;
    for (uint64_t i = to; i >= from; --i) sum += std::pow(static_cast<double>(i), -theta);
    return sum;
  };
  if (hi - lo < exact_terms || hi - lo < kZetaHeadTerms) return terms(lo, hi);
  // Euler-Maclaurin for i = a..hi, a = lo + kZetaHeadTerms (large, so the
  // series' corrections fall off fast):
  //   sum f(i) = integral_a^hi f + (f(a) + f(hi)) / 2
  //              + sum_k B_2k / (2k)! (f^(2k-1)(hi) - f^(2k-1)(a)) + R,
  // f(x) = x^-theta, f^(k)(x) = (-1)^k theta (theta+1) ... (theta+k-1) x^(-theta-k).
  const uint64_t head_end = lo + kZetaHeadTerms;
  const double a = static_cast<double>(head_end), b = static_cast<double>(hi);
  auto f = [&](double x) { return std::pow(x, -theta); };
  auto odd_derivative = [&](double x, int k) {
    double c = -1;
    for (int j = 0; j < k; ++j) c *= theta + j;
    return c * std::pow(x, -theta - k);
  };
  // (b^(1-theta) - a^(1-theta)) / (1 - theta), with expm1 so that it stays
  // accurate near theta = 1, and log(b / a) at theta = 1.
  const double t = 1.0 - theta, log_ratio = std::log(b) - std::log(a);
  const double integral = t == 0 ? log_ratio : std::pow(a, t) * std::expm1(t * log_ratio) / t;
  constexpr double kB2 = 1.0 / 12, kB4 = -1.0 / 720, kB6 = 1.0 / 30240;  // B_2k / (2k)!
  const double tail = integral + (f(a) + f(b)) / 2 + kB2 * (odd_derivative(b, 1) - odd_derivative(a, 1)) +
                      kB4 * (odd_derivative(b, 3) - odd_derivative(a, 3)) +
                      kB6 * (odd_derivative(b, 5) - odd_derivative(a, 5));
  return terms(lo, head_end - 1) + tail;
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
