// The simulation's scheduler and cost model (engine/sim/sim.h), on fibers
// the tests spawn themselves: the order of the schedule, its determinism,
// virtual time that never goes back, the cost accounting of a hand-computed
// schedule, fiber-local words, the watchdog on a planted spin, and the
// blocking waits of engine/core/sim_sync.h (a barrier releases at its last arrival's
// time; a wait nobody ends is reported as a deadlock).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/txn/protocol.h"  // cpu_relax
#include "engine/core/cli.h"      // ConfigError
#include "engine/core/latch.h"    // lock_bit
#include "engine/core/phase_team.h"
#include "engine/sim/sim.h"
#include "engine/core/sim_sync.h"
#include "engine/exec/runtime.h"  // backoff_after_abort
#include "engine/exec/tsdefer.h"
#include "partitioners/reorder/thread_assign.h"
#include "partitioners/tspar/tsgen.h"

namespace ccb::sim {
namespace {

static_assert(kSimBuild, "tests/sim runs in the sim build only (make test-sim)");

// A cost table whose ops are easy to add up by hand.
CostTable round_costs() {
  CostTable c = CostTable::builtin();
  for (double& ns : c.ns) ns = 1;
  c.ns[static_cast<size_t>(Op::kIndexProbe)] = 10;
  c.ns[static_cast<size_t>(Op::kRowRead)] = 7;
  c.ns[static_cast<size_t>(Op::kAtomicRmw)] = 5;
  c.ns[static_cast<size_t>(Op::kAtomicLoad)] = 2;
  c.ns[static_cast<size_t>(Op::kSpinRound)] = 3;
  c.ns[static_cast<size_t>(Op::kLineTransfer)] = 100;
  c.ns[static_cast<size_t>(Op::kWakeUp)] = 1000;
  c.source = "test";
  return c;
}

class SimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SimOptions o;
    o.physical_cores = 64;  // no SMT unless a test asks
    configure(o, round_costs());
  }
};

struct Step {
  uint32_t fiber;
  uint64_t t;
  bool operator==(const Step&) const = default;
};

// Fibers of different per-step costs, each step a hook that may yield (an
// index probe: 10 ns; a read of the fiber's own line: 2 ns; an RMW of it:
// 5 ns); returns the global order of their steps.
std::vector<Step> run_mixed_schedule() {
  std::vector<Step> log;
  struct alignas(64) OwnLine {
    uint64_t word = 0;
  };
  std::vector<OwnLine> lines(4);
  ThreadGroup g;
  for (uint32_t f = 0; f < 4; ++f) {
    g.spawn([&log, &lines, f] {
      for (int i = 0; i < 20; ++i) {
        log.push_back({f, now_ns()});
        if (f == 1) touch(&lines[f], false);
        else if (f == 2) rmw(&lines[f]);
        else charge(Op::kIndexProbe);
      }
      log.push_back({f, now_ns()});
    });
  }
  g.run([] {});
  return log;
}

// The scheduler resumes the fiber with the smallest virtual time, ties by id:
// the steps of all fibers, in the order they ran, are sorted by (time, id).
TEST_F(SimTest, ResumesSmallestVirtualTimeFirstTiesById) {
  const std::vector<Step> log = run_mixed_schedule();
  ASSERT_EQ(log.size(), 4u * 21);
  for (size_t i = 1; i < log.size(); ++i) {
    const Step& a = log[i - 1];
    const Step& b = log[i];
    EXPECT_TRUE(a.t < b.t || (a.t == b.t && a.fiber <= b.fiber) || a.fiber == b.fiber)
        << "step " << i << ": fiber " << b.fiber << " at " << b.t << " ran after fiber " << a.fiber << " at " << a.t;
  }
  // Fibers 0 and 3 cost the same per step: they alternate, 0 first.
  std::vector<uint32_t> zero_three;
  for (const Step& s : log)
    if (s.fiber == 0 || s.fiber == 3) zero_three.push_back(s.fiber);
  for (size_t i = 0; i + 1 < zero_three.size(); i += 2) EXPECT_EQ(zero_three[i], 0u) << i;
}

TEST_F(SimTest, SameScheduleTwice) {
  const std::vector<Step> first = run_mixed_schedule();
  EXPECT_EQ(first, run_mixed_schedule());
  EXPECT_EQ(last_run().virtual_cores, 4u);
  EXPECT_GT(last_run().fiber_switches, 4u);
}

