#include "engine/cc/orthrus/options.h"

namespace ccb {
OptionsTable<OrthrusOptions> OrthrusOptions::flags{"orthrus_flags", OptionsTableBase::Definition::kByProgram};

const std::vector<std::string>& OrthrusOptions::waits() {
  static const std::vector<std::string> names{"poll", "sleep"};
  return names;
}
}  // namespace ccb

CCB_OPTION(ccb::OrthrusOptions::flags, wait, string, orthrus_wait, ccb::OrthrusOptions{}.wait,
           ccb::one_of(&ccb::OrthrusOptions::waits),
           "how Orthrus's CC and execution threads wait for a message: poll (spin on the queue, as Orthrus's "
           "threads do) or sleep (block in the queue's pop; every message wakes a sleeping thread)");
