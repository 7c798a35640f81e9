#include "engine/cc/mocc/options.h"

namespace ccb {
OptionsTable<MoccOptions> MoccOptions::flags{"mocc_flags", OptionsTableBase::Definition::kByProgram};
}  // namespace ccb

CCB_OPTION(ccb::MoccOptions::flags, temperature_threshold, uint32, mocc_temperature_threshold,
           ccb::MoccOptions{}.temperature_threshold, ccb::range(0, 65535, "an integer"),
           "a row is hot (reads lock it) from this temperature on: validation failures on it, halved every "
           "--mocc_decay_ms; 0 = every row hot");
CCB_OPTION(ccb::MoccOptions::flags, decay_ms, uint32, mocc_decay_ms, ccb::MoccOptions{}.decay_ms,
           ccb::range(40, 3600000, "milliseconds"), "period in ms after which a row's temperature halves");