// Every fiber's clock only moves forward, also across sleeps into the past
// and spins, and a sleep ends at its deadline exactly.
TEST_F(SimTest, VirtualTimeNeverGoesBack) {
  std::vector<std::vector<uint64_t>> seen(3);
  ThreadGroup g;
  for (uint32_t f = 0; f < 3; ++f) {
    g.spawn([&seen, f] {
      for (int i = 0; i < 50; ++i) {
        seen[f].push_back(now_ns());
        if (i % 3 == 0) sleep_until_ns(now_ns() / 2);  // a deadline already past
        else if (i % 3 == 1) spin(__FILE__, __LINE__);
        else charge(Op::kIndexProbe);
      }
      const uint64_t deadline = now_ns() + 12345;
      sleep_until_ns(deadline);
      EXPECT_EQ(now_ns(), deadline);
    });
  }
  g.run([] {});
  for (const auto& s : seen)
    for (size_t i = 1; i < s.size(); ++i) EXPECT_LE(s[i - 1], s[i]);
}

// A hand-computed schedule of the cost model: two cores RMW one line and
// then read it back.
//   core 0: rmw at 0       -> 0 + 5 (no previous writer)                   = 5
//   core 1: rmw at 0       -> waits for the line until 5, + 5 + 100 (moved
//                             from core 0)                                  = 110
//   core 0: touch(read) at 5 -> 5 + 2 + 100 (core 1 wrote it last)          = 107
//   core 0: touch(read) at 107 -> + 2 (it holds a copy now)                 = 109
//   core 1: charge(index probe) at 110 -> + 10                               = 120
//   core 1: charge(row read) at 120 -> + 7, local work: no yield             = 127
TEST_F(SimTest, CostAccountingOfAHandComputedSchedule) {
  alignas(64) uint64_t line[8] = {};
  uint64_t t0_after_rmw = 0, t0_end = 0, t1_end = 0;
  ThreadGroup g;
  g.spawn([&] {
    rmw(&line[0]);
    t0_after_rmw = now_ns();
    touch(&line[3], false);  // the same 64-byte line
    touch(&line[0], false);
    t0_end = now_ns();
  });
  g.spawn([&] {
    rmw(&line[1]);
    charge(Op::kIndexProbe);
    charge(Op::kRowRead);
    t1_end = now_ns();
  });
  g.run([] {});
  EXPECT_EQ(t0_after_rmw, 5u);
  EXPECT_EQ(t0_end, 109u);
  EXPECT_EQ(t1_end, 127u);
  EXPECT_DOUBLE_EQ(last_run().virtual_seconds, 127e-9);
  EXPECT_EQ(last_run().virtual_cores, 2u);  // the main body is no virtual core
}

// Sockets: 4 physical cores in 2 sockets (cores 0-1 and 2-3), a transfer
// across them 300 ns. Core 0 writes a line at 0 (5 ns, no previous writer);
// core 1 (same socket) reads it at 10: 2 + 100; core 2 (the other socket)
// at 20: 2 + 300. Then core 3 RMWs it at 30: the line is held by cores 0,
// 1 and 2, two of them on the other socket, so 5 + 300.
TEST_F(SimTest, ALineFromAnotherSocketCostsTheSocketTransfer) {
  SimOptions o;
  o.physical_cores = 4;
  o.sockets = 2;
  o.socket_transfer_ns = 300;
  configure(o, round_costs());
  EXPECT_DOUBLE_EQ(socket_transfer_ns(), 300);
  // Core 0 writes a line, cores 1 and 2 read it, core 3 RMWs it, each one
  // index probe later than the one before; the cost of each one's access.
  auto access_costs = [] {
    alignas(64) uint64_t line[8] = {};
    std::vector<uint64_t> cost(4);
    ThreadGroup g;
    for (uint32_t c = 0; c < 4; ++c)
      g.spawn([&, c] {
        for (uint32_t i = 0; i < c; ++i) charge(Op::kIndexProbe);
        const uint64_t t0 = now_ns();
        if (c == 0) touch(&line[0], true);
        else if (c == 3) rmw(&line[0]);
        else touch(&line[0], false);
        cost[c] = now_ns() - t0;
      });
    g.run([] {});
    return cost;
  };
  EXPECT_EQ(access_costs(), (std::vector<uint64_t>{2, 102, 302, 305}));
  // One socket (the default): the same schedule pays the line transfer only.
  o.sockets = 1;
  o.socket_transfer_ns = 0;
  configure(o, round_costs());
  EXPECT_DOUBLE_EQ(socket_transfer_ns(), 200);  // twice the line transfer, unused
  EXPECT_EQ(access_costs(), (std::vector<uint64_t>{2, 102, 102, 105}));
}

// SMT: with more virtual cores than physical ones, the cores that share a
// physical core pay the factor on local work; line transfers are not scaled.
TEST_F(SimTest, SmtFactorSlowsSharedCoresOnly) {
  SimOptions o;
  o.physical_cores = 2;
  o.smt_factor = 2.0;
  configure(o, round_costs());
  std::vector<uint64_t> end(3);
  ThreadGroup g;
  for (uint32_t f = 0; f < 3; ++f)
    g.spawn([&end, f] {
      charge(Op::kIndexProbe);
      end[f] = now_ns();
    });
  g.run([] {});
  // 3 virtual cores on 2 physical: core 0 and core 2 share physical core 0.
  EXPECT_EQ(end[0], 20u);
  EXPECT_EQ(end[1], 10u);
  EXPECT_EQ(end[2], 20u);
}

