// The bundle executor's phase team and barrier (engine/core/phase_team.h):
// the leader's loops run every chunk once on the serving members, an
// exception reaches the leader, release() ends serve(), and the spinning
// barrier runs its completion once per phase before anyone leaves it.
// Suite PhaseTeamStress (label "stress", run under TSan) oversubscribes the
// 2-core machine with 4 members: ThreadSanitizer checks every hand-off.
#include "engine/core/phase_team.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ccb {
namespace {

TEST(PhaseTeam, OneMemberRunsEveryChunkOnTheLeader) {
  PhaseTeam team(1);
  std::vector<int> runs(10, 0);
  team.run(runs.size(), [&](size_t member, size_t chunk) {
    EXPECT_EQ(member, 0u);
    ++runs[chunk];
  });
  EXPECT_EQ(runs, std::vector<int>(10, 1));
  team.run(0, [](size_t, size_t) { FAIL() << "no chunk to run"; });
}

// for_chunks covers [0, n) once, in kChunksPerMember chunks per member.
TEST(PhaseTeam, ForChunksCoversTheRangeOnce) {
  OwnTeam own(3);
  std::vector<std::atomic<int>> hits(1000);
  std::atomic<size_t> calls{0};
  own.team().for_chunks(hits.size(), [&](size_t member, size_t begin, size_t end) {
    EXPECT_LT(member, 3u);
    ++calls;
    for (size_t i = begin; i < end; ++i) ++hits[i];
  });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_EQ(calls.load(), 3 * PhaseTeam::kChunksPerMember);
}

TEST(PhaseTeam, ExceptionReachesTheLeaderAndTheTeamStaysUsable) {
  OwnTeam own(3);
  std::atomic<int> ran{0};
  EXPECT_THROW(own.team().run(12,
                              [&](size_t, size_t chunk) {
                                ++ran;
                                if (chunk == 5) throw std::runtime_error("chunk 5");
                              }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 12);  // the other chunks still ran
  std::atomic<int> again{0};
  own.team().run(4, [&](size_t, size_t) { ++again; });
  EXPECT_EQ(again.load(), 4);
}

// The executor's use: n members, the leader's loops between phases, each
// phase ended by the barrier; every chunk runs on a member's thread.
TEST(PhaseTeam, MembersServeUntilReleasedAndMeetAtTheBarrier) {
  constexpr size_t kMembers = 3;
  constexpr int kBatches = 50;
  struct Count {
    int* completions;
    void operator()() noexcept { ++*completions; }
  };
  int completions = 0;
  PhaseTeam team(kMembers);
  PhaseBarrier<Count> barrier(kMembers, Count{&completions});
  std::vector<std::set<std::thread::id>> ran(kBatches);  // written by the leader's chunks under a lock
  std::mutex mu;
  std::vector<std::thread::id> ids(kMembers);
  auto member = [&](size_t m) {
    ids[m] = std::this_thread::get_id();
    for (int b = 0; b < kBatches; ++b) {
      if (m == 0) {
        team.run(kMembers, [&](size_t who, size_t) {
          EXPECT_LT(who, kMembers);
          std::lock_guard<std::mutex> lock(mu);
          ran[b].insert(std::this_thread::get_id());
        });
        team.release();
      } else {
        team.serve(m);
      }
      barrier.arrive_and_wait();
      EXPECT_EQ(completions, 2 * b + 1);  // the completion ran before anyone left
      barrier.arrive_and_wait();
    }
  };
  std::vector<std::thread> threads;
  for (size_t m = 1; m < kMembers; ++m) threads.emplace_back(member, m);
  member(0);
  for (auto& t : threads) t.join();
  EXPECT_EQ(completions, 2 * kBatches);
  const std::set<std::thread::id> members(ids.begin(), ids.end());
  for (const auto& r : ran)
    for (const auto& id : r) EXPECT_TRUE(members.count(id)) << "a chunk ran outside the team";
}

// Many short loops back to back, as the analysis runs them: every chunk runs
// exactly once per loop, members are in range, and each loop sees the
// writes of the previous one (the leader reads a member's results after run()).
TEST(PhaseTeamStress, BackToBackLoopsRunEachChunkOnce) {
  OwnTeam own(4);
  PhaseTeam& team = own.team();
  std::vector<uint64_t> cells(64, 0);  // plain memory: TSan checks the hand-offs
  for (uint64_t loop = 1; loop <= 2000; ++loop) {
    team.run(cells.size(), [&](size_t member, size_t chunk) {
      ASSERT_LT(member, team.size());
      ASSERT_EQ(cells[chunk], loop - 1);
      cells[chunk] = loop;
    });
    for (uint64_t c : cells) ASSERT_EQ(c, loop);
  }
}

// Phases back to back on 4 members: what a member writes before the barrier
// every member reads after it.
TEST(PhaseTeamStress, BarrierPublishesEachPhasesWrites) {
  constexpr size_t kMembers = 4;
  struct Nothing {
    void operator()() noexcept {}
  };
  PhaseBarrier<Nothing> barrier(kMembers, Nothing{});
  std::vector<uint64_t> cells(kMembers, 0);  // plain memory
  auto member = [&](size_t m) {
    for (uint64_t phase = 1; phase <= 2000; ++phase) {
      cells[m] = phase;
      barrier.arrive_and_wait();
      for (uint64_t c : cells) ASSERT_EQ(c, phase);
      barrier.arrive_and_wait();
    }
  };
  std::vector<std::thread> threads;
  for (size_t m = 0; m < kMembers; ++m) threads.emplace_back(member, m);
  for (auto& t : threads) t.join();
}

}  // namespace
}  // namespace ccb
