// The contended-latch count (engine/core/latch_contention.h): one count per
// acquisition whose first try failed, however long it then spins; nothing
// for an uncontended acquisition; each thread sees only its own count.
#include "engine/core/latch_contention.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/cc_helpers/common.h"
#include "engine/core/latch.h"
#include "engine/cc/occ/occ.h"
#include "engine/cc/silo/silo.h"
#include "engine/cc/tictoc/tictoc.h"

namespace ccb {
namespace {

// Acquires a latch word with `acquire` on another thread while `held_bit` is
// set, releases it after 20 ms; returns that thread's count.
template <class Acquire>
uint64_t count_while_held(uint64_t held_bit, Acquire acquire) {
  Shared<uint64_t> word{held_bit};
  std::atomic<bool> started{false};
  uint64_t count = ~uint64_t{0};
  std::thread waiter([&] {
    const uint64_t before = tls_contended_latch_acquisitions;
    started.store(true);
    acquire(word);
    count = tls_contended_latch_acquisitions - before;
  });
  while (!started.load()) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // it spins many times meanwhile
  word.fetch_and(~held_bit);
  waiter.join();
  EXPECT_EQ(word.load() & held_bit, held_bit);  // the waiter holds it now
  return count;
}

template <class Acquire>
uint64_t count_when_free(Acquire acquire) {
  Shared<uint64_t> word{0};
  const uint64_t before = tls_contended_latch_acquisitions;
  acquire(word);
  return tls_contended_latch_acquisitions - before;
}

// OCC, Silo (BCC through Silo's commit phases) and TicToc latch a row with
// lock_bit (engine/core/latch.h), each on its own bit of the row's word.
TEST(LatchContention, OccSiloTicTocCountAContendedAcquisitionOnce) {
  auto occ = [](Shared<uint64_t>& w) { lock_bit<Occ::kLatch>(w); };
  auto silo = [](Shared<uint64_t>& w) { lock_bit<Silo::kLockBit>(w); };
  auto tictoc = [](Shared<uint64_t>& w) { lock_bit<TicToc::kLockBit>(w); };
  EXPECT_EQ(count_while_held(Occ::kLatch, occ), 1u);
  EXPECT_EQ(count_while_held(Silo::kLockBit, silo), 1u);
  EXPECT_EQ(count_while_held(TicToc::kLockBit, tictoc), 1u);
  EXPECT_EQ(count_when_free(occ), 0u);
  EXPECT_EQ(count_when_free(silo), 0u);
  EXPECT_EQ(count_when_free(tictoc), 0u);
}

TEST(LatchContention, LatchAcquisitionCountsItsFirstMissOnly) {
  const uint64_t before = tls_contended_latch_acquisitions;
  LatchAcquisition a;
  for (int i = 0; i < 5; ++i) a.note();
  LatchAcquisition b;
  b.note();
  note_contended_latch();
  EXPECT_EQ(tls_contended_latch_acquisitions - before, 3u);
  uint64_t other = ~uint64_t{0};
  std::thread([&] { other = tls_contended_latch_acquisitions; }).join();
  EXPECT_EQ(other, 0u);  // per thread
}

}  // namespace
}  // namespace ccb
