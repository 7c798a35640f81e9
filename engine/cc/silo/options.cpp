#include "engine/cc/silo/options.h"

namespace ccb {
OptionsTable<SiloOptions> SiloOptions::flags{"silo_flags", OptionsTableBase::Definition::kByProgram};

const std::vector<std::string>& SiloOptions::validations() {
  static const std::vector<std::string> names{"wait", "bounded"};
  return names;
}
}  // namespace ccb

CCB_OPTION(ccb::SiloOptions::flags, validation, string, silo_validation, ccb::SiloOptions{}.validation,
           ccb::one_of(&ccb::SiloOptions::validations),
           "how Silo's commit locks its write set: wait (in address order, waiting for each held lock) or bounded "
           "(DBx1000's no-wait locking with pre-abort and BOUNDED_SPINNING: in access order, one try per row; a "
           "held lock releases the rest and retries the set after 1, 3, 7, 15 pause rounds, then aborts; rows "
           "read or written that changed since the access abort before and while locking)");
