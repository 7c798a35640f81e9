#include "workloads/micro/micro_options.h"

#include <gflags/gflags.h>

#include <cmath>

#include "engine/config.h"
#include "engine/stats/json.h"

DEFINE_uint64(micro_objects, 100000,
              "micro: objects in the key-value store (>= 9: a transaction touches 9 distinct keys)");
DECLARE_double(theta);  // shared with YCSB: Zipf skew of key choice

namespace ccb {

MicroOptions MicroOptions::from_flags() {
  MicroOptions o;
  require(FLAGS_micro_objects >= kKeys && FLAGS_micro_objects <= (uint64_t{1} << 40), "micro_objects",
          "an integer in [9, 2^40] (a transaction touches 9 distinct objects)");
  o.objects = FLAGS_micro_objects;
  require(std::isfinite(FLAGS_theta) && FLAGS_theta >= 0 && FLAGS_theta <= 10, "theta", "a number in [0, 10]");
  o.theta = FLAGS_theta;
  return o;
}

void MicroOptions::to_json(JsonWriter& w) const {
  w.key("micro_objects").value(objects);
  w.key("theta").value(theta);
}

}  // namespace ccb