// The work scale (--sim_work_scale): an attempt of a type costs its local
// work times the type's factor (SMT on top), and nothing else: atomics and
// line transfers keep their cost. Type 1 has factor 3, type 0 none given (1).
TEST_F(SimTest, WorkScaleMultipliesTheLocalWorkOfItsTypeOnly) {
  SimOptions o;
  o.physical_cores = 1;
  o.smt_factor = 2.0;
  configure(o, round_costs());
  set_work_scales({1.0, 3.0}, {"a", "b"});
  alignas(64) uint64_t line[8] = {};
  std::vector<uint64_t> end(2);
  ThreadGroup g;
  g.spawn([&] {
    work_type(1);
    charge(Op::kIndexProbe);  // 10 * 3 = 30
    charge(Op::kRowRead);     // 7 * 3 = 21
    rmw(&line[0]);            // 5: not local work (the SMT factor applies to it as to every op but a transfer)
    end[0] = now_ns();
    work_type(0);
    charge(Op::kRowRead);     // 7
    end[1] = now_ns();
  });
  g.spawn([] {});  // a second virtual core, so that both share the one physical core
  g.run([] {});
  EXPECT_EQ(end[0], 2 * (30 + 21 + 5u));  // the SMT factor on top of the scaled local work
  EXPECT_EQ(end[1], end[0] + 2 * 7);
  set_work_scales({}, {});
}

// A scoped work type (the bundle executor's analysis chunk) scales only the
// work inside its scope: after it, the fiber's type before it is back, its
// attempt's type or none (factor 1).
TEST_F(SimTest, AScopedWorkTypeGivesBackTheTypeBeforeIt) {
  configure(SimOptions{}, round_costs());
  set_work_scales({2.0, 5.0}, {"a", "analysis"});
  std::vector<uint64_t> end(3);
  ThreadGroup g;
  g.spawn([&] {
    {
      const ScopedWorkType analysis(1);
      charge(Op::kIndexProbe);  // 10 * 5
    }
    charge(Op::kIndexProbe);    // no type before the scope: 10
    end[0] = now_ns();
    work_type(0);
    {
      const ScopedWorkType analysis(1);
      charge(Op::kRowRead);     // 7 * 5
      end[1] = now_ns();
    }
    charge(Op::kRowRead);       // the attempt's type again: 7 * 2
    end[2] = now_ns();
  });
  g.run([] {});
  EXPECT_EQ(end[0], 50u + 10u);
  EXPECT_EQ(end[1], end[0] + 35u);
  EXPECT_EQ(end[2], end[1] + 14u);
  EXPECT_EQ(current_work_type(), detail::kNoWorkType);  // outside a fiber
  set_work_scales({}, {});
}

// Issue 45 item 8: the work that TSKD's and rc's planning does natively
// costs virtual time by its primitive operations. Before, TSgen, TsDEFER's
// lane set-up and the thread-aware policy took no virtual time at all.
// A transaction of TsDEFER's lanes costs one index_probe of the analysis
// work type per key (10 ns here, x5 for the analysis).
TEST_F(SimTest, TsDeferSetUpChargesAnAnalysisProbePerKey) {
  set_work_scales({5.0}, {"analysis"});
  TxnDesc d;
  d.read_set = {1, 4};
  d.write_set = {2};
  uint64_t end = 0;
  ThreadGroup g;
  g.spawn([&] {
    const TsDeferSet s = TsDeferSet::from_sorted_desc(d);
    end = now_ns();
    EXPECT_EQ(s.access_set.size(), 3u);
  });
  g.run([] {});
  EXPECT_EQ(end, 3 * 10 * 5u);
  set_work_scales({}, {});
}

// rc's thread-aware policy: two transactions writing one key, one thread:
// 2 accesses sorted, 1 co-access pair, 4 + 2 x 4 = 12 greedy cells (under
// one probe's 16): 3 index_probes, not scaled (no analysis type).
TEST_F(SimTest, ThreadAssignChargesItsAccessesPairsAndCells) {
  std::vector<TxnDesc> batch(2);
  batch[0].write_set = {7};
  batch[1].write_set = {7};
  uint64_t end = 0;
  ThreadGroup g;
  g.spawn([&] {
    reorder::assign_to_threads(batch, 1);
    end = now_ns();
  });
  g.run([] {});
  EXPECT_EQ(end, 3 * 10u);
}

