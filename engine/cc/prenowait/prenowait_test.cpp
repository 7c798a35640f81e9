// PreNoWait's defining behaviour: a conflict in its up-front acquisition of
// the predicted access set aborts the attempt and releases what it took. The
// acquisition every protocol that locks the predicted set shares is
// tests/cc/lock_test.cpp's.
#include <gtest/gtest.h>

#include "engine/cc/prenowait/prenowait.h"
#include "tests/cc/cc_test_util.h"
#include "tests/support/protocols.h"

namespace ccb {
namespace {

using cc_test::Counters;
using cc_test::increment;
using test_support::predict;

constexpr uint64_t A = 0, B = 1, C = 2;

TEST(PreNoWaitTest, ConflictInTheAcquisitionAbortsAndReleases) {
  PreNoWait cc;
  Counters<PreNoWait> c(4);
  Txn<PreNoWait> t1(cc, 0, nullptr), t2(cc, 1, nullptr), t3(cc, 2, nullptr);
  for (auto* t : {&t1, &t2, &t3}) t->register_table(c.table);
  t1.begin();
  ASSERT_EQ(cc.acquire_all(t1, predict({}, {B})), RC::kOk);
  t2.begin();
  EXPECT_EQ(cc.acquire_all(t2, predict({A}, {B, C})), RC::kLockConflict);  // A locked, then B refused
  t2.abort();
  t3.begin();
  ASSERT_TRUE(increment(t3, c.table, A));  // t2's locks are gone
  ASSERT_TRUE(increment(t3, c.table, C));
  EXPECT_EQ(t3.commit(), RC::kOk);
  EXPECT_EQ(t1.commit(), RC::kOk);
}

}  // namespace
}  // namespace ccb
