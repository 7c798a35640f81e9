#include "workloads/extensions/extensions.h"

#include "engine/txn/protocol.h"

namespace ccb {
OptionsTable<ExtensionOptions> ExtensionOptions::flags{"extension_flags"};
}  // namespace ccb

CCB_OPTION(ccb::ExtensionOptions::flags, runtime.enabled, bool, runtime_skew, false, ccb::any_value(),
           "TSKD runtime skew: lower-bound every transaction's runtime by r * minT * t_T, r in 1..p ~ Zipf(theta_T)");
CCB_OPTION(ccb::ExtensionOptions::flags, runtime.min_t, double, runtime_skew_min_t, 0.5, ccb::above(0, 1, "a number"),
           "TSKD minT: the unit of the runtime lower bound, as a fraction of t_T");
CCB_OPTION(ccb::ExtensionOptions::flags, runtime.p, uint32, runtime_skew_p, 48, ccb::range(1, 1024, "an integer"),
           "TSKD p: the largest lower bound is p * minT * t_T");
CCB_OPTION(ccb::ExtensionOptions::flags, runtime.theta, double, runtime_skew_theta, 0.8,
           ccb::range(0, 10, "a number"), "TSKD theta_T: Zipf skew of the lower-bound ranks");
CCB_OPTION(ccb::ExtensionOptions::flags, runtime.t_us, double, runtime_skew_t_us, 0,
           ccb::range(0, 1e9, "microseconds").explained("microseconds in [0, 1e9] (0 = measure)"),
           "TSKD t_T, average transaction runtime in microseconds; 0 = measured by the workers at the start of "
           "the run (see --runtime_skew_calibration_txns)");
CCB_OPTION(ccb::ExtensionOptions::flags, runtime.calibration_txns, uint32, runtime_skew_calibration_txns, 1000,
           ccb::range(1, 10000000, "an integer"),
           "committed transactions each worker runs untimed (warm-up), then times to measure t_T");
CCB_OPTION(ccb::ExtensionOptions::flags, io.l_io, uint32, io_latency_l, 0,
           ccb::range(0, 100000, "an integer", " (0 = off)"),
           "TSKD l_IO: I/O delay at commit up to l_IO * minIO cycles");
CCB_OPTION(ccb::ExtensionOptions::flags, io.theta, double, io_latency_theta, 1.2, ccb::range(0, 10, "a number"),
           "TSKD theta_IO: Zipf skew of the I/O delay ranks");
CCB_OPTION(ccb::ExtensionOptions::flags, io.min_cycles, uint32, io_latency_min_cycles, 5000,
           ccb::range(1, 1000000000, "an integer"), "TSKD minIO: the I/O delay unit in CPU cycles at a nominal 2.5 GHz (0.4 ns each, natively and simulated)");

namespace ccb {

void refuse_extensions(const ExtensionOptions& ext, const std::string& workload, const std::string& allowed) {
  if (!ext.enabled()) return;
  const std::string flag = ext.runtime.enabled ? "runtime_skew" : "io_latency_l";
  throw ConfigError(flag, "only with --workload=" + allowed + " (the workloads that take TSKD's runtime-skew and "
                              "I/O-latency extensions), not with --workload=" + workload);
}

// Under sim both advance the virtual core's clock instead of spinning
// (engine/sim/sim.h): the delay is virtual time, not spin rounds.
void spin_until_ns(uint64_t deadline_ns) {
  if constexpr (kSimBuild) {
    if (sim::in_fiber()) return sim::delay_until_ns(deadline_ns);
  }
  while (now_ns() < deadline_ns) cpu_relax();
}

void spin_cycles(uint64_t cycles) { spin_until_ns(now_ns() + nominal_cycles_to_ns(cycles)); }

}  // namespace ccb
