#include "workloads/key_skew.h"

#include <gflags/gflags.h>

#include "engine/config.h"

DEFINE_double(theta, 0.6, "YCSB, SmallBank, micro: Zipf skew of key (customer) choice ([0, 10]; 0 = uniform; >= 1 sampled exactly; a skew at which a transaction's distinct keys take over 2000 draws is refused)");

namespace ccb {

double theta_flag() { return in_range(FLAGS_theta, 0.0, 10.0, "theta", "a number"); }

}  // namespace ccb
