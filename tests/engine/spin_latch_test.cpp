// SpinLatch's claim (engine/core/spin.h): a waiter on the same core as a
// holder that keeps the latch for most of its time slice and takes it back at
// once got in after 0.8-32 s without the claim; with it, within a time slice.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/core/spin.h"

namespace ccb {
namespace {

using Clock = std::chrono::steady_clock;

// Pins the calling thread to one CPU this process may run on.
void pin_to_first_allowed_cpu() {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &allowed)) ++cpu;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof one, &one), 0);
}

TEST(SpinLatch, AWaiterOnTheHoldersCoreGetsInDespiteAnImmediateRetake) {
  SpinLatch latch;
  std::atomic<bool> stop{false}, holding{false};
  std::thread holder([&] {
    pin_to_first_allowed_cpu();
    while (!stop.load(std::memory_order_relaxed)) {
      latch.lock();
      holding.store(true, std::memory_order_relaxed);
      for (auto t = Clock::now(); Clock::now() - t < std::chrono::microseconds(20);) {
      }
      latch.unlock();  // and at once again: PartCC's pattern
    }
  });
  while (!holding.load()) std::this_thread::yield();
  for (int i = 0; i < 3; ++i) {
    std::chrono::duration<double> waited{};
    std::thread waiter([&] {
      pin_to_first_allowed_cpu();
      const auto t = Clock::now();
      latch.lock();
      waited = Clock::now() - t;
      latch.unlock();
    });
    waiter.join();
    EXPECT_LT(waited.count(), 0.5) << "wait " << i;
  }
  stop = true;
  holder.join();
}

TEST(SpinLatch, AClaimKeepsTheHolderFromTakingTheLatchBack) {
  SpinLatch latch;
  latch.lock();
  std::atomic<bool> in{false};
  std::thread waiter([&] {
    latch.lock();
    in = true;
    latch.unlock();
  });
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!latch.claimed() && Clock::now() < deadline) std::this_thread::yield();
  ASSERT_TRUE(latch.claimed()) << "the waiter never claimed after " << SpinLatch::kClaimAfter.count() << " us";
  latch.unlock();
  EXPECT_FALSE(latch.try_lock()) << "the holder took the latch back over a claim";
  waiter.join();
  EXPECT_TRUE(in.load());
  EXPECT_FALSE(latch.claimed());
  EXPECT_TRUE(latch.try_lock());
  latch.unlock();
}

}  // namespace
}  // namespace ccb
