#include "partitioners/residual.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "engine/core/clock.h"
#include "engine/core/phase_team.h"
#include "engine/core/random.h"
#include "engine/exec/bundle_plan.h"
#include "partitioners/partitioner_frontend.h"
#include "tests/partitioners/txn_builder.h"

namespace ccb {
namespace {

using test::txn;
using V = std::vector<uint32_t>;

// TSKD §6.1: R = the transactions in conflict with a transaction of another
// partition (a shared key, one of the two writing it).
TEST(SplitWithResidual, ConflictsAcrossPartitionsGoToTheResidual) {
  std::vector<TxnDesc> b = {
      txn({}, {1}),      // 0, p0: writes 1, which 1 (p1) reads -> R
      txn({1}, {}),      // 1, p1 -> R
      txn({2}, {}),      // 2, p0: reads 2, which 3 (p1) only reads: no conflict
      txn({2}, {}),      // 3, p1
      txn({}, {3}),      // 4, p0: writes 3, which 5 writes, same partition
      txn({}, {3}),      // 5, p0
      txn({}, {4, 5}),   // 6, p1: writes 5, read by 7 (p0) -> R
      txn({5}, {}),      // 7, p0 -> R
      txn({}, {6}),      // 8, p0: writes 6, read by 10 (p1) -> R
      txn({6}, {}),      // 9, p0: reads 6 as 10 does, and 8 is in its own partition: stays
      txn({6}, {}),      // 10, p1 -> R
  };
  const V part_of = {0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1};
  Partitioning out;
  split_with_residual(accesses_by_key(b), part_of, 2, out);
  EXPECT_EQ(out.validate(b.size()), "");
  EXPECT_EQ(out.parts, (std::vector<V>{{2, 4, 5, 9}, {3}}));
  EXPECT_EQ(out.residual, (V{0, 1, 6, 7, 8, 10}));
  // The same extraction from the partitions of a partitioner without a
  // residual (Schism, Horticulture), as TSKD runs it (§6.1).
  Partitioning given;
  parts_of_assignment(part_of, 2, given);
  EXPECT_EQ(given.parts, (std::vector<V>{{0, 2, 4, 5, 7, 8, 9}, {1, 3, 6, 10}}));
  EXPECT_TRUE(given.residual.empty());
  extract_residual(b, given);
  EXPECT_EQ(given.parts, out.parts);
  EXPECT_EQ(given.residual, out.residual);
}

TEST(SplitWithResidual, OnePartitionHasNoResidual) {
  std::vector<TxnDesc> b = {txn({}, {1}), txn({1}, {1}), txn({}, {1})};
  Partitioning out;
  split_with_residual(accesses_by_key(b), V{0, 0, 0}, 1, out);
  EXPECT_EQ(out.parts, (std::vector<V>{{0, 1, 2}}));
  EXPECT_TRUE(out.residual.empty());
}

// TSKD's extraction runs on the team (issue 45 item 4): the accesses bucketed
// by key, each bucket sorted and marked apart. On random bundles (several
// blocks of 256 transactions, hot and cold keys) and any chunking, it gives
// what the rule gives by brute force over every pair of transactions.
TEST(ExtractResidual, OnTheTeamMatchesThePairwiseRuleOnRandomBundles) {
  Random rng(7);
  OwnTeam team(4);
  const ForChunks on_team = [&](size_t n, const std::function<void(size_t, size_t)>& body) {
    team.team().for_chunks(n, [&](size_t, size_t begin, size_t end) { body(begin, end); });
  };
  for (int round = 0; round < 40; ++round) {
    const uint32_t n = 1 + static_cast<uint32_t>(rng.below(round % 4 == 0 ? 1500 : 300));
    const unsigned k = 1 + static_cast<unsigned>(rng.below(8));
    const uint64_t keys = 1 + rng.below(round % 2 ? 20 : 5000);
    std::vector<TxnDesc> b(n);
    std::vector<uint32_t> part_of(n);
    for (uint32_t t = 0; t < n; ++t) {
      for (uint64_t a = 1 + rng.below(6); a > 0; --a)
        (rng.chance(0.4) ? b[t].write_set : b[t].read_set).push_back(make_global_key(0, rng.below(keys)));
      for (auto* set : {&b[t].read_set, &b[t].write_set}) {
        std::sort(set->begin(), set->end());
        set->erase(std::unique(set->begin(), set->end()), set->end());
      }
      b[t].id = t;
      part_of[t] = static_cast<uint32_t>(rng.below(k));
    }
    // The rule, pair by pair: t and u in different partitions, a common key,
    // one of the two writing it -> both in R.
    std::vector<uint8_t> want_r(n, 0);
    auto writes = [&](uint32_t t, GlobalKey key) {
      return std::binary_search(b[t].write_set.begin(), b[t].write_set.end(), key);
    };
    for (uint32_t t = 0; t < n; ++t)
      for (uint32_t u = t + 1; u < n; ++u) {
        if (part_of[t] == part_of[u] || (want_r[t] && want_r[u])) continue;
        for (const auto* set : {&b[t].read_set, &b[t].write_set})
          for (GlobalKey key : *set) {
            const bool u_has = writes(u, key) || std::binary_search(b[u].read_set.begin(), b[u].read_set.end(), key);
            if (u_has && (writes(t, key) || writes(u, key))) want_r[t] = want_r[u] = 1;
          }
      }
    Partitioning want;
    want.parts.assign(k, {});
    for (uint32_t t = 0; t < n; ++t) (want_r[t] ? want.residual : want.parts[part_of[t]]).push_back(t);
    for (const ForChunks& chunks : {ForChunks(serial_chunks), on_team}) {
      Partitioning got;
      parts_of_assignment(part_of, k, got);
      extract_residual(b, got, chunks);
      ASSERT_EQ(got.validate(n), "") << "round " << round;
      EXPECT_EQ(got.residual, want.residual) << "round " << round;
      EXPECT_EQ(got.parts, want.parts) << "round " << round;
    }
  }
}

TEST(MajorityRouter, MostRecordsWinTiesAndNoVotesGoToTheLeastLoaded) {
  MajorityRouter r(3);
  r.vote(2), r.vote(1), r.vote(2);
  EXPECT_EQ(r.decide(), 2u);  // two records in 2
  EXPECT_EQ(r.decide(), 0u);  // no vote: least loaded, lowest id
  r.vote(0), r.vote(2);
  EXPECT_EQ(r.decide(), 0u);  // tie 0/2: both hold one transaction, lowest id
  EXPECT_EQ(r.decide(), 1u);  // no vote: 1 is the least loaded
  EXPECT_EQ(r.load(), (V{2, 1, 1}));
}

// A partitioner that returns a fixed partitioning, to test the front-end:
// with Strife's explicit residual, or without one (Schism, Horticulture).
class FixedPartitioner final : public Partitioner {
 public:
  explicit FixedPartitioner(bool residual) : residual_(residual) {}
  void partition(std::span<const TxnDesc>, unsigned, Partitioning& out) override {
    out.parts = {{0, 2}, {}, {1}};
    if (residual_) out.residual = {3};
    else out.parts[1] = {3};
    out.partition_us = 7;
  }
  const char* name() const override { return "fixed"; }
  bool gives_residual() const override { return residual_; }

