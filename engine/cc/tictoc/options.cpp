#include "engine/cc/tictoc/options.h"

namespace ccb {
OptionsTable<TicTocOptions> TicTocOptions::flags{"tictoc_flags", OptionsTableBase::Definition::kByProgram};

const std::vector<std::string>& TicTocOptions::validations() {
  static const std::vector<std::string> names{"wait", "bounded"};
  return names;
}
}  // namespace ccb

CCB_OPTION(ccb::TicTocOptions::flags, validation, string, tictoc_validation, ccb::TicTocOptions{}.validation,
           ccb::one_of(&ccb::TicTocOptions::validations),
           "how TicToc's commit locks its write set: wait (in address order, waiting for each held lock) or bounded "
           "(DBx1000's no-wait locking with pre-abort and BOUNDED_SPINNING: in access order, one try per row; a "
           "held lock releases the rest and retries the set after 1, 3, 7, 15 pause rounds, then aborts; rows "
           "overwritten since the access abort before and while locking)");
