// --frontend=reorder's batching (engine/exec/thread_reorder.h): batches of
// 4 x threads requests, 4 from each worker's buffer read cyclically, assigned
// 4 per worker by the thread-aware policy (Ding et al. §4.2, §5.5), one
// barrier per batch, stop and early leave.
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

// Runs `batches` batches on 2 workers; returns each worker's plans.
std::vector<std::vector<Plan>> run_batches(ThreadReorder& r, int batches) {
  std::vector<std::vector<Plan>> seen(2);
  std::vector<std::thread> workers;
  for (int t = 0; t < 2; ++t) {
    workers.emplace_back([&, t] {
      for (int b = 0; b < batches; ++b) {
        ASSERT_TRUE(r.next_batch(t, true));
        Plan p;
        for (Slot s : r.plan(t)) p.emplace_back(s.owner, s.index);
        seen[t].push_back(p);
      }
    });
  }
  for (auto& w : workers) w.join();
  return seen;
}

TEST(ThreadReorder, ConflictingTransactionsShareAThreadAndBatchesCycleTheBuffers) {
  ThreadReorder r(2, 8, &reorder::assign_to_threads);
  fill(r, 2);
  r.set_measuring();
  const auto seen = run_batches(r, 3);
  // Batch 0 = indices 0..3 of both buffers. Thread 0 first takes the
  // transaction with the most conflicts (all tie at 3: batch position 0),
  // then those conflicting with it: the other writers of key 0.
  EXPECT_EQ(seen[0][0], (Plan{{0, 0}, {0, 2}, {1, 0}, {1, 2}}));
  EXPECT_EQ(seen[1][0], (Plan{{0, 1}, {0, 3}, {1, 1}, {1, 3}}));
  // Batch 1 = indices 4..7 (keys 10 and 11); batch 2 wraps to 0..3.
  EXPECT_EQ(seen[0][1], (Plan{{0, 4}, {0, 6}, {1, 4}, {1, 6}}));
  EXPECT_EQ(seen[1][1], (Plan{{0, 5}, {0, 7}, {1, 5}, {1, 7}}));
  EXPECT_EQ(seen[0][2], seen[0][0]);
  EXPECT_EQ(seen[1][2], seen[1][0]);
  const ThreadReorderStats s = r.stats();
  EXPECT_EQ(s.batches, 3u);
  EXPECT_EQ(s.txns, 3u * 8u);  // 4 x threads per batch
}

TEST(ThreadReorder, StopEndsTheRunAtTheNextBarrier) {
  ThreadReorder r(2, 8, &reorder::assign_to_threads);
  fill(r, 2);
  run_batches(r, 1);
  r.request_stop();
  std::vector<int> result(2, -1);
  std::thread a([&] { result[0] = r.next_batch(0, false); });
  std::thread b([&] { result[1] = r.next_batch(1, false); });
  a.join();
  b.join();
  EXPECT_EQ(result, (std::vector<int>{0, 0}));
  EXPECT_EQ(r.stats().batches, 0u);  // never measuring
}

TEST(ThreadReorder, ALeavingWorkerDoesNotBlockTheOthers) {
  ThreadReorder r(3, 4, &reorder::assign_to_threads);
  for (int t = 0; t < 3; ++t)
    for (uint32_t i = 0; i < 4; ++i) r.descs(t).push_back(writes(i));
  std::vector<int> result(2, -1);
  std::thread a([&] { result[0] = r.next_batch(0, false); });
  std::thread b([&] { result[1] = r.next_batch(1, false); });
  std::thread c([&] {
    ASSERT_TRUE(r.next_batch(2, false));  // batch 0 needs all three
    r.leave();                            // then worker 2 leaves mid-batch
  });
  c.join();
  a.join();
  b.join();
  EXPECT_EQ(result, (std::vector<int>{1, 1}));
  // Batch 1 completes with the two remaining workers.
  r.request_stop();
  std::thread d([&] { result[0] = r.next_batch(0, false); });
  std::thread e([&] { result[1] = r.next_batch(1, false); });
  d.join();
  e.join();
  EXPECT_EQ(result, (std::vector<int>{0, 0}));
}

}  // namespace
}  // namespace ccb
