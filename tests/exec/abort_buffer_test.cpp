// The abort buffer (engine/exec/abort_buffer.h) against DBx1000's rules:
// the first ready slot in slot order, the first free slot on park, full
// after `slots` parks, the earliest ready time when none is ready.
#include "engine/exec/abort_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

namespace ccb {
namespace {

TEST(AbortBuffer, TakesTheFirstReadySlotInSlotOrder) {
  AbortBuffer<int> b(3);
  b.park(10, /*ready_ns=*/300);
  b.park(11, 100);
  b.park(12, 50);
  EXPECT_TRUE(b.full());
  EXPECT_EQ(b.earliest_ready_ns(), 50u);
  EXPECT_FALSE(b.take_ready(49).has_value());  // none ready yet
  // At 150 slots 1 (100) and 2 (50) are ready: slot order gives slot 1 first, as DBx1000 scans.
  EXPECT_EQ(b.take_ready(150), 11);
  EXPECT_FALSE(b.full());
  EXPECT_EQ(b.take_ready(150), 12);
  EXPECT_FALSE(b.take_ready(150).has_value());
  EXPECT_EQ(b.parked(), 1u);
  // A park fills the first free slot (slot 1); slot 0's entry, ready too, still comes first.
  b.park(13, 0);
  EXPECT_EQ(b.take_ready(1000), 10);  // slot 0, ready at 300
  EXPECT_EQ(b.take_ready(1000), 13);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.earliest_ready_ns(), std::numeric_limits<uint64_t>::max());
}

// The penalty is uniform in [0, penalty_us] µs after now: a draw of 0 is
// ready at once, the largest draw (penalty_us x 1000) exactly at the bound.
TEST(AbortBuffer, ParksForAPenaltyDrawnUpToItsBound) {
  struct Draw {  // Random's below(n): here the largest or the smallest value in [0, n)
    bool largest;
    uint64_t asked = 0;
    uint64_t below(uint64_t n) {
      asked = n;
      return largest ? n - 1 : 0;
    }
  };
  AbortBuffer<int> b(2);
  Draw top{true}, bottom{false};
  b.park_for_penalty(1, /*now_ns=*/5000, top, /*penalty_us=*/100);
  EXPECT_EQ(top.asked, 100001u);  // 0 .. 100,000 ns inclusive
  b.park_for_penalty(2, 5000, bottom, 100);
  EXPECT_EQ(b.earliest_ready_ns(), 5000u);
  EXPECT_EQ(b.take_ready(5000), 2);
  EXPECT_FALSE(b.take_ready(104999).has_value());
  EXPECT_EQ(b.take_ready(105000), 1);
}

// Randomized against a brute-force model: a list of (slot, entry, ready).
TEST(AbortBuffer, MatchesABruteForceModel) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    const uint32_t slots = 1 + rng() % 6;
    AbortBuffer<int> b(slots);
    std::vector<std::pair<int, uint64_t>> model(slots, {-1, 0});  // entry -1: free
    uint64_t now = 0;
    for (int step = 0; step < 100; ++step) {
      now += rng() % 40;
      const size_t used = std::count_if(model.begin(), model.end(), [](auto& s) { return s.first >= 0; });
      ASSERT_EQ(b.parked(), used);
      ASSERT_EQ(b.full(), used == slots);
      if (rng() % 2 == 0 && used < slots) {
        const int e = step;
        const uint64_t ready = now + rng() % 100;
        b.park(e, ready);
        *std::find_if(model.begin(), model.end(), [](auto& s) { return s.first < 0; }) = {e, ready};
      } else {
        int expect = -1;
        for (auto& s : model)
          if (s.first >= 0 && s.second <= now) {
            expect = s.first;
            s.first = -1;
            break;
          }
        const auto got = b.take_ready(now);
        ASSERT_EQ(got.has_value(), expect >= 0);
        if (got) {
          ASSERT_EQ(*got, expect);
        }
      }
      uint64_t earliest = std::numeric_limits<uint64_t>::max();
      for (auto& s : model)
        if (s.first >= 0) earliest = std::min(earliest, s.second);
      ASSERT_EQ(b.earliest_ready_ns(), earliest);
    }
  }
}

}  // namespace
}  // namespace ccb
