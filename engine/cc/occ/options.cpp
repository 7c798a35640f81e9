#include "engine/cc/occ/options.h"

namespace ccb {
OptionsTable<OccOptions> OccOptions::flags{"occ_flags", OptionsTableBase::Definition::kByProgram};

const std::vector<std::string>& OccOptions::validations() {
  static const std::vector<std::string> names{"wait", "bounded"};
  return names;
}
}  // namespace ccb

CCB_OPTION(ccb::OccOptions::flags, validation, string, occ_validation, ccb::OccOptions{}.validation,
           ccb::one_of(&ccb::OccOptions::validations),
           "how OCC's commit latches the rows it validates: wait (in address order, waiting for each held latch, "
           "then validate all) or bounded (DBx1000's BOUNDED_SPINNING: in access order, a held latch retried with "
           "a bounded exponential back-off of 1+3+7+15 pause rounds, then abort; each row validated as latched, "
           "the first stale one aborts)");
CCB_OPTION(ccb::OccOptions::flags, read_abort, bool, occ_read_abort, ccb::OccOptions{}.read_abort, ccb::any_value(),
           "abort at a read (or first write) of a row written after the transaction started, as DBx1000's "
           "Row_occ::access does (false: run on and fail the validation at commit)");