// TSgen charges its work as analysis on the fiber that does it: the same
// bundle costs 5x the virtual time at analysis factor 5, and something at
// all (the key index alone probes every access).
TEST_F(SimTest, TsgenChargesItsWorkAsAnalysis) {
  std::vector<TxnDesc> w(6);
  for (uint32_t i = 0; i < w.size(); ++i) {
    w[i].id = i;
    w[i].write_set = {i % 3, 10 + i};
  }
  for (TxnDesc& d : w) std::sort(d.write_set.begin(), d.write_set.end());
  Partitioning p;
  p.parts = {{0}, {1}};
  p.residual = {2, 3, 4, 5};
  const std::vector<double> time(w.size(), 1.0);
  auto run = [&](double factor) {
    set_work_scales({factor}, {"analysis"});
    uint64_t end = 0;
    ThreadGroup g;
    g.spawn([&] {
      tspar::Schedule s;
      tspar::Tsgen(1, tspar::ResidualOrder::kGiven).schedule(w, p, time, s);
      end = now_ns();
    });
    g.run([] {});
    set_work_scales({}, {});
    return end;
  };
  const uint64_t once = run(1.0);
  EXPECT_GE(once, 12 * 10u);  // at least a probe per access of the bundle
  EXPECT_EQ(run(5.0), 5 * once);
}

// Issue 45 item 4: TSgen's key index runs on the team, the residual's own
// keys included. A bundle that is all residual (TSKD[O]) of transactions
// with keys of their own (no pulls, nothing for ckRCF to search): alone, the
// leader probes the index once per access and records a runtime per access;
// with three more fibers serving the team, the index's probes are spread
// over four cores and the leader finishes at least half of them earlier.
// (No runtime is recorded: no later T* touches a placed transaction's keys.)
// Before, R's keys were inserted on the leader alone: the team saved nothing.
TEST_F(SimTest, TsgenIndexOfTheResidualRunsOnTheTeam) {
  constexpr uint32_t kTxns = 256, kKeys = 8;
  std::vector<TxnDesc> w(kTxns);
  Partitioning p;
  p.parts.assign(4, {});
  for (uint32_t i = 0; i < kTxns; ++i) {
    w[i].id = i;
    for (uint32_t k = 0; k < kKeys; ++k) w[i].write_set.push_back(uint64_t{k} * 1000 + i);
    p.residual.push_back(i);
  }
  const std::vector<double> time(kTxns, 1.0);
  auto run = [&](size_t members) {
    uint64_t end = 0;
    PhaseTeam team(members);
    ThreadGroup g;
    g.spawn([&] {
      tspar::Schedule s;
      tspar::Tsgen(1, tspar::ResidualOrder::kGiven)
          .schedule(w, p, time, s, [&](size_t n, const std::function<void(size_t, size_t)>& body) {
            team.for_chunks(n, [&](size_t, size_t begin, size_t end) { body(begin, end); });
          });
      end = now_ns();
      EXPECT_TRUE(s.rs.empty());
      team.release();
    });
    for (size_t m = 1; m < members; ++m) g.spawn([&team, m] { team.serve(m); });
    g.run([] {});
    return end;
  };
  const uint64_t alone = run(1), on_team = run(4);
  const uint64_t index_probes_ns = kTxns * kKeys * 10;  // one 10 ns probe per access
  EXPECT_GE(alone, index_probes_ns);                    // the index: a probe per access
  EXPECT_LE(on_team + index_probes_ns / 2, alone) << "alone " << alone << " ns, on the team " << on_team << " ns";
}

TEST(SimWorkScale, ParsesOneFactorOrFactorsByTypeAndRefusesBadSpecs) {
  const std::vector<std::string> types = {"new_order", "payment", "delivery"};
  EXPECT_TRUE(parse_work_scale("", types).empty());
  EXPECT_EQ(parse_work_scale("1.5", types), (std::vector<double>{1.5, 1.5, 1.5}));
  EXPECT_EQ(parse_work_scale("payment:2,new_order:0.5", types), (std::vector<double>{0.5, 2, 1}));
  for (const char* bad : {"0", "-1", "x", "1.5x", "payment", "nope:2", "payment:2,payment:3", "payment:0"})
    EXPECT_THROW(parse_work_scale(bad, types), ConfigError) << bad;
}

// A registered thread-local word is each fiber's own during the run and the
// OS thread's again afterwards.
thread_local uint64_t tls_word = 0;
TEST_F(SimTest, FiberLocalWordsArePerFiber) {
  tls_word = 77;
  fiber_local(&tls_word);
  std::vector<uint64_t> got(2);
  ThreadGroup g;
  for (uint32_t f = 0; f < 2; ++f)
    g.spawn([&got, f] {
      for (int i = 0; i < 10; ++i) {
        tls_word += f + 1;
        charge(Op::kIndexProbe);  // yields: the other fiber runs in between
      }
      got[f] = tls_word;
    });
  g.run([] {});
  EXPECT_EQ(got[0], 10u);
  EXPECT_EQ(got[1], 20u);
  EXPECT_EQ(tls_word, 77u);
}

