#include "engine/cc/bcc/options.h"

namespace ccb {
OptionsTable<BccOptions> BccOptions::flags{"bcc_flags", OptionsTableBase::Definition::kByProgram};

const std::vector<std::string>& BccOptions::fences() {
  static const std::vector<std::string> names{"per_read", "asymmetric"};
  return names;
}
}  // namespace ccb

CCB_OPTION(ccb::BccOptions::flags, breakdown, bool, bcc_breakdown, false, ccb::any_value(),
           "time BCC's history memory management and global-clock accesses per transaction (bcc-tab1; costs a "
           "clock read around each)");
CCB_OPTION(ccb::BccOptions::flags, fence, string, bcc_fence, ccb::BccOptions{}.fence,
           ccb::one_of(&ccb::BccOptions::fences),
           "how BCC orders a read-set insert before the reader's re-check of the row (Algorithm 2), so that a "
           "writer that locks the row and then searches the table finds the read or the reader sees the new "
           "version: per_read (a full fence after every insert; correct under the C++ memory model on any "
           "machine) or asymmetric (plain release stores per read; a writer about to search issues membarrier, "
           "which runs a full barrier on every running worker, so the fence is paid per search instead of per "
           "read; Linux only, falls back to per_read where membarrier is unavailable, cc_stats.fence says which "
           "ran)");
