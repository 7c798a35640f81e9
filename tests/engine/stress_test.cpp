// Multi-threaded stress, self-checking: YCSB at theta 0.99 on a small table
// with more threads than cores, every write an increment of the row's counter.
// After the run the counters must add up to the committed increments (no lost
// update) and the recorded history must be serializable.
#include <gtest/gtest.h>

#include "engine/cc/nowait.h"
#include "engine/cc/occ.h"
#include "engine/cc/silo.h"
#include "engine/cc/tictoc.h"
#include "tests/engine/ycsb_run.h"

namespace ccb {
namespace {

template <class CC>
class StressTest : public ::testing::Test {};
using Protocols = ::testing::Types<NoWait, Occ, Silo, TicToc>;
TYPED_TEST_SUITE(StressTest, Protocols);

TYPED_TEST(StressTest, HighContentionYcsbLosesNoUpdateAndIsSerializable) {
  const auto r = testing_support::run_contended_ycsb<TypeParam>(0.4, 7);
  EXPECT_GT(r.commits, 100u);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_GE(r.recorded_txns, r.commits);  // the history also holds the warm-up
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
}

}  // namespace
}  // namespace ccb
