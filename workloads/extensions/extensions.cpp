#include "workloads/extensions/extensions.h"

#include <gflags/gflags.h>

#include <cmath>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "engine/cc/protocol.h"
#include "engine/config.h"
#include "engine/core/json.h"

DEFINE_bool(runtime_skew, false,
            "TSKD runtime skew: lower-bound every transaction's runtime by r * minT * t_T, r in 1..p ~ Zipf(theta_T)");
DEFINE_double(runtime_skew_min_t, 0.5, "TSKD minT: the unit of the runtime lower bound, as a fraction of t_T ((0, 1])");
DEFINE_uint32(runtime_skew_p, 48, "TSKD p: the largest lower bound is p * minT * t_T (1..1024)");
DEFINE_double(runtime_skew_theta, 0.8, "TSKD theta_T: Zipf skew of the lower-bound ranks ([0, 10])");
DEFINE_double(runtime_skew_t_us, 0,
              "TSKD t_T, average transaction runtime in microseconds; 0 = measured by the workers at the start of "
              "the run (see --runtime_skew_calibration_txns) (>= 0)");
DEFINE_uint32(runtime_skew_calibration_txns, 1000,
              "committed transactions each worker runs untimed (warm-up), then times to measure t_T (1..10000000)");
DEFINE_uint32(io_latency_l, 0, "TSKD l_IO: I/O delay at commit up to l_IO * minIO cycles; 0 = off (0..100000)");
DEFINE_double(io_latency_theta, 1.2, "TSKD theta_IO: Zipf skew of the I/O delay ranks ([0, 10])");
DEFINE_uint32(io_latency_min_cycles, 5000, "TSKD minIO: the I/O delay unit in CPU cycles (1..1000000000)");

namespace ccb {

ExtensionOptions ExtensionOptions::from_flags() {
  ExtensionOptions o;
  RuntimeSkewOptions& r = o.runtime;
  r.enabled = FLAGS_runtime_skew;
  require(std::isfinite(FLAGS_runtime_skew_min_t) && FLAGS_runtime_skew_min_t > 0 && FLAGS_runtime_skew_min_t <= 1,
          "runtime_skew_min_t", "a number in (0, 1]");
  r.min_t = FLAGS_runtime_skew_min_t;
  require(FLAGS_runtime_skew_p >= 1 && FLAGS_runtime_skew_p <= 1024, "runtime_skew_p", "an integer in [1, 1024]");
  r.p = FLAGS_runtime_skew_p;
  require(std::isfinite(FLAGS_runtime_skew_theta) && FLAGS_runtime_skew_theta >= 0 && FLAGS_runtime_skew_theta <= 10,
          "runtime_skew_theta", "a number in [0, 10]");
  r.theta = FLAGS_runtime_skew_theta;
  require(std::isfinite(FLAGS_runtime_skew_t_us) && FLAGS_runtime_skew_t_us >= 0 && FLAGS_runtime_skew_t_us <= 1e9,
          "runtime_skew_t_us", "microseconds in [0, 1e9] (0 = measure)");
  r.t_us = FLAGS_runtime_skew_t_us;
  require(FLAGS_runtime_skew_calibration_txns >= 1 && FLAGS_runtime_skew_calibration_txns <= 10000000,
          "runtime_skew_calibration_txns", "an integer in [1, 10000000]");
  r.calibration_txns = FLAGS_runtime_skew_calibration_txns;
  IoDelayOptions& io = o.io;
  require(FLAGS_io_latency_l <= 100000, "io_latency_l", "an integer in [0, 100000] (0 = off)");
  io.l_io = FLAGS_io_latency_l;
  require(std::isfinite(FLAGS_io_latency_theta) && FLAGS_io_latency_theta >= 0 && FLAGS_io_latency_theta <= 10,
          "io_latency_theta", "a number in [0, 10]");
  io.theta = FLAGS_io_latency_theta;
  require(FLAGS_io_latency_min_cycles >= 1 && FLAGS_io_latency_min_cycles <= 1000000000, "io_latency_min_cycles",
          "an integer in [1, 1000000000]");
  io.min_cycles = FLAGS_io_latency_min_cycles;
  return o;
}

void refuse_extensions(const ExtensionOptions& ext, const std::string& workload, const std::string& allowed) {
  if (!ext.enabled()) return;
  const std::string flag = ext.runtime.enabled ? "runtime_skew" : "io_latency_l";
  throw ConfigError(flag, "only with --workload=" + allowed + " (the workloads that take TSKD's runtime-skew and "
                              "I/O-latency extensions), not with --workload=" + workload);
}

void ExtensionOptions::to_json(JsonWriter& w) const {
  w.key("runtime_skew").value(runtime.enabled);
  w.key("runtime_skew_min_t").value(runtime.min_t);
  w.key("runtime_skew_p").value(runtime.p);
  w.key("runtime_skew_theta").value(runtime.theta);
  w.key("runtime_skew_t_us").value(runtime.t_us);
  w.key("runtime_skew_calibration_txns").value(runtime.calibration_txns);
  w.key("io_latency_l").value(io.l_io);
  w.key("io_latency_theta").value(io.theta);
  w.key("io_latency_min_cycles").value(io.min_cycles);
}

void spin_until_ns(uint64_t deadline_ns) {
  while (now_ns() < deadline_ns) cpu_relax();
}

void spin_cycles(uint64_t cycles) {
#if defined(__x86_64__) || defined(__i386__)
  const uint64_t start = __rdtsc();
  while (__rdtsc() - start < cycles) cpu_relax();
#else
  spin_until_ns(now_ns() + cycles * 2 / 5);  // 2.5 cycles per ns
#endif
}

}  // namespace ccb
