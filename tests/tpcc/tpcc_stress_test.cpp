// Multi-threaded, self-checking TPC-C under one serializable protocol per
// conflict rule (tests/support/protocols.h, OnePerConflictRule; every
// protocol runs TPC-C in the verify tier): more workers than cores on one warehouse (every Payment writes the same
// WAREHOUSE row, every NewOrder of a district the same DISTRICT row), the
// standard mix so all five transactions interleave, and a two-warehouse run
// with many cross-warehouse transactions. Afterwards the consistency
// conditions must hold and the recorded history must be serializable.
#include <gtest/gtest.h>

#include "tests/support/protocols.h"
#include "tests/support/verified_run.h"
#include "tests/tpcc/tpcc_test_util.h"

namespace ccb {
namespace {

using namespace tpcc;
using namespace tpcc::testing;

template <class CC>
class TpccStressTest : public ::testing::Test {
 protected:
  static void run_and_check(const TpccOptions& opt, double seconds) {
    TpccWorkload<CC> workload(opt);
    workload.load(2);
    CC cc;
    const auto r = test_support::run_verified(cc, workload, {.threads = 4, .seconds = seconds, .seed = 11, .txn_buffer = 1024});
    EXPECT_GT(r.commits, 100u);
    for (uint32_t t = 0; t < kTxnTypes; ++t) {
      if (opt.mix_pct[t] > 0) {
        EXPECT_GT(r.commits_by_type[t], 0u) << kTxnTypeNames[t];
      }
    }
    EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
    EXPECT_GE(r.recorded_txns, r.commits);
    EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  }
};
TYPED_TEST_SUITE(TpccStressTest, test_support::OnePerConflictRule);

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
