// The thread team that runs Strife's parallel analysis steps.
#include "partitioners/strife/thread_team.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace ccb::strife {
namespace {

TEST(ThreadTeam, OneThreadRunsEveryChunkOnTheCaller) {
  ThreadTeam team(1);
  std::vector<int> runs(10, 0);
  team.run(runs.size(), [&](size_t worker, size_t chunk) {
    EXPECT_EQ(worker, 0u);
    ++runs[chunk];
  });
  EXPECT_EQ(runs, std::vector<int>(10, 1));
  team.run(0, [](size_t, size_t) { FAIL() << "no chunk to run"; });
}

TEST(ThreadTeam, ExceptionReachesTheCallerAndTheTeamStaysUsable) {
  ThreadTeam team(3);
  std::atomic<int> ran{0};
  EXPECT_THROW(team.run(12,
                        [&](size_t, size_t chunk) {
                          ++ran;
                          if (chunk == 5) throw std::runtime_error("chunk 5");
                        }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 12);  // the other chunks still ran
  std::atomic<int> again{0};
  team.run(4, [&](size_t, size_t) { ++again; });
  EXPECT_EQ(again.load(), 4);
}

// Many short loops back to back, as the analysis runs them: every chunk runs
// exactly once per loop, workers are in range, and each loop sees the writes
// of the previous one (the caller reads a helper's results after run()).
TEST(ThreadTeamStress, BackToBackLoopsRunEachChunkOnce) {
  ThreadTeam team(4);
  std::vector<uint64_t> cells(64, 0);  // plain memory: TSan checks the hand-offs
  for (uint64_t loop = 1; loop <= 2000; ++loop) {
    team.run(cells.size(), [&](size_t worker, size_t chunk) {
      ASSERT_LT(worker, team.size());
      ASSERT_EQ(cells[chunk], loop - 1);
      cells[chunk] = loop;
    });
    for (uint64_t c : cells) ASSERT_EQ(c, loop);
  }
}

}  // namespace
}  // namespace ccb::strife
