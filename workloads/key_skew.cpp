#include "workloads/key_skew.h"

namespace ccb {
OptionsTable<KeySkewOptions> KeySkewOptions::flags{"key_skew_flags"};
}  // namespace ccb

CCB_OPTION(ccb::KeySkewOptions::flags, theta, double, theta, 0.6, ccb::range(0, 10, "a number"),
           "YCSB, SmallBank, micro: Zipf skew of key (customer) choice (0 = uniform; >= 1 sampled exactly; a skew at "
           "which a transaction's distinct keys take over 2000 draws is refused)");
