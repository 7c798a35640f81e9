// Multi-threaded, self-checking TPC-C under each serializable protocol: more
// workers than cores on one warehouse (every Payment writes the same
// WAREHOUSE row, every NewOrder of a district the same DISTRICT row), the
// standard mix so all five transactions interleave, and a two-warehouse run
// with many cross-warehouse transactions. Afterwards the consistency
// conditions must hold and the recorded history must be serializable.
#include <gtest/gtest.h>

#include "engine/cc/nowait.h"
#include "engine/cc/occ.h"
#include "engine/cc/silo.h"
#include "engine/cc/tictoc.h"
#include "engine/exec/online_executor.h"
#include "engine/verify/checker.h"
#include "tests/tpcc/tpcc_test_util.h"

namespace ccb {
namespace {

using namespace tpcc;
using namespace tpcc::testing;

template <class CC>
class TpccStressTest : public ::testing::Test {
 protected:
  static void run_and_check(const TpccOptions& opt, double seconds) {
    EngineConfig cfg;
    cfg.cc = CC::kName;
    cfg.workload = "tpcc";
    cfg.threads = 4;
    cfg.warmup_s = 0.05;
    cfg.duration_s = seconds;
    cfg.seed = 11;
    cfg.verify = true;
    cfg.txn_buffer = 1024;
    cfg.backoff_max_us = 20;
    cfg.load_threads = 2;
    TpccWorkload<CC> workload(opt);
    workload.load(cfg.load_threads);
    CC cc;
    OnlineExecutor<CC, TpccWorkload<CC>> exec(cfg, cc, workload);
    RunOutcome<TpccWorkload<CC>> out = exec.run();

    EXPECT_GT(out.stats.commits, 100u);
    for (uint32_t t = 0; t < kTxnTypes; ++t) {
      if (opt.mix_pct[t] > 0) {
        EXPECT_GT(out.stats.per_type[t].commits, 0u) << kTxnTypeNames[t];
      }
    }
    expect_all_hold(workload.check_invariants(out.workload_states));

    verify::History h = verify::HistoryLog::merge(out.history_logs);
    EXPECT_GE(h.txns.size(), out.stats.commits);
    const verify::CheckResult r = verify::check_serializable(h);
    EXPECT_TRUE(r.serializable) << r.violation.message;
  }
};
using Protocols = ::testing::Types<NoWait, Occ, Silo, TicToc>;
TYPED_TEST_SUITE(TpccStressTest, Protocols);

TYPED_TEST(TpccStressTest, StandardMixOnOneWarehouseKeepsConsistencyAndSerializability) {
  TpccOptions o = small_options(1);
  this->run_and_check(o, 0.5);
}

TYPED_TEST(TpccStressTest, CrossWarehouseNewOrderPaymentKeepsConsistencyAndSerializability) {
  TpccOptions o = small_options(2);
  o.mix = "neworder_payment";
  o.mix_pct = {50, 50, 0, 0, 0};
  o.cross_pct = 50;
  this->run_and_check(o, 0.3);
}

}  // namespace
}  // namespace ccb
