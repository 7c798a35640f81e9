// TsDEFER on TSKD's worked example (Examples 2 and 5, §4-§5) and the rule's
// knobs, with deterministic seeds.
#include "engine/exec/tsdefer.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/cc/occ/occ.h"
#include "engine/exec/online_executor.h"
#include "tests/exec/probe_workload.h"

namespace ccb {
namespace {

// Example 1's items x1..x6 (one table).
constexpr GlobalKey x(int i) { return make_global_key(0, static_cast<uint64_t>(i)); }

TxnDesc writes(std::vector<GlobalKey> ws) {
  TxnDesc d;
  d.write_set = std::move(ws);
  return d;
}

std::vector<TsDeferSet> sets_of(const std::vector<TxnDesc>& descs) {
  Random rng(1);
  std::vector<TsDeferSet> s;
  for (const auto& d : descs) s.push_back(TsDeferSet::from_desc(d, 1.0, rng));
  return s;
}

// Example 2's buffers after T1 and T4 committed: thread 0 = <T1, T2, T3> with
// headp at T2, thread 1 = <T4, T5> with headp at T5 (ids are queue indices).
// Every transaction writes what it reads (Example 1), so all sets are writes.
TsDefer example_5(uint32_t lookups, double deferp = 1.0, uint32_t threshold = 1) {
  TsDeferOptions opt;
  opt.lookups = lookups;
  opt.deferp = deferp;
  opt.threshold = threshold;
  TsDefer d(opt, 2);
  d.assign(0, sets_of({writes({x(2), x(3), x(4)}), writes({x(1), x(2)}), writes({x(2), x(3)})}), TsDefer::Replay::kNo);
  d.assign(1, sets_of({writes({x(5), x(6)}), writes({x(1), x(5)})}), TsDefer::Replay::kNo);
  d.reg_pos(0);  // T1 committed
  d.reg_pos(1);  // T4 committed
  return d;
}

constexpr uint32_t kT2 = 1, kT3 = 2;

TEST(TsDeferExample5, OneLookupDefersT2WithProbabilityOneHalf) {
  // The one random choice is the index into T5's write set {x1, x5}: over
  // many seeds T2 is deferred (and T3 runs first) about half of the time.
  constexpr int kTrials = 4000;
  int deferred = 0;
  for (int seed = 0; seed < kTrials; ++seed) {
    TsDefer d = example_5(1);
    Random rng(seed_for(42, seed));
    const uint32_t ran = *d.next(0, rng);
    ASSERT_TRUE(ran == kT2 || ran == kT3);
    deferred += ran == kT3;
  }
  // Binomial(4000, 1/2): sd ~ 32; [1800, 2200] is > 6 sd wide on each side.
  EXPECT_GT(deferred, 1800);
  EXPECT_LT(deferred, 2200);
}

TEST(TsDeferExample5, OneLookupReturnsX1OrX5) {
  std::set<GlobalKey> seen;
  for (int seed = 0; seed < 64; ++seed) {
    TsDefer d = example_5(1);
    Random rng(seed);
    TsDefer::Round round;
    seen.insert(*d.lookup(0, rng, round));
  }
  EXPECT_EQ(seen, (std::set<GlobalKey>{x(1), x(5)}));
}

TEST(TsDeferExample5, TwoLookupsDeferT2ForCertain) {
  for (int seed = 0; seed < 1000; ++seed) {
    TsDefer d = example_5(2);
    Random rng(seed);
    ASSERT_EQ(*d.next(0, rng), kT3) << "seed " << seed;
    // Example 2: thread 1 runs T3 first; T2 waits at tailp.
    EXPECT_EQ(d.queue(0), (std::vector<uint32_t>{kT3, kT2}));
    EXPECT_EQ(d.stats(0).deferrals, 1u);
  }
}

TEST(TsDeferExample5, TwoLookupsInOneRoundSampleWithoutReplacement) {
  for (int seed = 0; seed < 100; ++seed) {
    TsDefer d = example_5(2);
    Random rng(seed);
    TsDefer::Round round;
    const GlobalKey a = *d.lookup(0, rng, round), b = *d.lookup(0, rng, round);
    EXPECT_EQ((std::set<GlobalKey>{a, b}), (std::set<GlobalKey>{x(1), x(5)}));
    EXPECT_FALSE(d.lookup(0, rng, round).has_value());  // T5's write set is exhausted in this round
  }
}

TEST(TsDeferRule, DeferpZeroNeverDefers) {
  for (int seed = 0; seed < 200; ++seed) {
    TsDefer d = example_5(2, /*deferp=*/0.0);
    Random rng(seed);
    EXPECT_EQ(*d.next(0, rng), kT2);
  }
}

TEST(TsDeferRule, ZeroLookupsDisableTsDefer) {
  TsDefer d = example_5(0);
  Random rng(3);
  EXPECT_EQ(*d.next(0, rng), kT2);
  EXPECT_EQ(d.stats(0).lookups, 0u);
  EXPECT_EQ(d.stats(0).candidates, 0u);
}

TEST(TsDeferRule, ThresholdCountsDistinctHits) {
  // T2 shares only x1 with T5: one hit, so threshold 2 never defers it,
  // however many lookups.
  for (int seed = 0; seed < 200; ++seed) {
    TsDefer d = example_5(4, 1.0, /*threshold=*/2);
    Random rng(seed);
    EXPECT_EQ(*d.next(0, rng), kT2);
  }
}

TEST(TsDeferRule, DeferpIsTheDeferralProbability) {
  constexpr int kTrials = 4000;
  int deferred = 0;
  for (int seed = 0; seed < kTrials; ++seed) {
    TsDefer d = example_5(2, 0.6);
    Random rng(seed_for(7, seed));
    deferred += *d.next(0, rng) == kT3;
  }
  EXPECT_GT(deferred, 2200);  // 0.6 * 4000 = 2400, sd ~ 31
  EXPECT_LT(deferred, 2600);
}

TEST(TsDeferQueue, DeferMovesTheHeadToTheTailAndRegPosAdvances) {
  TsDefer d(TsDeferOptions{}, 1);
  d.assign(0, sets_of({writes({x(1)}), writes({x(2)}), writes({x(3)}), writes({x(4)})}), TsDefer::Replay::kNo);
  EXPECT_EQ(d.queue(0), (std::vector<uint32_t>{0, 1, 2, 3}));
  d.defer(0);
  EXPECT_EQ(d.queue(0), (std::vector<uint32_t>{1, 2, 3, 0}));
  d.reg_pos(0);
  EXPECT_EQ(d.queue(0), (std::vector<uint32_t>{2, 3, 0}));
  d.defer(0);
  d.defer(0);
  EXPECT_EQ(d.queue(0), (std::vector<uint32_t>{0, 2, 3}));
  d.reg_pos(0);
  d.reg_pos(0);
  d.reg_pos(0);
  EXPECT_TRUE(d.queue(0).empty());
  Random rng(1);
  EXPECT_FALSE(d.next(0, rng).has_value());
}

TEST(TsDeferQueue, ReplayQueueAppendsTheCommittedTransaction) {
  TsDefer d(TsDeferOptions{}, 1);
  d.assign(0, sets_of({writes({x(1)}), writes({x(2)}), writes({x(3)})}), TsDefer::Replay::kYes);
  d.defer(0);       // <1, 2, 0>
  d.reg_pos(0);     // 1 committed: <2, 0, 1>
  EXPECT_EQ(d.queue(0), (std::vector<uint32_t>{2, 0, 1}));
  for (int i = 0; i < 100; ++i) d.reg_pos(0);  // wraps the ring many times
  EXPECT_EQ(d.queue(0).size(), 3u);
}

TEST(TsDeferQueue, ThreadsWhoseHeadsConflictDoNotDeferForever) {
  // deferp = 1 and every transaction writes x1: each candidate always hits.
  TsDeferOptions opt;
  opt.lookups = 1;
  opt.deferp = 1.0;
  TsDefer d(opt, 2);
  for (int t = 0; t < 2; ++t)
    d.assign(t, sets_of({writes({x(1)}), writes({x(1)}), writes({x(1)})}), TsDefer::Replay::kNo);
  Random rng(5);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(d.next(0, rng).has_value());
    d.reg_pos(0);
  }
  EXPECT_FALSE(d.next(0, rng).has_value());
  // 3 queued: 2 deferrals, then a forced run; 2: 1 deferral, forced; 1: runs.
  EXPECT_EQ(d.stats(0).deferrals, 3u);
  EXPECT_EQ(d.stats(0).forced_runs, 2u);
}

TEST(TsDeferQueue, LookaheadSeesTransactionsBeyondHeadp) {
  TsDeferOptions opt;
  opt.lookahead = 1;
  TsDefer d(opt, 2);
  d.assign(0, sets_of({writes({x(9)})}), TsDefer::Replay::kNo);
  d.assign(1, sets_of({writes({x(1)}), writes({x(2)})}), TsDefer::Replay::kNo);
  std::set<GlobalKey> seen;
  for (int seed = 0; seed < 64; ++seed) {
    Random rng(seed);
    TsDefer::Round round;
    seen.insert(*d.lookup(0, rng, round));
  }
  EXPECT_EQ(seen, (std::set<GlobalKey>{x(1), x(2)}));
}

TEST(TsDeferSet, AccuracyKeepsAUniformFractionOfTheAccessSet) {
  TxnDesc d;
  for (int i = 0; i < 8; ++i) d.read_set.push_back(x(i));
  for (int i = 8; i < 16; ++i) d.write_set.push_back(x(i));
  Random rng(11);
  const TsDeferSet full = TsDeferSet::from_desc(d, 1.0, rng);
  EXPECT_EQ(full.access_set.size(), 16u);
  EXPECT_EQ(full.write_set, d.write_set);
  std::vector<int> kept(16);
  for (int trial = 0; trial < 2000; ++trial) {
    const TsDeferSet half = TsDeferSet::from_desc(d, 0.5, rng);
    ASSERT_EQ(half.access_set.size(), 8u);
    for (GlobalKey k : half.write_set) ASSERT_TRUE(half.touches(k) && k >= x(8));
    for (GlobalKey k : half.access_set) ++kept[local_key_of(k)];
  }
  for (int i = 0; i < 16; ++i) {  // each key kept ~1000 times of 2000 (sd ~ 22)
    EXPECT_GT(kept[i], 880) << i;
    EXPECT_LT(kept[i], 1120) << i;
  }
}

// A ProbeWorkload whose every attempt fails validation, recording which
// buffered request (its batch index) each attempt ran.
struct EveryAttemptAborts : test_support::ProbeWorkload<Occ> {
  using ProbeWorkload::ProbeWorkload;
  std::vector<uint32_t> attempted;  // one worker: no lock
  RC run(Txn<Occ>&, const Request& r) {
    attempted.push_back(r.index);
    return RC::kValidation;
  }
};

// --retry_aborted=false under TSKD[CC] (the online executor's TsDEFER queue):
// an aborted request is dropped, so the worker moves through its buffer as
// without TsDEFER, instead of running the dropped head again forever.
TEST(TsDeferOnlineExecutor, WithoutRetriesADroppedTransactionLeavesTheQueueHead) {
  using Order = FrontendSpec::OnlineOrder;
  for (const Order order : {Order::kBuffer, Order::kTsDefer}) {
    FrontendSpec frontend;
    frontend.online_order = order;
    const bool tsdefer = order == Order::kTsDefer;
    constexpr uint32_t kBuffer = 8;
    EveryAttemptAborts w(4, kBuffer, [](uint32_t i, test_support::ProbeRequest& r) {
      r.n = 1;
      r.keys[0] = i % 4;
    });
    w.load(1);
    Occ cc;
    EngineConfig cfg;
    cfg.threads = 1;
    cfg.duration_s = 0.02;
    cfg.warmup_s = 0;
    cfg.txn_buffer = kBuffer;
    cfg.backoff_max_us = 0;
    cfg.retry_aborted = false;
    OnlineExecutor<Occ, EveryAttemptAborts> exec(cfg, cc, w, frontend);
    const auto out = exec.run();
    EXPECT_EQ(out.stats.commits, 0u) << "TsDEFER " << tsdefer;
    ASSERT_GT(w.attempted.size(), 2 * kBuffer) << "TsDEFER " << tsdefer;
    // One attempt per request, in buffer order, cycling.
    for (size_t a = 0; a < 2 * kBuffer; ++a)
      EXPECT_EQ(w.attempted[a], a % kBuffer) << "TsDEFER " << tsdefer << " attempt " << a;
  }
}

}  // namespace
}  // namespace ccb
