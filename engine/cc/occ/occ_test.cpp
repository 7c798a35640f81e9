// OCC's --occ_read_abort (DBx1000's Row_occ::access: a read of a row written
// since the transaction started aborts at once). Its --occ_validation choices,
// shared with Silo and TicToc, are tests/cc/bounded_validation_test.cpp.
#include <gtest/gtest.h>

#include "engine/cc/occ/occ.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr uint64_t A = 0, B = 1;

class OccTest : public ::testing::Test {
 protected:
  Occ cc_;
  Counters<Occ> c_{4};
  Txn<Occ> t_{cc_, 0, nullptr}, other_{cc_, 1, nullptr};
};

TEST(OccOptionsTest, ReadAbortIsOffByDefault) { EXPECT_FALSE(OccOptions{}.read_abort); }

// --occ_read_abort: a read of a row written since the start aborts at once
// (DBx1000's Row_occ::access); off, the read succeeds and the commit fails.
TEST_F(OccTest, ReadAbortAbortsAtTheReadOfAStaleRow) {
  cc_.configure(OccOptions{.read_abort = true});
  t_.begin();
  other_.begin();
  ASSERT_TRUE(increment(other_, c_.table, A));
  ASSERT_EQ(other_.commit(), RC::kOk);
  EXPECT_TRUE(read(t_, c_.table, B));  // unchanged since the start
  EXPECT_FALSE(read(t_, c_.table, A));
  EXPECT_EQ(t_.failure(), RC::kValidation);
  t_.abort();
}

TEST_F(OccTest, WithoutReadAbortTheStaleReadFailsAtCommit) {
  t_.begin();
  other_.begin();
  ASSERT_TRUE(increment(other_, c_.table, A));
  ASSERT_EQ(other_.commit(), RC::kOk);
  EXPECT_TRUE(read(t_, c_.table, A));
  EXPECT_EQ(t_.commit(), RC::kValidation);
  t_.abort();
}

}  // namespace
}  // namespace ccb
