// What the protocols that lock their predicted access set share (the
// acquisition, over every registered protocol with that property), and the
// engine hooks the locking protocols use. Each protocol's own behaviour is in
// its folder (engine/cc/<name>/<name>_test.cpp); the interleavings every
// protocol must handle are tests/engine/protocol_test.cpp's.
#include <gtest/gtest.h>

#include <type_traits>

#include "engine/cc/bcc/bcc.h"
#include "tests/cc/cc_test_util.h"
#include "tests/support/forwarded_ycsb.h"
#include "tests/support/protocols.h"

namespace ccb {
namespace {

using cc_test::Counters;
using cc_test::increment;
using cc_test::read;
using test_support::predict;

constexpr uint64_t A = 0, B = 1;

// ---- Locking the predicted access set -------------------------------------------

template <class CC>
class PredictedLockingTest : public ::testing::Test {
 protected:
  PredictedLockingTest() {
    for (auto* t : {&t1_, &t2_, &t3_}) t->register_table(c_.table);
  }
  CC cc_;
  Counters<CC> c_{4};
  Txn<CC> t1_{cc_, 0, nullptr}, t2_{cc_, 1, nullptr}, t3_{cc_, 2, nullptr};
};
// Protocols that lock the predicted access set up front with the workers' own
// row locks (acquire_all, no lock service, no partitions): LockSorted and
// PreNoWait. An access the prediction missed then follows NoWait's rule.
template <class CC>
struct LocksPredictedRows
    : std::bool_constant<HasAcquireAll<CC> && !HasLockService<CC> && !test_support::NeedsPartitions<CC>> {};
TYPED_TEST_SUITE(PredictedLockingTest, test_support::ProtocolsWhere<LocksPredictedRows>);

// The predicted set is locked before the procedure runs, which then reuses
// those accesses.
TYPED_TEST(PredictedLockingTest, LocksThePredictedSetBeforeExecution) {
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  t1.begin();
  ASSERT_EQ(this->cc_.acquire_all(t1, predict({B}, {A})), RC::kOk);
  EXPECT_EQ(t1.accesses().size(), 2u);
  t2.begin();
  EXPECT_FALSE(increment(t2, this->c_.table, A));  // exclusively held
  EXPECT_EQ(t2.failure(), RC::kLockConflict);
  EXPECT_TRUE(read(t2, this->c_.table, B));  // shared
  t2.abort();
  ASSERT_TRUE(increment(t1, this->c_.table, A));
  ASSERT_TRUE(read(t1, this->c_.table, B));
  EXPECT_EQ(t1.accesses().size(), 2u);
  EXPECT_EQ(t1.commit(), RC::kOk);
  EXPECT_EQ(this->c_.value(A), 1u);
}
// ---- Executor hooks ---------------------------------------------------------------

EngineConfig small_config(int threads) {
  EngineConfig cfg;
  cfg.threads = threads;
  cfg.duration_s = 0.01;
  cfg.txn_buffer = 16;
  return cfg;
}

// YCSB with everything but table_by_id: a workload whose keys a protocol that
// locks the predicted access set could not resolve.
template <class CC>
using YcsbWithoutTableRegistry = test_support::ForwardedYcsb<CC>;

TEST(ExecutorHooks, PredictedLockingNeedsTheWorkloadTables) {
  YcsbOptions opt = cc_test::contended_ycsb();
  YcsbWorkload<LockSorted> ycsb(opt);
  ycsb.load(1);
  YcsbWithoutTableRegistry<LockSorted> w{ycsb};
  LockSorted cc;
  const EngineConfig cfg = small_config(1);
  OnlineExecutor<LockSorted, YcsbWithoutTableRegistry<LockSorted>> exec(cfg, cc, w);
  try {
    exec.run();
    FAIL() << "expected a configuration error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "cc");
  }
}

TEST(ExecutorHooks, ThreadLimitOfTheProtocol) {
  YcsbOptions opt = cc_test::contended_ycsb();
  YcsbWorkload<WaitDie> w(opt);
  w.load(1);
  WaitDie cc;
  const EngineConfig cfg = small_config(WaitDie::kMaxThreads + 1);
  OnlineExecutor<WaitDie, YcsbWorkload<WaitDie>> exec(cfg, cc, w);
  try {
    exec.run();
    FAIL() << "expected a configuration error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.flag, "threads");
  }
}

// Read-only requests reach the protocol: under BCC they run as snapshot
// transactions, counted in the protocol statistics.
TEST(ExecutorHooks, ReadOnlyRequestsRunAsSnapshots) {
  cc_test::BankWorkload<Bcc> w(16, 0.5);
  w.load(1);
  Bcc cc;
  EngineConfig cfg = small_config(2);
  cfg.duration_s = 0.05;
  cfg.txn_buffer = 64;
  // Short runs, repeated until a read-only request has committed (at most
  // 40 x 50 ms): on a loaded machine one 50 ms run may commit none, which
  // says nothing about the protocol.
  uint64_t read_only_commits = 0;
  for (int round = 0; round < 40 && read_only_commits == 0; ++round) {
    OnlineExecutor<Bcc, cc_test::BankWorkload<Bcc>> exec(cfg, cc, w);
    read_only_commits += exec.run().stats.per_type[1].commits;
  }
  EXPECT_GT(read_only_commits, 0u);
  EXPECT_GT(cc.total_stats().snapshot_txns, 0u);
  EXPECT_EQ(w.bad_audits.load(), 0u);
}

}  // namespace
}  // namespace ccb