// An exception in a fiber ends the run and is rethrown by run().
TEST_F(SimTest, FiberExceptionReachesTheCaller) {
  ThreadGroup g;
  g.spawn([] {
    charge(Op::kRowRead);
    throw std::runtime_error("from a fiber");
  });
  g.spawn([] { charge(Op::kRowRead); });
  EXPECT_THROW(g.run([] {}), std::runtime_error);
}

// The barrier: arrivals are RMWs of its counter (5 ns each, 100 ns more when
// another fiber wrote the line last), the last arrival runs the completion
// at its own time and goes on; the parked ones waited longer than
// std::barrier polls (16 spin rounds, 48 ns), so they slept: they go on at
// that time plus a wake-up (1000 ns) and the load of the counter's line (2 +
// 100 ns). Fiber f arrives after f + 1 index probes (10 ns each): f0 at 10
// (done at 15), f1 at 20 (125: it waits for no one but pays the transfer),
// f2 at 30, which waits for f1's RMW (125 + 105).
TEST_F(SimTest, FiberBarrierReleasesAtTheLastArrival) {
  uint64_t completed_at = 0;
  struct Done {
    uint64_t* at;
    void operator()() noexcept { *at = now_ns(); }
  };
  FiberBarrier<Done> barrier(3, Done{&completed_at});
  std::vector<uint64_t> after(3);
  ThreadGroup g;
  for (uint32_t f = 0; f < 3; ++f) {
    g.spawn([&, f] {
      for (uint32_t i = 0; i <= f; ++i) charge(Op::kIndexProbe);
      barrier.arrive_and_wait();
      after[f] = now_ns();
    });
  }
  g.run([] {});
  EXPECT_EQ(completed_at, 230u);
  EXPECT_EQ(after[2], 230u);
  EXPECT_EQ(after[0], 1332u);
  EXPECT_EQ(after[1], 1332u);
  // No spin rounds: 6 probes, 3 arrivals, 2 parks, 2 released loads.
  EXPECT_EQ(last_run().events, 13u);
}

// A park stands for a native wait that polls some rounds, then sleeps: a
// fiber woken within its rounds (std::atomic::wait's 16: 48 ns here) goes
// on at its waker's time; one woken later, or one whose wait sleeps at once
// (a TBB queue's pop), goes on a wake-up (1000 ns) after its waker's time.
// A wait that never sleeps (kPollSpinRounds: Orthrus's polling threads) goes
// on at its waker's time however late.
TEST_F(SimTest, OnlyAFiberWhoseNativeWaitSleptPaysTheWakeUp) {
  WaitList polls(kAtomicWaitSpinRounds), sleeps(kTbbQueuePopSpinRounds), polls_long(kAtomicWaitSpinRounds),
      polls_forever(kPollSpinRounds);
  bool early = false, late = false;
  std::vector<uint64_t> woke(4);
  ThreadGroup g;
  g.spawn([&] {
    while (!early) polls.wait();
    woke[0] = now_ns();
  });
  g.spawn([&] {
    while (!early) sleeps.wait();
    woke[1] = now_ns();
  });
  g.spawn([&] {
    while (!late) polls_long.wait();
    woke[2] = now_ns();
  });
  g.spawn([&] {
    while (!late) polls_forever.wait();
    woke[3] = now_ns();
  });
  g.spawn([&] {
    charge(Op::kIndexProbe);  // 10 ns: the four have parked at 0
    early = true;
    polls.notify_all();
    sleeps.notify_all();
    for (int i = 0; i < 9; ++i) charge(Op::kIndexProbe);  // 100 ns
    late = true;
    polls_long.notify_all();
    polls_forever.notify_all();
  });
  g.run([] {});
  EXPECT_EQ(woke[0], 10u);
  EXPECT_EQ(woke[1], 1010u);
  EXPECT_EQ(woke[2], 1100u);
  EXPECT_EQ(woke[3], 100u);
}

// A line nobody touched for --sim_line_residency_ns (1000 ns here) has left
// every core's private cache: reading it costs an atomic load (2 ns) and no
// transfer, since the cost table's local work prices a cold access; a line
// another core wrote more recently costs the transfer (100 ns) as well.
TEST_F(SimTest, ALineUntouchedForTheResidencyCostsNoTransfer) {
  SimOptions o;
  o.line_residency_ns = 1000;
  configure(o, round_costs());
  struct alignas(64) Word {
    uint64_t v = 0;
  };
  Word recent_line, stale_line;
  uint64_t recent = 0, stale = 0;
  ThreadGroup g;
  g.spawn([&] {
    touch(&recent_line, true);  // both written by core 0 at 0-4 ns
    touch(&stale_line, true);
  });
  g.spawn([&] {
    for (int i = 0; i < 10; ++i) charge(Op::kIndexProbe);  // 100 ns
    uint64_t t0 = now_ns();
    touch(&recent_line, false);
    recent = now_ns() - t0;
    sleep_until_ns(5000);
    t0 = now_ns();
    touch(&stale_line, false);
    stale = now_ns() - t0;
  });
  g.run([] {});
  EXPECT_EQ(recent, 102u);
  EXPECT_EQ(stale, 2u);
}

