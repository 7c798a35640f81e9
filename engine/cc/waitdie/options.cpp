#include "engine/cc/waitdie/options.h"

namespace ccb {
OptionsTable<WaitDieOptions> WaitDieOptions::flags{"waitdie_flags", OptionsTableBase::Definition::kByProgram};
}  // namespace ccb

CCB_OPTION(ccb::WaitDieOptions::flags, read_then_upgrade, bool, waitdie_read_then_upgrade, false, ccb::any_value(),
           "a read-modify-write takes the row's read lock, then upgrades it (the BCC paper's 2PL in Silo, §6.2; "
           "false: the exclusive lock at once)");
CCB_OPTION(ccb::WaitDieOptions::flags, latched_reads, bool, waitdie_latched_reads, false, ccb::any_value(),
           "take and release a read lock under the lock word's latch: a compare-and-swap sets it, a store clears it "
           "(the BCC paper's 2PL, §6.1; false: one compare-and-swap)");
