#include "workloads/micro/micro_options.h"

#include <gflags/gflags.h>

#include <cmath>

#include "engine/config.h"
#include "workloads/key_skew.h"
#include "engine/core/json.h"

DEFINE_uint64(micro_objects, 100000,
              "micro: objects in the key-value store (>= 9: a transaction touches 9 distinct keys)");

namespace ccb {

MicroOptions MicroOptions::from_flags() {
  MicroOptions o;
  o.objects = in_range(FLAGS_micro_objects, kKeys, uint64_t{1} << 40, "micro_objects", "an integer",
                       " (a transaction touches 9 distinct objects)");
  o.theta = theta_flag();
  return o;
}

void MicroOptions::to_json(JsonWriter& w) const {
  w.key("micro_objects").value(objects);
  w.key("theta").value(theta);
}

}  // namespace ccb