// The time breakdown on a hot lock word: k cores RMW one line at time 0,
// then do 10 ns of local work. The RMWs serialize in core order; core 0's
// costs 5 ns (no previous writer), each later one 5 ns plus a 100 ns
// transfer from the core before it, so core i >= 1 starts at
// 5 + (i - 1) * 105 (its time queued behind the line's previous RMW) and
// ends its RMW at 5 + i * 105. Queued in all: 5 (k - 1) + 105 (k - 1)(k - 2) / 2.
// The window is the run (no measured_interval() marks): it ends with the
// last core, at 5 + (k - 1) * 105 + 10; the cores before it are idle the rest.
TEST_F(SimTest, TimeBreakdownOfAHotLockWordWithKWaiters) {
  constexpr uint64_t k = 5;
  alignas(64) uint64_t lock_word = 0;
  ThreadGroup g;
  for (uint64_t i = 0; i < k; ++i)
    g.spawn([&] {
      rmw(&lock_word);
      charge(Op::kIndexProbe);
    });
  g.run([] {});
  const RunStats& r = last_run();
  ASSERT_EQ(r.cores.size(), k);
  EXPECT_FALSE(r.measured_window);
  const uint64_t end = 5 + (k - 1) * 105 + 10;
  EXPECT_DOUBLE_EQ(r.window_seconds, end * 1e-9);
  auto ns = [&](size_t core, TimeKind kind) { return r.cores[core].ps[static_cast<size_t>(kind)] / 1000; };
  uint64_t queued = 0;
  for (uint64_t i = 0; i < k; ++i) {
    const uint64_t start = i == 0 ? 0 : 5 + (i - 1) * 105;
    EXPECT_EQ(ns(i, TimeKind::kRmwQueued), start) << "core " << i;
    EXPECT_EQ(ns(i, TimeKind::kRmw), 5u) << "core " << i;
    EXPECT_EQ(ns(i, TimeKind::kLineTransfer), i == 0 ? 0u : 100u) << "core " << i;
    EXPECT_EQ(ns(i, TimeKind::kLocalWork), 10u) << "core " << i;
    EXPECT_EQ(ns(i, TimeKind::kIdle), end - (5 + i * 105 + 10)) << "core " << i;
    uint64_t sum = 0;
    for (size_t kind = 0; kind < kTimeKindCount; ++kind) sum += r.cores[i].ps[kind];
    EXPECT_EQ(sum, end * 1000) << "core " << i << ": the kinds add up to the window";
    queued += ns(i, TimeKind::kRmwQueued);
  }
  EXPECT_EQ(queued, 5 * (k - 1) + 105 * (k - 1) * (k - 2) / 2);
}

