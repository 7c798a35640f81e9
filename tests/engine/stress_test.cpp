// Multi-threaded stress of every serializable protocol, self-checking: YCSB at
// theta 0.99 on a small table with more threads than cores, every write an
// increment of the row's counter. After the run the counters must add up to
// the committed increments (no lost update), the recorded history must be
// serializable, and the protocol must have aborted only for its conflict rule's
// reasons (tests/support/protocols.h). Protocol-specific stress tests are in
// tests/cc/stress_test.cpp.
#include <gtest/gtest.h>

#include "tests/engine/ycsb_run.h"
#include "tests/support/protocols.h"

namespace ccb {
namespace {

template <class CC>
class StressTest : public ::testing::Test {};
TYPED_TEST_SUITE(StressTest, test_support::SerializableProtocols);

TYPED_TEST(StressTest, HighContentionYcsbLosesNoUpdateAndIsSerializable) {
  using CC = TypeParam;
  const auto r = testing_support::run_contended_ycsb<CC>(0.4, 7);
  EXPECT_GT(r.commits, test_support::kMinStressCommits<CC>);
  EXPECT_TRUE(r.invariants_ok) << r.invariant_detail;
  EXPECT_GE(r.recorded_txns, r.commits);  // the history also holds the warm-up
  EXPECT_TRUE(r.check.serializable) << r.check.violation.message;
  test_support::expect_only_conflict_aborts<CC>(r.aborts_by_reason);
}

}  // namespace
}  // namespace ccb
