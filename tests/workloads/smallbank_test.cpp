// SmallBank: transaction semantics one by one, money conservation, generator
// and option checks.
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <map>

#include "engine/cc/nowait/nowait.h"
#include "tests/workloads/test_util.h"
#include "workloads/smallbank/smallbank.h"

DECLARE_uint64(smallbank_customers);
DECLARE_string(smallbank_mix);
DECLARE_double(theta);

namespace ccb {
namespace {

using CC = NoWait;
using W = SmallBankWorkload<CC>;
using ccb::testing::expect_all_hold;
using ccb::testing::run_once;

class SmallBankTest : public ::testing::Test {
 protected:
  SmallBankTest() : w_(options()), txn_(cc_, 0, nullptr) { w_.load(2); }
  static SmallBankOptions options() {
    SmallBankOptions o;
    o.customers = 1000;
    o.key_skew.theta = 0.5;
    return o;
  }
  int64_t savings(uint32_t c) { return load_field<int64_t>(w_.savings().lookup(c)->data() + kVersionBytes, 0); }
  int64_t checking(uint32_t c) { return load_field<int64_t>(w_.checking().lookup(c)->data() + kVersionBytes, 0); }
  RC run(SmallBankTxn t, uint32_t c1, uint32_t c2 = 0, int32_t amount = 0) {
    SmallBankRequest r;
    r.type = static_cast<uint32_t>(t);
    r.c1 = c1;
    r.c2 = c2;
    r.amount = amount;
    return run_once<CC>(w_, txn_, r, ts_);
  }
  std::vector<InvariantResult> invariants() { return w_.check_invariants({ts_}); }