// One backoff for a protocol that backs off itself (HasOwnBackoff: Cicada's
// regulation): the executor's randomized wait after an abort adds no virtual
// time, where another protocol's retry waits up to --backoff_max_us.
struct BacksOffItself {
  static constexpr bool kOwnBackoff = true;
};
struct LeavesTheBackoffToTheExecutor {};
TEST_F(SimTest, TheExecutorsBackoffIsSkippedForAProtocolThatBacksOffItself) {
  static_assert(HasOwnBackoff<BacksOffItself> && !HasOwnBackoff<LeavesTheBackoffToTheExecutor>);
  EngineConfig cfg;
  cfg.backoff_max_us = 100;
  uint64_t own = 0, executors = 0;
  ThreadGroup g;
  g.spawn([&] {
    Random rng(7);
    backoff_after_abort<BacksOffItself>(cfg, rng, 20);
    own = now_ns();
    backoff_after_abort<LeavesTheBackoffToTheExecutor>(cfg, rng, 20);
    executors = now_ns() - own;
  });
  g.run([] {});
  EXPECT_EQ(own, 0u);
  EXPECT_GT(executors, 0u);
  EXPECT_LE(executors, 100'000u);
}

// The model's policy is declared with the word (engine/core/shared.h). Core 0
// writes two modelled words of a row header through one write_line scope and
// bumps its Modelled::kNo count: one charged write (a fresh line: 2 ns; a
// charge per word would be 4, the count's RMW 5 more), the count nothing.
// Core 1, after an index probe (10 ns), reads the
// count (nothing), then one modelled word: 2 ns plus a 100 ns transfer; the
// other word's reread() is not charged (the line is now its own).
TEST_F(SimTest, TheModelsPolicyIsTheWordsAndALineScopeChargesOnce) {
  struct alignas(64) Header {
    Shared<uint64_t> a{0};
    Shared<uint64_t> b{0};
    Shared<uint64_t, Modelled::kNo> count{0};
  };
  Header h;
  uint64_t t0 = 0, t1_count = 0, t1_end = 0, sum = 0;
  ThreadGroup g;
  g.spawn([&] {
    const auto row = write_line(h);
    row[h.a].store(1);
    row[h.b].store(2);
    h.count.fetch_add(1);
    t0 = now_ns();
  });
  g.spawn([&] {
    charge(Op::kIndexProbe);
    sum += h.count.load();
    t1_count = now_ns();
    sum += h.a.load();
    sum += h.b.reread();
    t1_end = now_ns();
  });
  g.run([] {});
  EXPECT_EQ(t0, 2u);

  EXPECT_EQ(t1_count, 10u);
  EXPECT_EQ(t1_end, 112u);
  EXPECT_EQ(sum, 4u);
}

// A commit latch (lock_bit, engine/core/latch.h) held for 1000 ns by core 0

// while k - 1 = 4 cores wait for it. Their first tries are RMWs at 10 ns,
// serialized behind core 0's (which ends at 5): core i's ends at
// 10 + i * 105 (5 ns plus a 100 ns transfer each). Then they wait on reads of
// their cached copy, which do not occupy the line, so core 0's release (an
// RMW at 5 + 100 * 10 = 1005 ns) starts at once and ends at 1005 + 5 + 100
// (the waiters' copies are invalidated: a transfer) = 1110 ns, however many
// wait. (Issue 46: when every waiting round was an RMW, the release queued
// behind the waiters' rounds, and each waiter made it later.)
TEST_F(SimTest, ALatchHoldersReleaseDoesNotQueueBehindItsWaiters) {
  constexpr int k = 5;
  Shared<uint64_t> latch{0};
  uint64_t released = 0, holder_queued_ps = 0;
  std::vector<int> acquired(k, 0);
  ThreadGroup g;
  for (int i = 0; i < k; ++i)
    g.spawn([&, i] {
      if (i > 0) charge(Op::kIndexProbe);  // core 0 takes the latch first
      lock_bit<1>(latch);
      ++acquired[i];
      if (i == 0) {
        for (int p = 0; p < 100; ++p) charge(Op::kIndexProbe);
        const uint64_t queued = static_cast<detail::Clock*>(detail::hot.current)->now_ps;
        unlock_bit<1>(latch);
        released = now_ns();
        holder_queued_ps = released * 1000 - queued - 105 * 1000;  // the release's wait for the line
      } else {
        unlock_bit<1>(latch);
      }
    });
  g.run([] {});
  EXPECT_EQ(released, 1110u);
  EXPECT_EQ(holder_queued_ps, 0u);
  EXPECT_EQ(last_run().cores[0].ps[static_cast<size_t>(TimeKind::kRmwQueued)], 0u);
  for (int i = 0; i < k; ++i) EXPECT_EQ(acquired[i], 1) << i;
  EXPECT_EQ(latch.load() & 1, 0u);
}

// The other kinds: spin rounds (3 ns each), a sleep, a shared read (2 ns),
// a park until another core's unpark (no wake-up: woken within its 16
// polling rounds). And the measured interval's marks: the window runs from
// each core's clock at the start mark to its clock at the end mark.
TEST_F(SimTest, TimeBreakdownKindsAndTheMeasuredInterval) {
  alignas(64) uint64_t word = 0;
  WaitList list(kAtomicWaitSpinRounds);
  bool woken = false;
  ThreadGroup g;
  g.spawn([&] {
    for (int i = 0; i < 3; ++i) spin(__FILE__, __LINE__);  // 9 ns
    sleep_until_ns(100);                                     // 91 ns
    touch(&word, false);                                     // 2 ns
    while (!woken) list.wait();                              // parked from 102 to 130
  });
  g.spawn([&] {
    sleep_until_ns(100);  // idle: sleep
    delay_until_ns(130);  // a workload's modelled work: delay, not sleep
    woken = true;
    list.notify_all();
  });
  g.run([] {});
  const RunStats& r = last_run();
  ASSERT_EQ(r.cores.size(), 2u);
  auto ns = [&](TimeKind kind) { return r.cores[0].ps[static_cast<size_t>(kind)] / 1000; };
  EXPECT_EQ(ns(TimeKind::kSpin), 9u);
  EXPECT_EQ(r.cores[0].spin_rounds, 3u);
  EXPECT_EQ(ns(TimeKind::kSleep), 91u);
  EXPECT_EQ(ns(TimeKind::kSharedAccess), 2u);
  EXPECT_EQ(ns(TimeKind::kParked), 28u);
  EXPECT_EQ(ns(TimeKind::kLocalWork), 0u);
  EXPECT_EQ(ns(TimeKind::kIdle), 0u);
  EXPECT_EQ(ns(TimeKind::kDelay), 0u);
  EXPECT_EQ(r.cores[1].ps[static_cast<size_t>(TimeKind::kSleep)] / 1000, 100u);
  EXPECT_EQ(r.cores[1].ps[static_cast<size_t>(TimeKind::kDelay)] / 1000, 30u);

  // The marks, from the main body at 50 and 150 virtual ns: core 0 runs
  // index probes (10 ns) and is due after the main body only once it is
  // past it, so its window is [60, 160]: 100 ns of local work. Core 1 is
  // parked from 0 to 200 (a wait that polls: no wake-up): its window is the
  // marks', [50, 150], all parked.
  ThreadGroup h;
  bool stop = false;
  WaitList polls(kPollSpinRounds);
  h.spawn([&] {
    while (!stop) charge(Op::kIndexProbe);
  });
  h.spawn([&] {
    while (!stop) polls.wait();
  });
  h.run([&] {
    sleep_until_ns(50);
    measured_interval(true);
    sleep_until_ns(150);
    measured_interval(false);
    sleep_until_ns(200);
    stop = true;
    polls.notify_all();
  });
  const RunStats& m = last_run();
  EXPECT_TRUE(m.measured_window);
  EXPECT_DOUBLE_EQ(m.window_seconds, 100e-9);
  ASSERT_EQ(m.cores.size(), 2u);
  EXPECT_EQ(m.cores[0].ps[static_cast<size_t>(TimeKind::kLocalWork)] / 1000, 100u);
  EXPECT_EQ(m.cores[1].ps[static_cast<size_t>(TimeKind::kParked)] / 1000, 100u);
  EXPECT_EQ(m.cores[1].ps[static_cast<size_t>(TimeKind::kLocalWork)], 0u);
}

// A wait that nobody will end: once every fiber left is parked, the
// simulation exits 1 naming the park site.
void planted_wait() {
  WaitList never(kAtomicWaitSpinRounds);
  ThreadGroup g;
  g.spawn([&] { never.wait(); });  // the planted wait: nobody notifies
  g.spawn([] { charge(Op::kRowRead); });  // ends at once
  g.run([] {});
}
TEST(SimDeadlockDeathTest, NamesTheParkSite) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(planted_wait(), ::testing::ExitedWithCode(1), "sim deadlock: every fiber left is parked.*sim_test\\.cpp:[0-9]+");
}

