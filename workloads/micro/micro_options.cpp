#include "workloads/micro/micro_options.h"

namespace ccb {
OptionsTable<MicroOptions> MicroOptions::flags{"micro_flags"};
}  // namespace ccb

CCB_OPTION(ccb::MicroOptions::flags, objects, uint64, micro_objects, 100000,
           ccb::range(ccb::MicroOptions::kKeys, 0x1p40, "an integer", " (a transaction touches 9 distinct objects)"),
           "micro: objects in the key-value store");
CCB_OPTION_GROUP(ccb::MicroOptions::flags, key_skew, ccb::KeySkewOptions::flags);  // --theta