 private:
  bool residual_;
};

TEST(PartitionerFrontend, WithAResidualPartitionIRunsCcFreeOnWorkerIAndTheResidualWithCc) {
  PartitionerFrontend fe(std::make_unique<FixedPartitioner>(true), 3);
  std::vector<TxnDesc> b = {txn({}, {1}), txn({}, {2}), txn({}, {3}), txn({}, {4})};
  BundlePlan plan;
  plan.per_thread.resize(3);
  fe.plan(b, plan);
  EXPECT_EQ(plan.validate(b.size(), 3), "");
  ASSERT_EQ(plan.per_thread[0].size(), 1u);
  EXPECT_EQ(plan.per_thread[0][0].mode, BundleQueue::Mode::kWithoutCC);
  EXPECT_EQ(plan.per_thread[0][0].txns, (V{0, 2}));
  EXPECT_TRUE(plan.per_thread[1].empty());
  EXPECT_EQ(plan.per_thread[2][0].txns, (V{1}));
  EXPECT_TRUE(plan.worklist.empty());
  EXPECT_EQ(plan.residuals, (V{3}));
  EXPECT_EQ(plan.step_us, (std::vector<std::pair<std::string, double>>{{"partition", 7}}));
  EXPECT_EQ(plan.counters, (std::vector<std::pair<std::string, double>>{{"part_min", 0}, {"part_max", 2}}));
  EXPECT_TRUE(plan.input_as_is);
}

// SCHISM and HORTICULTURE (TSKD §3: "partitions are executed concurrently
// with CC"): every partition runs under the protocol, and there is no
// residual phase (the extraction is TSKD's, §6.1).
TEST(PartitionerFrontend, WithoutAResidualEveryPartitionRunsWithCcAndNothingIsExtracted) {
  PartitionerFrontend fe(std::make_unique<FixedPartitioner>(false), 3);
  // 0 and 3 write key 1 from partitions 0 and 1: TSKD's extraction would move both to R.
  std::vector<TxnDesc> b = {txn({}, {1}), txn({}, {2}), txn({}, {3}), txn({}, {1})};
  BundlePlan plan;
  plan.per_thread.resize(3);
  fe.plan(b, plan);
  EXPECT_EQ(plan.validate(b.size(), 3), "");
  for (unsigned i = 0; i < 3; ++i) {
    ASSERT_EQ(plan.per_thread[i].size(), 1u) << i;
    EXPECT_EQ(plan.per_thread[i][0].mode, BundleQueue::Mode::kWithCC) << i;
  }
  EXPECT_EQ(plan.per_thread[0][0].txns, (V{0, 2}));
  EXPECT_EQ(plan.per_thread[1][0].txns, (V{3}));
  EXPECT_TRUE(plan.residuals.empty());
}

// The input partitioner's time on the executor's clock, for --partition_time.
TEST(PartitionInput, RecordsThePartitionersTimeAndRefusesAResidualItDoesNotGive) {
  class Slow final : public Partitioner {
   public:
    bool residual_anyway = false;
    void partition(std::span<const TxnDesc> b, unsigned k, Partitioning& out) override {
      const uint64_t until = now_ns() + 2'000'000;
      while (now_ns() < until) {
      }
      out.parts.assign(k, {});
      for (uint32_t t = 0; t < b.size(); ++t) out.parts[0].push_back(t);
      if (residual_anyway) out.residual.push_back(0);
    }
    const char* name() const override { return "slow"; }
    bool gives_residual() const override { return false; }
  } slow;
  std::vector<TxnDesc> b = {txn({}, {1})};
  Partitioning out;
  BundlePlan plan;
  partition_input(slow, b, 2, out, plan);
  EXPECT_GE(plan.input_partition_ns, 2'000'000u);
  EXPECT_NEAR(out.partition_us, plan.input_partition_ns * 1e-3, 1e-6);  // filled where the partitioner left 0
  slow.residual_anyway = true;
  EXPECT_THROW(partition_input(slow, b, 2, out, plan), std::logic_error);
}

}  // namespace
}  // namespace ccb
