#include "workloads/distinct_keys.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <vector>

#include "engine/core/cli.h"
#include "engine/core/zipf.h"

namespace ccb {

double worst_case_draws(uint64_t keys, double theta, uint32_t distinct) {
  if (distinct > keys) return std::numeric_limits<double>::infinity();
  // rest[m] = sum_{i > m} i^-theta, the mass after the m hottest keys: the
  // long tail once (Euler-Maclaurin beyond 2^16 terms, so O(1) in keys),
  // then the hot terms added from the coldest up (no cancellation at high skew).
  std::vector<double> rest(distinct + 1, 0.0);
  rest[distinct] = distinct < keys ? ZipfDistribution::power_sum(distinct + 1, keys, theta, 0) : 0.0;
  for (uint32_t m = distinct; m-- > 0;) rest[m] = rest[m + 1] + std::pow(static_cast<double>(m + 1), -theta);
  double draws = 0;
  for (uint32_t m = 0; m < distinct; ++m) draws += rest[0] / rest[m];
  return draws;
}

void require_bounded_distinct_draws(uint64_t keys, double theta, uint32_t distinct, const std::string& what,
                                    const std::string& remedy) {
  const double draws = worst_case_draws(keys, theta, distinct);
  if (draws <= kMaxDrawsPerTxn) return;
  std::ostringstream msg;
  msg << "invalid value '" << theta << "' with " << what << ": at that skew a transaction needs about "
      << std::scientific << std::setprecision(2) << draws << " Zipf draws to find distinct keys; allowed: a theta "
      << "at which it needs at most " << static_cast<int>(kMaxDrawsPerTxn) << " (" << remedy << ")";
  throw ConfigError("theta", msg.str());
}

}  // namespace ccb
