#include "engine/cc/bcc/options.h"

namespace ccb {
OptionsTable<BccOptions> BccOptions::flags{"bcc_flags", OptionsTableBase::Definition::kByProgram};
}  // namespace ccb

CCB_OPTION(ccb::BccOptions::flags, breakdown, bool, bcc_breakdown, false, ccb::any_value(),
           "time BCC's history memory management and global-clock accesses per transaction (bcc-tab1; costs a "
           "clock read around each)");