// A spin that no other fiber will ever end: the watchdog names its site and
// exits 1 once --sim_watchdog_events spins in a row made no progress.
void planted_spin() {
  SimOptions o;
  o.watchdog_events = 1000;
  configure(o, round_costs());
  std::atomic<bool> never{false};
  ThreadGroup g;
  g.spawn([&] {
    while (!never.load()) cpu_relax();  // the planted spin: nobody sets the flag
  });
  g.spawn([] { charge(Op::kRowRead); });  // ends at once
  g.run([] {});
}
TEST(SimWatchdogDeathTest, NamesThePlantedSpinSite) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(planted_spin(), ::testing::ExitedWithCode(1), "sim watchdog: 1001 events in a row were spins.*sim_test\\.cpp:[0-9]+");
}

// A livelock the spin watchdog cannot see: a core polls a latch word that
// nobody frees, a shared read (progress for that watchdog) between its spin
// rounds, as SpinLatch::lock does. No core commits: the stall watchdog
// (--sim_watchdog_stall_s, 1 virtual µs here) exits 4 naming the spin site.
void planted_livelock() {
  SimOptions o;
  o.watchdog_stall_s = 1e-6;
  configure(o, round_costs());
  alignas(64) std::atomic<bool> held{true};
  ThreadGroup g;
  g.spawn([&] {
    for (;;) {
      touch(&held, false);
      if (!held.load()) break;
      cpu_relax();  // the planted spin: nobody frees the word
    }
  });
  g.spawn([] { charge(Op::kRowRead); });
  g.run([] {});
}
TEST(SimWatchdogDeathTest, TheStallWatchdogNamesWhereTheCoresSpun) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(planted_livelock(), ::testing::ExitedWithCode(4),
              "no virtual core committed for 0.000001 virtual s.*core 0: last spun at .*sim_test\\.cpp:[0-9]+");
}

// Commits keep it quiet: a core that commits every 100 virtual ns runs for
// 20 µs under a 1 µs bound.
TEST_F(SimTest, CommitsKeepTheStallWatchdogQuiet) {
  SimOptions o;
  o.watchdog_stall_s = 1e-6;
  configure(o, round_costs());
  alignas(64) uint64_t word = 0;
  ThreadGroup g;
  g.spawn([&] {
    while (now_ns() < 20000) {
      for (int i = 0; i < 10; ++i) {
        touch(&word, false);
        spin(__FILE__, __LINE__);
      }
      committed();
    }
  });
  g.run([] {});
  EXPECT_GE(last_run().cores.at(0).spin_rounds, 20000u / 50);
}

}  // namespace
}  // namespace ccb::sim
