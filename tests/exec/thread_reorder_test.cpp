// --frontend=reorder's batching (engine/exec/thread_reorder.h): batches of
// 4 x threads requests, 4 from each worker's buffer read cyclically, assigned
// 4 per worker by the thread-aware policy (Ding et al. §4.2, §5.5), every
// distinct batch planned ahead, and no barrier between batches.
#include "engine/exec/thread_reorder.h"
#include "partitioners/reorder/thread_assign.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace ccb {
namespace {

using Slot = ThreadReorder::Slot;
using Plan = std::vector<std::pair<uint32_t, uint32_t>>;  // (owner, index)

TxnDesc writes(GlobalKey k) {
  TxnDesc d;
  d.write_set = {k};
  return d;
}

// Buffers of 8 per worker: index i writes key (i / 4) * 10 + i % 2, so each
// batch has two groups of 4 mutually conflicting transactions spread over
// both workers' buffers.
void fill(ThreadReorder& r, int threads) {
  for (int t = 0; t < threads; ++t)
    for (uint32_t i = 0; i < 8; ++i) r.descs(t).push_back(writes((i / 4) * 10 + i % 2));
}

Plan plan_of(const ThreadReorder& r, int tid, uint64_t batch) {
  Plan p;
  for (Slot s : r.plan(tid, batch)) p.emplace_back(s.owner, s.index);
  return p;
}

TEST(ThreadReorder, ConflictingTransactionsShareAThreadAndBatchesCycleTheBuffers) {
  ThreadReorder r(2, 8, &reorder::assign_to_threads);
  fill(r, 2);
  r.plan_all();
  // Batch 0 = indices 0..3 of both buffers. Thread 0 first takes the
  // transaction with the most conflicts (all tie at 3: batch position 0),
  // then those conflicting with it: the other writers of key 0.
  EXPECT_EQ(plan_of(r, 0, 0), (Plan{{0, 0}, {0, 2}, {1, 0}, {1, 2}}));
  EXPECT_EQ(plan_of(r, 1, 0), (Plan{{0, 1}, {0, 3}, {1, 1}, {1, 3}}));
  // Batch 1 = indices 4..7 (keys 10 and 11); batch 2 wraps to 0..3.
  EXPECT_EQ(plan_of(r, 0, 1), (Plan{{0, 4}, {0, 6}, {1, 4}, {1, 6}}));
  EXPECT_EQ(plan_of(r, 1, 1), (Plan{{0, 5}, {0, 7}, {1, 5}, {1, 7}}));
  EXPECT_EQ(plan_of(r, 0, 2), plan_of(r, 0, 0));
  EXPECT_EQ(plan_of(r, 1, 1001), plan_of(r, 1, 1));
  const ThreadReorderStats s = r.stats();
  EXPECT_EQ(s.batches, 2u);  // 8 / gcd(8, 4): two distinct batches
  EXPECT_EQ(s.txns, 2u * 8u);  // 4 x threads per batch
}

// The period of the batches: the cursor advances 4 positions a batch.
TEST(ThreadReorder, PeriodIsTheBufferOverItsGcdWithFour) {
  EXPECT_EQ(ThreadReorder(1, 8, &reorder::assign_to_threads).period(), 2u);
  EXPECT_EQ(ThreadReorder(1, 4096, &reorder::assign_to_threads).period(), 1024u);
  EXPECT_EQ(ThreadReorder(1, 6, &reorder::assign_to_threads).period(), 3u);
  EXPECT_EQ(ThreadReorder(1, 5, &reorder::assign_to_threads).period(), 5u);
  // A buffer of 6: batch 1 starts at index 4 and wraps to 0..1.
  ThreadReorder r(1, 6, &reorder::assign_to_threads);
  for (uint32_t i = 0; i < 6; ++i) r.descs(0).push_back(writes(i));  // no conflicts: the policy keeps the order
  r.plan_all();
  EXPECT_EQ(plan_of(r, 0, 1), (Plan{{0, 4}, {0, 5}, {0, 0}, {0, 1}}));
  EXPECT_EQ(plan_of(r, 0, 3), plan_of(r, 0, 0));
}

// No barrier: one worker runs batches far ahead while the other has not
// started (with the barrier of before it would wait for the other at batch 1).
TEST(ThreadReorder, AWorkerRunsAheadWithoutWaitingForTheOthers) {
  ThreadReorder r(2, 8, &reorder::assign_to_threads);
  fill(r, 2);
  r.plan_all();
  std::thread ahead([&] {
    uint64_t b = 0;
    for (; b < 1000; ++b) ASSERT_EQ(r.plan(0, b).size(), ThreadReorder::kPerThread);
    r.finish(0, b, b);
  });
  ahead.join();  // returns without worker 1 doing anything
  r.finish(1, 3, 3);
  const ThreadReorderStats s = r.stats();
  EXPECT_EQ(s.batch_spread, 997u);
  EXPECT_EQ(s.measured_parts, 1003u);
  EXPECT_EQ(s.workers, 2u);
}

}  // namespace
}  // namespace ccb
