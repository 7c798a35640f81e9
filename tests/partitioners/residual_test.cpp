#include "partitioners/residual.h"

#include <gtest/gtest.h>

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
  split_with_residual(b, part_of, 2, out);
  EXPECT_EQ(out.validate(b.size()), "");
  EXPECT_EQ(out.parts, (std::vector<V>{{2, 4, 5, 9}, {3}}));
  EXPECT_EQ(out.residual, (V{0, 1, 6, 7, 8, 10}));
}

TEST(SplitWithResidual, OnePartitionHasNoResidual) {
  std::vector<TxnDesc> b = {txn({}, {1}), txn({1}, {1}), txn({}, {1})};
  Partitioning out;
  split_with_residual(b, V{0, 0, 0}, 1, out);
  EXPECT_EQ(out.parts, (std::vector<V>{{0, 1, 2}}));
  EXPECT_TRUE(out.residual.empty());
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

// A partitioner that returns a fixed partitioning, to test the front-end.
class FixedPartitioner final : public Partitioner {
 public:
  void partition(std::span<const TxnDesc>, unsigned, Partitioning& out) override {
    out.parts = {{0, 2}, {}, {1}};
    out.residual = {3};
    out.partition_us = 7;
  }
  const char* name() const override { return "fixed"; }
};

TEST(PartitionerFrontend, PartitionIRunsCcFreeOnWorkerIAndTheResidualWithCc) {
  PartitionerFrontend fe(std::make_unique<FixedPartitioner>(), 3);
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
}

}  // namespace
}  // namespace ccb
