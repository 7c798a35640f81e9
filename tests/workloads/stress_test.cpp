// Multi-threaded, self-checking stress of the workloads at high contention: 4
// workers (more than the cores of a small CI machine) for about 0.3 s under
// one serializable protocol per conflict rule (tests/support/protocols.h,
// OnePerConflictRule; every protocol runs every workload in the verify tier),
// with the history recorded. The
// workload's invariants must hold (no lost update, no money created) and the
// history must be serializable.
#include <gtest/gtest.h>

#include "tests/support/protocols.h"
#include "tests/workloads/test_util.h"
#include "workloads/extensions/extended.h"
#include "workloads/hot/hot.h"
#include "workloads/micro/micro.h"
#include "workloads/smallbank/smallbank.h"
#include "workloads/tpcw/tpcw.h"

namespace ccb {
namespace {

constexpr int kThreads = 4;
constexpr double kSeconds = 0.3;

SmallBankOptions contended_smallbank() {
  SmallBankOptions o;
  o.customers = 64;  // a few hot customers
  o.key_skew.theta = 0.99;
  return o;
}

template <class CC>
class WorkloadStressTest : public ::testing::Test {};
TYPED_TEST_SUITE(WorkloadStressTest, test_support::OnePerConflictRule);

TYPED_TEST(WorkloadStressTest, SmallBankConservesMoney) {
  SmallBankWorkload<TypeParam> w(contended_smallbank());
  w.load(2);
  testing::stress_and_verify<TypeParam>(w, kThreads, kSeconds);
}

TYPED_TEST(WorkloadStressTest, TpcwConservesStockAndCarts) {
  TpcwOptions o;
  o.items = 64;
  o.hot_prob = 1.0;      // BCC Fig. 5: every DoCart reads the hot item
  o.order_threads = 2;   // two OrderProcess workers: write-write contention too
  TpcwWorkload<TypeParam> w(o);
  w.load(2);
  testing::stress_and_verify<TypeParam>(w, kThreads, kSeconds);
}

TYPED_TEST(WorkloadStressTest, HotWithMovingHotRecordsLosesNoUpdate) {
  HotOptions o;
  o.table_size = 4000;
  o.hot_records = 4;
  o.partitions = 4;
  o.shift_s = 0.05;  // the hot set moves several times during the run
  HotWorkload<TypeParam> w(o);
  w.load(2);
  testing::stress_and_verify<TypeParam>(w, kThreads, kSeconds);
  EXPECT_GE(w.epoch(), 3u);
}

TYPED_TEST(WorkloadStressTest, MicroLosesNoUpdate) {
  MicroOptions o;
  o.objects = 200;
  o.key_skew.theta = 0.99;
  MicroWorkload<TypeParam> w(o);
  w.load(2);
  testing::stress_and_verify<TypeParam>(w, kThreads, kSeconds);
}

TYPED_TEST(WorkloadStressTest, ExtendedSmallBankStaysCorrectWithDelaysBeforeCommit) {
  SmallBankWorkload<TypeParam> w(contended_smallbank());
  w.load(2);
  ExtensionOptions ext;
  ext.runtime.enabled = true;
  ext.runtime.p = 8;
  ext.runtime.calibration_txns = 200;
  ext.io.l_io = 4;
  Extended<SmallBankWorkload<TypeParam>> e(w, ext);
  testing::stress_and_verify<TypeParam>(e, kThreads, kSeconds);
  EXPECT_GT(e.calibration().t_ns(), 0u);
}

}  // namespace
}  // namespace ccb