  CC cc_;
  W w_;
  Txn<CC> txn_;
  W::ThreadState ts_;
};

TEST_F(SmallBankTest, LoadedBalancesAreInRangeAndConserved) {
  for (uint32_t c = 0; c < 1000; ++c) {
    EXPECT_GE(savings(c), SmallBankGenerator::kMinBalance);
    EXPECT_LE(savings(c), SmallBankGenerator::kMaxBalance);
    EXPECT_EQ(checking(c), SmallBankGenerator::initial_balance(c, 1));
  }
  expect_all_hold(invariants());
  EXPECT_EQ(w_.table_by_id(W::kAccountsId), &w_.accounts());
  EXPECT_EQ(w_.table_by_id(W::kSavingsId), &w_.savings());
  EXPECT_EQ(w_.table_by_id(W::kCheckingId), &w_.checking());
  EXPECT_EQ(w_.table_by_id(0), nullptr);
  SmallBankRequest r;
  r.type = static_cast<uint32_t>(SmallBankTxn::kBalance);
  EXPECT_TRUE(w_.read_only(r));
  r.type = static_cast<uint32_t>(SmallBankTxn::kWriteCheck);
  EXPECT_FALSE(w_.read_only(r));
}

TEST_F(SmallBankTest, EachTransactionMovesTheRightMoney) {
  const int64_t s1 = savings(1), k1 = checking(1), k2 = checking(2);

  EXPECT_EQ(run(SmallBankTxn::kBalance, 1), RC::kOk);
  EXPECT_EQ(ts_.net_money, 0);

  EXPECT_EQ(run(SmallBankTxn::kDepositChecking, 1, 0, 50), RC::kOk);
  EXPECT_EQ(checking(1), k1 + 50);
  EXPECT_EQ(ts_.net_money, 50);

  EXPECT_EQ(run(SmallBankTxn::kTransactSavings, 1, 0, -30), RC::kOk);
  EXPECT_EQ(savings(1), s1 - 30);
  EXPECT_EQ(ts_.net_money, 20);

  EXPECT_EQ(run(SmallBankTxn::kSendPayment, 1, 2, 40), RC::kOk);
  EXPECT_EQ(checking(1), k1 + 50 - 40);
  EXPECT_EQ(checking(2), k2 + 40);
  EXPECT_EQ(ts_.net_money, 20);

  EXPECT_EQ(run(SmallBankTxn::kWriteCheck, 2, 0, 7), RC::kOk);  // enough money: no penalty
  EXPECT_EQ(checking(2), k2 + 40 - 7);
  EXPECT_EQ(ts_.net_money, 13);

  // Amalgamate empties customer 1 into customer 2's checking.
  const int64_t all1 = savings(1) + checking(1), before2 = checking(2);
  EXPECT_EQ(run(SmallBankTxn::kAmalgamate, 1, 2), RC::kOk);
  EXPECT_EQ(savings(1), 0);
  EXPECT_EQ(checking(1), 0);
  EXPECT_EQ(checking(2), before2 + all1);
  EXPECT_EQ(ts_.net_money, 13);

  // Customer 1 is broke now: payments and savings withdrawals roll back ...
  EXPECT_EQ(run(SmallBankTxn::kSendPayment, 1, 2, 1), RC::kUser);
  EXPECT_EQ(run(SmallBankTxn::kTransactSavings, 1, 0, -1), RC::kUser);
  EXPECT_EQ(checking(2), before2 + all1);
  // ... and a check overdraws with a penalty of one unit, recorded as such.
  EXPECT_EQ(run(SmallBankTxn::kWriteCheck, 1, 0, 10), RC::kOk);
  EXPECT_EQ(checking(1), -11);
  EXPECT_EQ(ts_.net_money, 13 - 11);

  expect_all_hold(invariants());
}

TEST_F(SmallBankTest, AlteredBalanceBreaksTheInvariant) {
  EXPECT_EQ(run(SmallBankTxn::kDepositChecking, 3, 0, 5), RC::kOk);
  expect_all_hold(invariants());
  uint8_t* p = w_.savings().lookup(9)->data() + kVersionBytes;
  store_field<int64_t>(p, 0, load_field<int64_t>(p, 0) + 1);  // money from nowhere
  EXPECT_FALSE(ccb::testing::all_hold(invariants()));
}

TEST_F(SmallBankTest, CommitCountsOnlyTheCommittedAttemptsEffect) {
  // A rolled-back attempt leaves its scratch behind; the next committed one
  // must overwrite it before on_commit reads it.
  const int64_t k5 = checking(5), s5 = savings(5);
  EXPECT_EQ(run(SmallBankTxn::kWriteCheck, 5, 0, 3), RC::kOk);
  EXPECT_EQ(run(SmallBankTxn::kTransactSavings, 5, 0, -1000000), RC::kUser);
  EXPECT_EQ(ts_.net_money, -3);
  EXPECT_EQ(run(SmallBankTxn::kBalance, 5), RC::kOk);
  EXPECT_EQ(ts_.net_money, -3);
  EXPECT_EQ(checking(5), k5 - 3);
  EXPECT_EQ(savings(5), s5);
  expect_all_hold(invariants());
}

TEST_F(SmallBankTest, DescribePredictsTheAccessedRows) {
  Random rng(3);
  SmallBankRequest r;
  for (int i = 0; i < 2000; ++i) {
    w_.generate(rng, 0, r);
    ccb::testing::expect_describe_matches<CC>(w_, txn_, r, ts_);
  }
  expect_all_hold(invariants());
}

TEST(SmallBankGenerator, DeterministicWithinRangesAndSkewed) {
  SmallBankOptions o;
  o.customers = 500;
  o.key_skew.theta = 0.99;
  SmallBankGenerator w(o);
  w.prepare();
  Random a(11), b(11);
  std::map<uint32_t, int> types, customers;
  for (int i = 0; i < 20000; ++i) {
    SmallBankRequest x, y;
    w.generate(a, 0, x);
    w.generate(b, 0, y);
    ASSERT_EQ(std::memcmp(&x, &y, sizeof x), 0);
    ++types[x.type];
    ++customers[x.c1];
    ASSERT_LT(x.c1, 500u);
    if (x.two_customers()) {
      ASSERT_NE(x.c1, x.c2);
      ASSERT_LT(x.c2, 500u);
    }
    switch (x.txn()) {
      case SmallBankTxn::kTransactSavings:
        ASSERT_TRUE(x.amount != 0 && x.amount >= -100 && x.amount <= 100);
        break;
      case SmallBankTxn::kDepositChecking:
      case SmallBankTxn::kWriteCheck:
      case SmallBankTxn::kSendPayment:
        ASSERT_TRUE(x.amount >= 1 && x.amount <= 100);
        break;
      default:
        ASSERT_EQ(x.amount, 0);
    }
  }
  ASSERT_EQ(types.size(), kSmallBankTxnTypes);  // uniform mix: about 1/6 each
  for (const auto& [t, n] : types) EXPECT_NEAR(n, 20000 / 6, 400) << t;
  EXPECT_GT(customers[0], customers[1]);  // Zipf: customer 0 is the hottest
  EXPECT_GT(customers[1], customers[100]);
}

TEST(SmallBankGenerator, MixWeightsSelectTypes) {
  SmallBankOptions o;
  o.customers = 100;
  o.mix = SmallBankOptions::parse_mix("0,0,0,1,0,3", "smallbank_mix");
  SmallBankGenerator w(o);
  w.prepare();
  Random rng(5);
  int send = 0;
  for (int i = 0; i < 4000; ++i) {
    SmallBankRequest r;
    w.generate(rng, 0, r);
    ASSERT_TRUE(r.txn() == SmallBankTxn::kAmalgamate || r.txn() == SmallBankTxn::kSendPayment);
    send += r.txn() == SmallBankTxn::kSendPayment;
  }
  EXPECT_NEAR(send, 3000, 150);
}

TEST(SmallBankOptionsTest, FlagsAreValidated) {
  gflags::FlagSaver restore;
  FLAGS_smallbank_customers = 1234;
  FLAGS_smallbank_mix = "15,15,15,15,15,25";
  FLAGS_theta = 0.9;
  const SmallBankOptions o = SmallBankOptions::from_flags();
  EXPECT_EQ(o.customers, 1234u);
  EXPECT_EQ(o.mix_string(), "15,15,15,15,15,25");
  EXPECT_EQ(o.key_skew.theta, 0.9);
  for (const char* bad : {"1,1,1,1,1", "1,1,1,1,1,1,1", "0,0,0,0,0,0", "1,-1,1,1,1,1", "a,1,1,1,1,1", "1,,1,1,1,1"}) {
    FLAGS_smallbank_mix = bad;
    ccb::testing::expect_config_error([] { SmallBankOptions::from_flags(); }, "smallbank_mix");
  }
  FLAGS_smallbank_mix = "1,1,1,1,1,1";
  FLAGS_smallbank_customers = 1;
  ccb::testing::expect_config_error([] { SmallBankOptions::from_flags(); }, "smallbank_customers");
  FLAGS_smallbank_customers = 100;
  FLAGS_theta = -1;
  ccb::testing::expect_config_error([] { SmallBankOptions::from_flags(); }, "theta");
}

}  // namespace
}  // namespace ccb
