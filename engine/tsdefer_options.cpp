#include "engine/tsdefer_options.h"

namespace ccb {
OptionsTable<TsDeferOptions> TsDeferOptions::flags{"tsdefer_flags"};
}  // namespace ccb

CCB_OPTION(ccb::TsDeferOptions::flags, lookups, uint32, tsdefer_lookups, 2,
           ccb::range(0, ccb::TsDeferOptions::kMaxLookups, "an integer", " (0 disables TsDEFER)"),
           "with --frontend=tsdefer: lookups per candidate transaction (TSKD #lookups)");
CCB_OPTION(ccb::TsDeferOptions::flags, deferp, double, tsdefer_deferp, 0.6, ccb::range(0, 1, "a probability"),
           "with --frontend=tsdefer: probability to defer a candidate that hit (TSKD deferp%)");
CCB_OPTION(ccb::TsDeferOptions::flags, threshold, uint32, tsdefer_threshold, 1,
           ccb::range(1, ccb::TsDeferOptions::kMaxLookups, "an integer"),
           "with --frontend=tsdefer: looked-up items in the candidate's access set needed to defer it");
CCB_OPTION(ccb::TsDeferOptions::flags, lookahead, uint32, tsdefer_lookahead, 0,
           ccb::range(0, ccb::TsDeferOptions::kMaxLookahead, "an integer"),
           "with --frontend=tsdefer: look up transactions up to this many places beyond another thread's headp");
CCB_OPTION(ccb::TsDeferOptions::flags, accuracy, double, access_set_accuracy, 1.0, ccb::above(0, 1, "a fraction"),
           "with --frontend=tsdefer: fraction alpha of each predicted access set TsDEFER sees, sampled uniformly");
