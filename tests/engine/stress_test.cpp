// Multi-threaded stress, self-checking: YCSB at theta 0.99 on a small table
// with more threads than cores, every write an increment of the row's counter.
// After the run the counters must add up to the committed increments (no lost
// update) and the recorded history must be serializable.
#include <gtest/gtest.h>

#include "engine/cc/nowait.h"
#include "engine/cc/occ.h"
#include "engine/cc/silo.h"
#include "engine/cc/tictoc.h"
#include "engine/exec/online_executor.h"
#include "engine/verify/checker.h"
#include "workloads/ycsb/ycsb.h"

namespace ccb {
namespace {

template <class CC>
class StressTest : public ::testing::Test {};
using Protocols = ::testing::Types<NoWait, Occ, Silo, TicToc>;
TYPED_TEST_SUITE(StressTest, Protocols);

TYPED_TEST(StressTest, HighContentionYcsbLosesNoUpdateAndIsSerializable) {
  using CC = TypeParam;
  EngineConfig cfg;
  cfg.cc = CC::kName;
  cfg.workload = "ycsb";
  cfg.threads = 4;
  cfg.warmup_s = 0.05;
  cfg.duration_s = 0.4;
  cfg.seed = 7;
  cfg.verify = true;
  cfg.txn_buffer = 512;
  cfg.backoff_max_us = 20;
  cfg.load_threads = 2;
  YcsbOptions opt;
  opt.table_size = 256;
  opt.payload_size = 16;
  opt.req_per_txn = 8;
  opt.read_ratio = 0.5;
  opt.theta = 0.99;
  YcsbWorkload<CC> workload(opt);
  workload.load(cfg.load_threads);
  CC cc;
  OnlineExecutor<CC, YcsbWorkload<CC>> exec(cfg, cc, workload);
  RunOutcome<YcsbWorkload<CC>> out = exec.run();

  EXPECT_GT(out.stats.commits, 100u);
  const auto invariants = workload.check_invariants(out.workload_states);
  ASSERT_EQ(invariants.size(), 1u);
  EXPECT_TRUE(invariants[0].ok) << invariants[0].detail;

  verify::History h = verify::HistoryLog::merge(out.history_logs);
  EXPECT_GT(h.txns.size(), out.stats.commits / 2);
  const verify::CheckResult r = verify::check_serializable(h);
  EXPECT_TRUE(r.serializable) << r.violation.message;
}

}  // namespace
}  // namespace ccb
