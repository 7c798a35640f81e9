// TSKD extensions: samplers, options, and Extended<W> (delegation, runtime
// lower bound, calibration, I/O delay).
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <concepts>
#include <type_traits>
#include <vector>

#include "engine/cc/nowait/nowait.h"
#include "engine/cc/silo/silo.h"
#include "tests/workloads/test_util.h"
#include "workloads/extensions/extended.h"
#include "workloads/micro/micro.h"
#include "workloads/smallbank/smallbank.h"

DECLARE_bool(runtime_skew);
DECLARE_double(runtime_skew_min_t);
DECLARE_uint32(runtime_skew_p);
DECLARE_double(runtime_skew_theta);
DECLARE_double(runtime_skew_t_us);
DECLARE_uint32(io_latency_l);
DECLARE_double(io_latency_theta);
DECLARE_uint32(io_latency_min_cycles);

namespace ccb {
namespace {

using CC = NoWait;
using Micro = MicroWorkload<CC>;
using Ext = Extended<Micro>;
using ccb::testing::expect_all_hold;
static_assert(Workload<Ext, CC>, "Extended<W> must satisfy the Workload concept");
static_assert(Workload<Extended<MicroWorkload<Silo>>, Silo>);
// The wrapper forwards W's optional executor members (table_by_id, read_only;
// engine/exec/online_executor.h) exactly when W has them.
template <class W>
constexpr bool kHasTableById = requires(const W& w) { w.table_by_id(uint32_t{0}); };
template <class W>
constexpr bool kHasReadOnly = requires(const W& w, const typename W::Request& r) {
  { w.read_only(r) } -> std::same_as<bool>;
};
static_assert(kHasTableById<Ext>);
static_assert(!kHasReadOnly<Ext>);
static_assert(kHasReadOnly<Extended<SmallBankWorkload<CC>>>);

MicroOptions micro_options() {
  MicroOptions o;
  o.objects = 1000;
  return o;
}

// Generates and commits n fresh requests of e on one worker; each must commit.
void commit_fresh(Ext& e, Txn<CC>& txn, Ext::ThreadState& ts, Random& rng, int n) {
  for (int i = 0; i < n; ++i) {
    Ext::Request r;
    e.generate(rng, 0, r);
    ASSERT_EQ(ccb::testing::run_once<CC>(e, txn, r, ts), RC::kOk);
  }
}

TEST(RuntimeSkewTest, RanksFollowAZipfOverOneToP) {
  RuntimeSkewOptions o;
  o.enabled = true;
  o.p = 48;
  o.theta = 0.8;
  RuntimeSkew s(o);
  Random rng(1);
  std::vector<int> count(49);
  for (int i = 0; i < 50000; ++i) {
    const uint32_t r = s.draw_rank(rng);
    ASSERT_GE(r, 1u);
    ASSERT_LE(r, 48u);
    ++count[r];
  }
  EXPECT_GT(count[1], count[2]);
  EXPECT_GT(count[2], count[48]);
  EXPECT_GT(count[48], 0);
  EXPECT_EQ(s.bound_ns(4, 1000), 2000u);  // 4 * minT (1/2) * t
  o.enabled = false;
  EXPECT_EQ(RuntimeSkew(o).draw_rank(rng), 0u);
}

TEST(IoDelayTest, RanksFollowAZipfOverZeroToL) {
  IoDelayOptions o;
  o.l_io = 50;
  IoDelay d(o);
  Random rng(2);
  std::vector<int> count(51);
  for (int i = 0; i < 50000; ++i) ++count[d.draw_rank(rng)];
  EXPECT_GT(count[0], count[1]);  // no delay is the most likely
  EXPECT_GT(count[50], 0);
  EXPECT_EQ(d.cycles(3), 15000u);
  o.l_io = 0;
  EXPECT_EQ(IoDelay(o).draw_rank(rng), 0u);
}

TEST(SpinTest, WaitsAtLeastTheRequestedTime) {
  const uint64_t t0 = now_ns();
  spin_until_ns(t0 + 200000);
  EXPECT_GE(now_ns() - t0, 200000u);
  // Nominal 2.5 GHz cycles on every machine: 2.5M cycles are 1 ms, natively
  // as simulated (a time-stamp counter at 2.596 GHz waited 0.963 ms).
  EXPECT_EQ(nominal_cycles_to_ns(2500000), 1000000u);
  const uint64_t t1 = now_ns();
  spin_cycles(2500000);
  EXPECT_GE(now_ns() - t1, 1000000u);
}

TEST(ExtensionOptionsTest, FlagsAreValidated) {
  gflags::FlagSaver restore;
  EXPECT_FALSE(ExtensionOptions::from_flags().enabled());  // both off by default
  FLAGS_runtime_skew = true;
  FLAGS_io_latency_l = 50;
  const ExtensionOptions o = ExtensionOptions::from_flags();
  EXPECT_TRUE(o.enabled());
  EXPECT_EQ(o.runtime.p, 48u);
  EXPECT_EQ(o.runtime.min_t, 0.5);
  EXPECT_EQ(o.io.min_cycles, 5000u);
  FLAGS_runtime_skew_min_t = 0;
  ccb::testing::expect_config_error([] { ExtensionOptions::from_flags(); }, "runtime_skew_min_t");
  FLAGS_runtime_skew_min_t = 0.5;
  FLAGS_runtime_skew_p = 0;
  ccb::testing::expect_config_error([] { ExtensionOptions::from_flags(); }, "runtime_skew_p");
  FLAGS_runtime_skew_p = 48;
  FLAGS_runtime_skew_theta = -0.1;
  ccb::testing::expect_config_error([] { ExtensionOptions::from_flags(); }, "runtime_skew_theta");
  FLAGS_runtime_skew_theta = 0.8;
  FLAGS_runtime_skew_t_us = -1;
  ccb::testing::expect_config_error([] { ExtensionOptions::from_flags(); }, "runtime_skew_t_us");
  FLAGS_runtime_skew_t_us = 0;
  FLAGS_io_latency_theta = 11;
  ccb::testing::expect_config_error([] { ExtensionOptions::from_flags(); }, "io_latency_theta");
  FLAGS_io_latency_theta = 1.2;
  FLAGS_io_latency_min_cycles = 0;
  ccb::testing::expect_config_error([] { ExtensionOptions::from_flags(); }, "io_latency_min_cycles");
}

TEST(ExtendedTest, WithExtensionsWrapsOnlyWhenEnabled) {
  Micro m(micro_options());
  ExtensionOptions off;
  EXPECT_TRUE(with_extensions(m, off, [](auto& w) { return std::is_same_v<std::decay_t<decltype(w)>, Micro>; }));
  ExtensionOptions on;
  on.io.l_io = 5;
  EXPECT_TRUE(with_extensions(m, on, [](auto& w) { return std::is_same_v<std::decay_t<decltype(w)>, Ext>; }));
}

TEST(ExtendedTest, DelegatesToTheInnerWorkload) {
  Micro m(micro_options());
  ExtensionOptions o;
  o.io.l_io = 10;
  Ext e(m, o);
  e.load(1);
  EXPECT_EQ(e.txn_types(), m.txn_types());
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  Ext::ThreadState ts;
  for (int i = 0; i < 200; ++i) {
    Random a(100 + i), b(100 + i);
    Ext::Request r;
    e.generate(a, 0, r);
    MicroRequest plain;
    m.generate(b, 0, plain);  // the wrapper draws its ranks after the inner request
    ASSERT_EQ(std::memcmp(r.inner.keys, plain.keys, sizeof plain.keys), 0);
    ASSERT_EQ(r.runtime_rank, 0u);
    ASSERT_LE(r.io_rank, 10u);
    ccb::testing::expect_describe_matches<CC>(e, txn, r, ts);
  }
  EXPECT_EQ(ts.inner.writes, 1000u);
  EXPECT_EQ(e.table_by_id(Micro::kTableId), &m.table());  // forwarded optional member
  expect_all_hold(e.check_invariants({ts}));
  JsonWriter j;
  j.begin_object();
  e.options_json(j);
  j.end_object();
  EXPECT_NE(j.str().find("\"micro_objects\""), std::string::npos);
  EXPECT_NE(j.str().find("\"io_latency_l\": 10"), std::string::npos);
}

TEST(ExtendedTest, RuntimeLowerBoundDelaysEachCommit) {
  Micro m(micro_options());
  m.load(1);
  ExtensionOptions o;
  o.runtime.enabled = true;
  o.runtime.min_t = 1;
  o.runtime.p = 1;       // every bound is exactly minT * t = t
  o.runtime.t_us = 200;  // fixed t: no calibration
  Ext e(m, o);
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  Ext::ThreadState ts;
  Random rng(4);
  Ext::Request one;
  e.generate(rng, 0, one);
  ASSERT_EQ(one.runtime_rank, 1u);  // p = 1: every rank is 1
  const uint64_t t0 = now_ns();
  commit_fresh(e, txn, ts, rng, 20);
  EXPECT_GE(now_ns() - t0, 20 * 200000u);
  EXPECT_EQ(e.calibration().t_ns(), 200000u);
}

TEST(ExtendedTest, CalibrationMeasuresUndelayedCommitsThenAppliesTheBound) {
  Micro m(micro_options());
  m.load(1);
  ExtensionOptions o;
  o.runtime.enabled = true;
  o.runtime.min_t = 1;
  o.runtime.p = 1;
  o.runtime.calibration_txns = 100;
  Ext e(m, o);
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  Ext::ThreadState ts;
  Random rng(5);
  std::vector<Ext::Request> reqs(400);
  for (auto& r : reqs) e.generate(rng, 0, r);
  // 100 untimed commits, then 100 timed ones, all without delay.
  for (int i = 0; i < 199; ++i) ASSERT_EQ(ccb::testing::run_once<CC>(e, txn, reqs[i], ts), RC::kOk);
  EXPECT_EQ(e.calibration().t_ns(), 0u);
  ASSERT_EQ(ccb::testing::run_once<CC>(e, txn, reqs[199], ts), RC::kOk);
  const uint64_t t = e.calibration().t_ns();
  EXPECT_GT(t, 0u);
  EXPECT_EQ(e.calibration().workers(), 1u);
  // From now on every transaction lasts at least t (the bound r * minT * t).
  const uint64_t t0 = now_ns();
  for (int i = 200; i < 400; ++i) ASSERT_EQ(ccb::testing::run_once<CC>(e, txn, reqs[i], ts), RC::kOk);
  EXPECT_GE(now_ns() - t0, 200 * t);
  EXPECT_EQ(e.calibration().t_ns(), t);  // fixed after this worker's contribution
  expect_all_hold(e.check_invariants({ts}));
}

// A worker that finished calibrating in the warm-up measures with its
// bounds; one still calibrating after the measured interval began commits
// without them, and the run is refused naming the calibration count.
TEST(ExtendedTest, CommitsStillCalibratingInTheMeasuredIntervalAreRefused) {
  Micro m(micro_options());
  m.load(1);
  ExtensionOptions o;
  o.runtime.enabled = true;
  o.runtime.calibration_txns = 5;
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  Random rng(6);
  {
    Ext warmed(m, o);
    Ext::ThreadState ts;
    commit_fresh(warmed, txn, ts, rng, 10);  // 5 untimed + 5 timed: calibrated in the warm-up
    warmed.on_measure_start(now_ns());
    commit_fresh(warmed, txn, ts, rng, 5);
    EXPECT_EQ(warmed.calibration().uncalibrated_measured_commits(), 0u);
    EXPECT_NO_THROW(warmed.check_measurement(5));
  }
  Ext late(m, o);
  Ext::ThreadState ts;
  commit_fresh(late, txn, ts, rng, 4);  // still calibrating when the interval begins
  late.on_measure_start(now_ns());
  commit_fresh(late, txn, ts, rng, 6);  // its 5th-10th: measured with no delay, the last contributes t_T
  commit_fresh(late, txn, ts, rng, 2);  // with the bound
  EXPECT_GT(late.calibration().t_ns(), 0u);
  EXPECT_EQ(late.calibration().uncalibrated_measured_commits(), 6u);
  try {
    late.check_measurement(8);
    FAIL() << "a run with 6 undelayed measured commits was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "runtime_skew_calibration_txns");
    EXPECT_NE(std::string(e.what()).find("6 of the 8 measured commits"), std::string::npos) << e.what();
  }
}

TEST(ExtendedTest, IoDelayHoldsTheTransactionBeforeCommit) {
  Micro m(micro_options());
  m.load(1);
  ExtensionOptions o;
  o.io.l_io = 1;
  o.io.theta = 0;            // ranks 0 and 1 equally likely
  o.io.min_cycles = 2000000;  // ~1 ms: measurable
  Ext e(m, o);
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  Ext::ThreadState ts;
  Random rng(6);
  Ext::Request r;
  do e.generate(rng, 0, r);
  while (r.io_rank != 1);
  txn.begin();
  const uint64_t t0 = now_ns();
  ASSERT_EQ(e.run(txn, r), RC::kOk);
  EXPECT_GT(now_ns() - t0, 100000u);  // the delay happens inside run(), before commit
  ASSERT_EQ(txn.commit(), RC::kOk);
}

// Delays that would keep a transaction, and so the run, far past --duration
// are refused naming the flag (issue 30: --runtime_skew_t_us=1e9 ran for days).
TEST(ExtendedTest, RefusesDelaysLongerThanASecond) {
  Micro m(micro_options());
  ExtensionOptions o;
  o.runtime.enabled = true;
  o.runtime.p = 48, o.runtime.min_t = 0.5;
  o.runtime.t_us = 41666;  // 48 x 0.5 x 41666 us < 1 s
  EXPECT_NO_THROW(Ext(m, o));
  o.runtime.t_us = 41667;
  try {
    Ext e(m, o);
    FAIL() << "a 1 s+ runtime bound accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "runtime_skew_t_us");
  }
  o.runtime.t_us = 0;  // measured
  o.io.l_io = 100000, o.io.min_cycles = 20000;
  EXPECT_NO_THROW(Ext(m, o));
  o.io.min_cycles = 20001;
  try {
    Ext e(m, o);
    FAIL() << "a 2e9+ cycle I/O delay accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "io_latency_min_cycles");
  }
}

}  // namespace
}  // namespace ccb
