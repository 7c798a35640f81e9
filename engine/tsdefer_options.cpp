#include "engine/tsdefer_options.h"

#include <gflags/gflags.h>

#include "engine/config.h"
#include "engine/core/json.h"

DEFINE_uint32(tsdefer_lookups, 2,
              "with --frontend=tsdefer: lookups per candidate transaction (TSKD #lookups; 0 disables TsDEFER; <= 64)");
DEFINE_double(tsdefer_deferp, 0.6, "with --frontend=tsdefer: probability to defer a candidate that hit (TSKD deferp%; [0, 1])");
DEFINE_uint32(tsdefer_threshold, 1,
              "with --frontend=tsdefer: looked-up items in the candidate's access set needed to defer it (1..64)");
DEFINE_uint32(tsdefer_lookahead, 0,
              "with --frontend=tsdefer: look up transactions up to this many places beyond another thread's headp (<= 1024)");
DEFINE_double(access_set_accuracy, 1.0,
              "with --frontend=tsdefer: fraction alpha of each predicted access set TsDEFER sees, sampled uniformly ((0, 1])");

namespace ccb {

TsDeferOptions TsDeferOptions::from_flags() {
  TsDeferOptions o;
  o.lookups = in_range(FLAGS_tsdefer_lookups, 0, kMaxLookups, "tsdefer_lookups", "an integer", " (0 disables TsDEFER)");
  o.deferp = in_range(FLAGS_tsdefer_deferp, 0.0, 1.0, "tsdefer_deferp", "a probability");
  o.threshold = in_range(FLAGS_tsdefer_threshold, 1, kMaxLookups, "tsdefer_threshold", "an integer");
  o.lookahead = in_range(FLAGS_tsdefer_lookahead, 0, kMaxLookahead, "tsdefer_lookahead", "an integer");
  require(FLAGS_access_set_accuracy > 0 && FLAGS_access_set_accuracy <= 1, "access_set_accuracy", "a fraction in (0, 1]");
  o.accuracy = FLAGS_access_set_accuracy;
  return o;
}

void TsDeferOptions::to_json(JsonWriter& w) const {
  w.key("tsdefer_lookups").value(lookups);
  w.key("tsdefer_deferp").value(deferp);
  w.key("tsdefer_threshold").value(threshold);
  w.key("tsdefer_lookahead").value(lookahead);
  w.key("access_set_accuracy").value(accuracy);
}

}  // namespace ccb
