// TSgen (partitioners/tspar/tsgen.h) on the TSKD paper's worked examples
// (§1 Examples 1-2, §2.2 Example 3, §4 Example 4): W0 =
// T1..T5 with unit-time reads and writes, P1 = {T1, T2, T3}, P2 = {T4},
// R = {T5}, 2 cores. Makespans come from a small two-core simulator below:
// 20 (partitions, then T5), 17 (T5 started early under OCC: T2 retries), 14
// (TSgen's schedule without CC) and 14 (Example 2 with the real TsDEFER,
// which defers T2). Then the RC-free property and the refinement P_i ⊆ Q_i on
// random bundles (with the key index and with a given conflict graph, which
// must agree), the cost model's fallbacks, and Strife as a Partitioner.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "engine/core/random.h"
#include "engine/exec/tsdefer.h"
#include "partitioners/residual.h"  // record_graph, accesses_by_key
#include "partitioners/schism/schism.h"
#include "partitioners/strife/strife_partitioner.h"
#include "partitioners/tspar/cost_model.h"
#include "partitioners/tspar/tskd_frontend.h"
#include "partitioners/tspar/tsgen.h"

namespace ccb::tspar {
namespace {

// Example 1 (ids 0..4 = T1..T5); key x_i = i. Reads of written items are
// read-modify-writes (write set only), as the workloads describe them.
std::vector<TxnDesc> w0() {
  auto d = [](uint64_t id, std::vector<GlobalKey> rs, std::vector<GlobalKey> ws) {
    TxnDesc t;
    t.id = id;
    t.read_set = std::move(rs);
    t.write_set = std::move(ws);
    return t;
  };
  return {d(0, {}, {2, 3, 4}),  // T1 = R[x2]W[x2]R[x3]W[x3]R[x4]W[x4]
          d(1, {}, {1, 2}),     // T2 = R[x1]W[x2]W[x1]
          d(2, {}, {2, 3}),     // T3 = R[x3]W[x3]R[x2]R[x3]W[x2]
          d(3, {}, {5, 6}),     // T4 = R[x5]W[x5]R[x6]W[x6]
          d(4, {}, {1, 5})};    // T5 = R[x1]W[x1]R[x5]W[x5]R[x1]W[x1]
}
// Each read or write takes one unit (Example 1).
const std::vector<double> kW0Time = {6, 3, 5, 4, 6};

bool conflict(const TxnDesc& a, const TxnDesc& b) {
  auto meets = [](const std::vector<GlobalKey>& x, const std::vector<GlobalKey>& y) {
    for (GlobalKey k : x)
      if (std::find(y.begin(), y.end(), k) != y.end()) return true;
    return false;
  };
  return meets(a.write_set, b.write_set) || meets(a.write_set, b.read_set) || meets(a.read_set, b.write_set);
}

Partitioning example_partition() {
  Partitioning p;
  p.parts = {{0, 1, 2}, {3}};
  p.residual = {4};
  return p;
}

std::vector<std::vector<uint32_t>> graph_of(const std::vector<TxnDesc>& w) {
  std::vector<std::vector<uint32_t>> g(w.size());
  for (uint32_t a = 0; a < w.size(); ++a)
    for (uint32_t b = 0; b < w.size(); ++b)
      if (a != b && conflict(w[a], w[b])) g[a].push_back(b);
  return g;
}

// A two-core (n-core) run in unit time steps. Each core takes its next
// transaction from a list, or from TsDEFER (then regPos after each commit).
// With `occ`, a transaction that ends while a conflicting transaction that
// started earlier still runs on another core aborts and restarts at once
// (the older one wins; Example 2's OCC reading, "T2 retries due to conflict
// with T5"); without, transactions never abort (schedule semantics).
struct Sim {
  Sim(const std::vector<TxnDesc>& w, const std::vector<double>& time) : w(w), time(time) {}
  const std::vector<TxnDesc>& w;
  const std::vector<double>& time;
  bool occ = true;
  TsDefer* defer = nullptr;  // lane t = lists[t], ids = positions in lists[t]
  std::vector<std::vector<uint32_t>> order;  // per core: the commit order
  int retries = 0;

  double run(const std::vector<std::vector<uint32_t>>& lists) {
    const int n = static_cast<int>(lists.size());
    struct Core {
      std::optional<uint32_t> txn;
      double start = 0, end = 0;
      size_t next = 0;
    };
    std::vector<Core> cores(n);
    order.assign(n, {});
    Random rng(7);
    auto fetch = [&](int c, double now) {
      Core& core = cores[c];
      std::optional<uint32_t> t;
      if (defer) {
        if (auto id = defer->next(c, rng)) t = lists[c][*id];
      } else if (core.next < lists[c].size()) {
        t = lists[c][core.next++];
      }
      core.txn = t;
      if (t) core.start = now, core.end = now + time[*t];
    };
    for (int c = 0; c < n; ++c) fetch(c, 0);
    double now = 0, makespan = 0;
    for (int step = 0; step < 1000; ++step, ++now) {
      bool any = false;
      for (int c = 0; c < n; ++c) {
        Core& core = cores[c];
        if (!core.txn) continue;
        any = true;
        if (core.end != now) continue;
        bool abort = false;
        for (int o = 0; o < n && occ; ++o) {
          const Core& other = cores[o];
          if (o != c && other.txn && conflict(w[*core.txn], w[*other.txn]) && other.start < core.start &&
              other.end > now)
            abort = true;
        }
        if (abort) {
          ++retries;
          core.start = now, core.end = now + time[*core.txn];
          continue;
        }
        order[c].push_back(*core.txn);
        makespan = std::max(makespan, now);
        if (defer) defer->reg_pos(c);
        fetch(c, now);
      }
      if (!any) break;
    }
    return makespan;
  }
};

TEST(TsgenExample, Example4ScheduleFromThePartition) {
  const auto w = w0();
  Tsgen tsgen(1, ResidualOrder::kGiven);
  Schedule s;
  tsgen.schedule(w, example_partition(), kW0Time, s);
  EXPECT_EQ(s.queues, (std::vector<std::vector<uint32_t>>{{1, 0, 2}, {3, 4}}));  // Q1 = <T2, T1, T3>, Q2 = <T4, T5>
  EXPECT_TRUE(s.rs.empty());
  EXPECT_EQ(s.load, (std::vector<double>{14, 10}));
}

TEST(TsgenExample, Example4WithThePartitionersConflictGraph) {
  const auto w = w0();
  Partitioning p = example_partition();
  p.conflicts = graph_of(w);
  Tsgen tsgen(1, ResidualOrder::kGiven);
  Schedule s;
  tsgen.schedule(w, p, kW0Time, s);
  EXPECT_EQ(s.queues, (std::vector<std::vector<uint32_t>>{{1, 0, 2}, {3, 4}}));
  EXPECT_TRUE(s.rs.empty());
}

TEST(TsgenExample, T5GoesToRsWhenItWouldOverlapT2) {
  // T2 made as long as T4 (4 units): T5 on core 2 would start at 4 while T2
  // (pulled to the front of Q1) runs over [0, 4): still RC-free (touching).
  // At 5 units T2 overlaps T5's [4, 10): T5 is a runtime conflict -> R_s.
  const auto w = w0();
  std::vector<double> time = kW0Time;
  time[1] = 4;
  Tsgen tsgen(1, ResidualOrder::kGiven);
  Schedule s;
  tsgen.schedule(w, example_partition(), time, s);
  EXPECT_TRUE(s.rs.empty());
  time[1] = 5;
  tsgen.schedule(w, example_partition(), time, s);
  EXPECT_EQ(s.rs, (std::vector<uint32_t>{4}));
  EXPECT_EQ(s.queues, (std::vector<std::vector<uint32_t>>{{1, 0, 2}, {3}}));
}

TEST(TsgenExample, Example1MakespanOfThePartitionIs20) {
  const auto w = w0();
  Sim sim{w, kW0Time};
  // Phase 1: the partitions without CC; phase 2: R = {T5} after the barrier.
  const double phase1 = sim.run({{0, 1, 2}, {3}});
  const double phase2 = sim.run({{4}, {}});
  EXPECT_EQ(phase1 + phase2, 20);
}

TEST(TsgenExample, Example2OccMakespanIs17WithARetryOfT2) {
  const auto w = w0();
  Sim sim{w, kW0Time};
  EXPECT_EQ(sim.run({{0, 1, 2}, {3, 4}}), 17);
  EXPECT_EQ(sim.retries, 1);
}

TEST(TsgenExample, Example3ScheduleMakespanIs14WithoutCC) {
  const auto w = w0();
  Tsgen tsgen(1, ResidualOrder::kGiven);
  Schedule s;
  tsgen.schedule(w, example_partition(), kW0Time, s);
  Sim sim{w, kW0Time};
  sim.occ = true;  // a runtime conflict would show as a retry
  EXPECT_EQ(sim.run(s.queues), 14);
  EXPECT_EQ(sim.retries, 0);
}

TEST(TsgenExample, Example2WithTsDeferDefersT2AndTakes14) {
  const auto w = w0();
  TsDeferOptions o;
  o.lookups = 2;
  o.deferp = 1.0;  // Example 5: deferp% = 100%
  TsDefer defer(o, 2);
  const std::vector<std::vector<uint32_t>> lists = {{0, 1, 2}, {3, 4}};
  for (int t = 0; t < 2; ++t) {
    std::vector<TsDeferSet> sets;
    for (uint32_t i : lists[t]) sets.push_back(TsDeferSet::from_sorted_desc(w[i]));
    defer.assign(t, std::move(sets), TsDefer::Replay::kNo);
  }
  Sim sim{w, kW0Time};
  sim.defer = &defer;
  EXPECT_EQ(sim.run(lists), 14);
  EXPECT_EQ(sim.retries, 0);
  EXPECT_EQ(sim.order[0], (std::vector<uint32_t>{0, 2, 1}));  // T1, T3, then the deferred T2
  EXPECT_EQ(defer.total_stats().deferrals, 1u);
}

// A random bundle: n transactions of 1 to max_accesses accesses to keys
// [base, base + keys), each a write with probability write_p (a key read
// and written is a write), and times 1-9.
void random_bundle(Random& rng, uint32_t n, GlobalKey base, uint64_t keys, uint64_t max_accesses, double write_p,
                   std::vector<TxnDesc>& w, std::vector<double>& time) {
  w.assign(n, TxnDesc{});
  time.assign(n, 0.0);
  for (uint32_t i = 0; i < n; ++i) {
    std::set<GlobalKey> rs, ws;
    for (int a = 0, m = 1 + static_cast<int>(rng.below(max_accesses)); a < m; ++a) {
      const GlobalKey key = base + rng.below(keys);
      if (rng.chance(write_p)) ws.insert(key); else rs.insert(key);
    }
    for (GlobalKey key : ws) rs.erase(key);
    w[i].id = i;
    w[i].read_set.assign(rs.begin(), rs.end());
    w[i].write_set.assign(ws.begin(), ws.end());
    time[i] = 1 + static_cast<double>(rng.below(9));
  }
}

// Random bundles: the schedule covers W once, refines the partition
// (P_i ⊆ Q_i), and no two conflicting transactions of
// different queues overlap in scheduled runtime. The key index and the
// conflict graph give the same schedule.
TEST(TsgenProperty, RcFreeAndRefinesOnRandomBundles) {
  Random rng(11);
  for (int round = 0; round < 200; ++round) {
    const uint32_t n = 2 + static_cast<uint32_t>(rng.below(60));
    const uint32_t k = 1 + static_cast<uint32_t>(rng.below(4));
    const uint64_t keys = 2 + rng.below(40);
    std::vector<TxnDesc> w;
    std::vector<double> time;
    random_bundle(rng, n, 0, keys, 5, 0.5, w, time);
    // A valid input partition: transactions whose keys all fall in key
    // range part j (keys mod k... by key / span) go to P_j; the rest is R.
    Partitioning p;
    p.parts.assign(k, {});
    const uint64_t span = (keys + k - 1) / k;
    for (uint32_t i = 0; i < n; ++i) {
      std::set<uint64_t> ranges;
      for (GlobalKey key : w[i].read_set) ranges.insert(key / span);
      for (GlobalKey key : w[i].write_set) ranges.insert(key / span);
      if (ranges.size() == 1 && rng.chance(0.7)) p.parts[*ranges.begin()].push_back(i);
      else p.residual.push_back(i);
    }
    ASSERT_EQ(p.validate(n), "");
    Schedule s1, s2;
    Tsgen(round).schedule(w, p, time, s1);
    Partitioning pg = p;
    pg.conflicts = graph_of(w);
    Tsgen(round).schedule(w, pg, time, s2);
    EXPECT_EQ(s1.queues, s2.queues) << "round " << round;
    EXPECT_EQ(s1.rs, s2.rs) << "round " << round;

    std::vector<int> queue_of(n, -1);
    std::vector<double> ts(n), tc(n);
    size_t seen = s1.rs.size();
    for (uint32_t q = 0; q < k; ++q) {
      double at = 0;
      for (uint32_t t : s1.queues[q]) {
        ASSERT_EQ(queue_of[t], -1);
        queue_of[t] = static_cast<int>(q);
        ts[t] = at, tc[t] = at += time[t];
        ++seen;
      }
      EXPECT_DOUBLE_EQ(s1.load[q], at);
      // Refinement: P_q ⊆ Q_q.
      for (uint32_t t : p.parts[q])
        EXPECT_NE(std::find(s1.queues[q].begin(), s1.queues[q].end(), t), s1.queues[q].end()) << "round " << round;
    }
    EXPECT_EQ(seen, n);
    for (uint32_t a = 0; a < n; ++a)
      for (uint32_t b = a + 1; b < n; ++b)
        if (queue_of[a] >= 0 && queue_of[b] >= 0 && queue_of[a] != queue_of[b] && conflict(w[a], w[b])) {
          EXPECT_FALSE(ts[a] < tc[b] && ts[b] < tc[a]) << "round " << round << ": runtime conflict " << a << "/" << b;
        }
  }
}

// Algorithm 1 by brute force (O(|W|^2)): lines 6-8 pull every P-transaction
// conflicting with T*, in (partition, position) order; ckRCF compares T*'s
// runtime at the end of Q_l with every conflicting transaction placed in
// another queue. R⃗ is p.residual's order (ResidualOrder::kGiven).
Schedule algorithm1_by_brute_force(const std::vector<TxnDesc>& w, const Partitioning& p,
                                   const std::vector<double>& time) {
  const uint32_t k = static_cast<uint32_t>(p.parts.size());
  Schedule s;
  s.queues.assign(k, {});
  s.load.assign(k, 0.0);
  std::vector<double> len(k, 0.0), ts(w.size()), tc(w.size());
  std::vector<int> part_of(w.size(), -1), queue_of(w.size(), -1);
  for (uint32_t i = 0; i < k; ++i)
    for (uint32_t t : p.parts[i]) part_of[t] = static_cast<int>(i), len[i] += time[t];
  auto place = [&](uint32_t t, uint32_t q) {
    queue_of[t] = static_cast<int>(q);
    part_of[t] = -1;
    ts[t] = s.load[q];
    tc[t] = s.load[q] += time[t];
    s.queues[q].push_back(t);
  };
  for (uint32_t t_star : p.residual) {
    const uint32_t l = static_cast<uint32_t>(std::min_element(len.begin(), len.end()) - len.begin());
    for (uint32_t i = 0; i < k; ++i)
      for (uint32_t u : p.parts[i])
        if (part_of[u] == static_cast<int>(i) && conflict(w[u], w[t_star])) place(u, i);
    const double start = s.load[l], end = start + time[t_star];
    bool rc_free = true;
    for (uint32_t u = 0; u < w.size(); ++u)
      if (queue_of[u] >= 0 && queue_of[u] != static_cast<int>(l) && conflict(w[u], w[t_star]) && ts[u] < end &&
          start < tc[u])
        rc_free = false;
    if (rc_free) {
      place(t_star, l);
      len[l] += time[t_star];
    } else {
      s.rs.push_back(t_star);
    }
  }
  for (uint32_t i = 0; i < k; ++i)
    for (uint32_t t : p.parts[i])
      if (part_of[t] == static_cast<int>(i)) place(t, i);
  return s;
}

// One Tsgen per path, reused across bundles of changing size, key count and
// k up to 32 (as the front-end reuses its Tsgen), must schedule every bundle
// as Algorithm 1 by brute force: nothing of one bundle's key index or
// runtime lists may leak into the next.
TEST(TsgenProperty, ReusedTsgenMatchesAlgorithm1ByBruteForce) {
  Random rng(23);
  Tsgen by_keys(1, ResidualOrder::kGiven), by_graph(1, ResidualOrder::kGiven), by_records(1, ResidualOrder::kGiven);
  for (int round = 0; round < 300; ++round) {
    const uint32_t n = 1 + static_cast<uint32_t>(rng.below(120));
    const uint32_t k = 1 + static_cast<uint32_t>(rng.below(32));
    const uint64_t keys = 1 + rng.below(round % 2 ? 8 : 400);  // hot and cold key spaces
    std::vector<TxnDesc> w;
    std::vector<double> time;
    random_bundle(rng, n, 1000 * static_cast<GlobalKey>(round), keys, 6, 0.4, w, time);  // new keys every round
    // Any valid partition will do (TSgen's output is defined for all):
    // random parts, in random order, and a random residual order.
    Partitioning p;
    p.parts.assign(k, {});
    for (uint32_t i = 0; i < n; ++i) {
      if (rng.chance(0.5)) p.residual.push_back(i);
      else p.parts[rng.below(k)].push_back(i);
    }
    for (size_t i = p.residual.size(); i > 1; --i) std::swap(p.residual[i - 1], p.residual[rng.below(i)]);
    ASSERT_EQ(p.validate(n), "");
    const Schedule want = algorithm1_by_brute_force(w, p, time);
    Schedule got;
    by_keys.schedule(w, p, time, got);
    EXPECT_EQ(got.queues, want.queues) << "round " << round;
    EXPECT_EQ(got.rs, want.rs) << "round " << round;
    EXPECT_EQ(got.load, want.load) << "round " << round;
    Partitioning pg = p;
    pg.conflicts = graph_of(w);
    by_graph.schedule(w, pg, time, got);
    EXPECT_EQ(got.queues, want.queues) << "round " << round << " (graph)";
    EXPECT_EQ(got.rs, want.rs) << "round " << round << " (graph)";
    // The partitioner's records (Schism's co-access vertices) instead of TSgen's own key index.
    Partitioning pr = p;
    record_graph(accesses_by_key(w), n, pr);
    ASSERT_EQ(pr.validate(n), "");
    by_records.schedule(w, pr, time, got);
    EXPECT_EQ(got.queues, want.queues) << "round " << round << " (records)";
    EXPECT_EQ(got.rs, want.rs) << "round " << round << " (records)";
    EXPECT_EQ(got.load, want.load) << "round " << round << " (records)";
  }
}

// record_graph: the records some transaction writes and at least two access,
// each transaction's accesses to them (Partitioning::record_*).
TEST(RecordGraph, ConflictRecordsOnlyWithTheirAccesses) {
  // T0 writes 7 and reads 3; T1 reads 7 and 3; T2 writes 9 (alone); T3 reads 3.
  std::vector<TxnDesc> w(4);
  w[0].write_set = {7}, w[0].read_set = {3};
  w[1].read_set = {3, 7};
  w[2].write_set = {9};
  w[3].read_set = {3};
  for (uint32_t i = 0; i < 4; ++i) w[i].id = i;
  Partitioning p;
  p.parts = {{0, 1, 2, 3}};
  record_graph(accesses_by_key(w), 4, p);
  ASSERT_EQ(p.validate(4), "");
  EXPECT_EQ(p.records, 1u);  // 7 only: 3 is read-only, 9 has one accessor
  EXPECT_EQ(p.record_offsets, (std::vector<uint32_t>{0, 1, 2, 2, 2}));
  ASSERT_EQ(p.record_accesses.size(), 2u);
  EXPECT_TRUE(p.record_accesses[0].record == 0 && p.record_accesses[0].write);
  EXPECT_TRUE(p.record_accesses[1].record == 0 && !p.record_accesses[1].write);
}

// TSKD[C] with TSgen on Schism's records (hand_over_conflicts) plans exactly
// what it plans with TSgen's own key index (a Schism that hands nothing over).
TEST(TskdFrontend, SchismsRecordsGiveTheScheduleOfTheKeyIndex) {
  class Withheld final : public Partitioner {  // Schism, its records not handed over
   public:
    void partition(std::span<const TxnDesc> b, unsigned k, Partitioning& out) override {
      schism_.partition(b, k, out);
    }
    const char* name() const override { return "schism"; }
    bool gives_residual() const override { return false; }

   private:
    schism::SchismPartitioner schism_{schism::Options{}};
  };
  Random rng(41);
  for (int round = 0; round < 20; ++round) {
    const uint32_t n = 50 + static_cast<uint32_t>(rng.below(400));
    std::vector<TxnDesc> w;
    std::vector<double> time;
    random_bundle(rng, n, 0, 20 + rng.below(2000), 8, 0.5, w, time);
    TskdOptions o;
    o.threads = 2 + static_cast<unsigned>(rng.below(6));
    o.seed = static_cast<uint64_t>(round) + 1;
    TskdFrontend by_records(o, schism::make_schism()), by_keys(o, std::make_unique<Withheld>());
    BundlePlan a, b;
    a.per_thread.resize(o.threads), b.per_thread.resize(o.threads);
    by_records.plan(w, a);
    by_keys.plan(w, b);
    ASSERT_EQ(a.per_thread.size(), b.per_thread.size());
    for (size_t t = 0; t < a.per_thread.size(); ++t) {
      ASSERT_EQ(a.per_thread[t].size(), b.per_thread[t].size()) << "round " << round;
      for (size_t q = 0; q < a.per_thread[t].size(); ++q)
        EXPECT_EQ(a.per_thread[t][q].txns, b.per_thread[t][q].txns) << "round " << round;
    }
    EXPECT_EQ(a.residuals, b.residuals) << "round " << round;
  }
}

// The key index's lookups run in chunks on the front-end's team
// (BundleFrontend::for_chunks): whatever the chunking and however many
// threads run the chunks at once, the schedule is the one of a single
// participant (issue 45 item 4).
TEST(TsgenProperty, ChunkedIndexGivesTheScheduleOfOneParticipant) {
  Random rng(31);
  Tsgen one(1, ResidualOrder::kGiven), many(1, ResidualOrder::kGiven);
  for (int round = 0; round < 200; ++round) {
    const uint32_t n = 1 + static_cast<uint32_t>(rng.below(300));
    const uint32_t k = 1 + static_cast<uint32_t>(rng.below(16));
    const uint64_t keys = 1 + rng.below(round % 2 ? 10 : 600);
    std::vector<TxnDesc> w;
    std::vector<double> time;
    random_bundle(rng, n, 1000 * static_cast<GlobalKey>(round), keys, 6, 0.4, w, time);
    Partitioning p;
    p.parts.assign(k, {});
    for (uint32_t i = 0; i < n; ++i) {
      if (rng.chance(0.3)) p.residual.push_back(i);
      else p.parts[rng.below(k)].push_back(i);
    }
    ASSERT_EQ(p.validate(n), "");
    const size_t participants = 2 + rng.below(6);
    // Uneven chunks (a chunk of 1, the rest split), each on its own thread.
    auto threaded = [participants](size_t total, const std::function<void(size_t, size_t)>& body) {
      std::vector<std::thread> team;
      size_t begin = 0;
      for (size_t c = 0; c < participants && begin < total; ++c) {
        const size_t end = c + 1 == participants ? total : std::min(total, begin + (c == 0 ? 1 : total / participants));
        team.emplace_back(body, begin, end);
        begin = end;
      }
      if (begin < total) body(begin, total);
      for (std::thread& t : team) t.join();
    };
    Schedule want, got;
    one.schedule(w, p, time, want);
    many.schedule(w, p, time, got, threaded);
    EXPECT_EQ(got.queues, want.queues) << "round " << round;
    EXPECT_EQ(got.rs, want.rs) << "round " << round;
    EXPECT_EQ(got.load, want.load) << "round " << round;
    EXPECT_EQ(got.queues, algorithm1_by_brute_force(w, p, time).queues) << "round " << round;
  }
}

// The cost model's read-only lookup (the estimates' chunks on the team)
// knows what estimate() would answer without a new memo, and nothing else.
TEST(CostModel, KnownAnswersOnlyWhatNeedsNoNewMemo) {
  CostModel m;
  TxnDesc a, b;
  a.type = 0, a.read_set = {1, 2};
  b.type = 0, b.read_set = {1, 2, 3, 4};
  ASSERT_EQ(m.known(b), 4.0);  // empty history: the access-set size
  m.observe(a, 100);
  EXPECT_EQ(m.known(a), 100.0);
  EXPECT_EQ(m.known(b), std::nullopt);  // the nearest entry, not yet estimated
  EXPECT_EQ(m.estimate(b), 200.0);      // scaled to the size
  EXPECT_EQ(m.known(b), 200.0);         // memoized
}

// Without an input partition (TSKD[O]) every transaction is residual; with
// no conflicts at all TSgen schedules everything, balanced by time.
TEST(TsgenProperty, NoPartitionNoConflictsSchedulesAllBalanced) {
  std::vector<TxnDesc> w(8);
  std::vector<double> time(8, 2.0);
  Partitioning p;
  p.parts.assign(2, {});
  for (uint32_t i = 0; i < 8; ++i) {
    w[i].id = i;
    w[i].write_set = {GlobalKey{i}};
    p.residual.push_back(i);
  }
  Schedule s;
  Tsgen().schedule(w, p, time, s);
  EXPECT_TRUE(s.rs.empty());
  EXPECT_EQ(s.load, (std::vector<double>{8, 8}));
}

TEST(CostModel, HistoryThenNearestSizeThenPerKeyThenSize) {
  CostModel m;
  TxnDesc a;
  a.type = 1;
  a.write_set = {1, 2};
  EXPECT_EQ(m.estimate(a), 2);  // empty history: the access-set size
  m.observe(a, 100);
  m.observe(a, 300);
  EXPECT_EQ(m.estimate(a), 200);  // same type and size: the mean
  TxnDesc b = a;
  b.write_set = {1, 2, 3, 4};
  EXPECT_EQ(m.estimate(b), 400);  // same type, nearest size 2, scaled by 4 / 2
  TxnDesc c = b;
  c.type = 9;
  EXPECT_EQ(m.estimate(c), 400);  // unseen type: 4 keys x 100 ns per key
  EXPECT_EQ(m.samples(), 2u);
}

// TSKD §3's "same parameters": YCSB-like transactions of one type and size
// whose cost is set by the runtime-skew rank (cost_params[0]). Each rank in the
// history gets its own mean; an unseen rank takes the nearest one's.
TEST(CostModel, SameParametersThenNearestParameters) {
  CostModel m;
  auto txn = [](uint32_t rank, uint32_t io) {
    TxnDesc d;
    d.type = 0;
    d.write_set = {1, 2, 3, 4};
    d.cost_params = {rank, io};
    return d;
  };
  m.observe(txn(1, 0), 100);
  m.observe(txn(10, 0), 1000);
  m.observe(txn(10, 0), 1200);
  EXPECT_EQ(m.estimate(txn(1, 0)), 100);
  EXPECT_EQ(m.estimate(txn(10, 0)), 1100);
  EXPECT_EQ(m.estimate(txn(8, 0)), 1100);  // nearest rank: 10
  EXPECT_EQ(m.estimate(txn(3, 0)), 100);   // nearest rank: 1
  EXPECT_EQ(m.estimate(txn(9, 2)), 1100);  // |9 - 10| + |2 - 0| = 3 < 8 + 2
  TxnDesc bigger = txn(1, 0);
  bigger.read_set = {5, 6, 7, 8};
  EXPECT_EQ(m.estimate(bigger), 200);  // same parameters but the size: scaled by 8 / 4
  EXPECT_EQ(m.estimate(txn(7, 0)), 1100);  // nearest rank: 10 (remembered)
  m.observe(txn(8, 0), 50);                // the history changed: nearest rank 8
  EXPECT_EQ(m.estimate(txn(7, 0)), 50);
}

// Random histories against a brute-force reading of the rule: exact match;
// else, of the same type, minimal (parameter distance, size distance) in
// (type, parameters, size) order, scaled by size; else time per key.
TEST(CostModel, MatchesTheRuleByBruteForceOnRandomHistories) {
  Random rng(17);
  for (int round = 0; round < 30; ++round) {
    CostModel m;
    struct Sample {
      TxnDesc d;
      double ns;
    };
    std::vector<Sample> history;
    auto random_txn = [&] {
      TxnDesc d;
      d.type = static_cast<uint32_t>(rng.below(3));
      d.cost_params = {static_cast<uint32_t>(rng.below(6)), static_cast<uint32_t>(rng.below(3))};
      for (uint64_t k = 0, n = 1 + rng.below(4); k < n; ++k) d.write_set.push_back(k);
      return d;
    };
    for (int i = 0, n = static_cast<int>(1 + rng.below(25)); i < n; ++i) {
      TxnDesc d = random_txn();
      if (d.type == 2) continue;  // type 2 stays unseen
      const double ns = static_cast<double>(1 + rng.below(1000));
      history.push_back({d, ns});
      m.observe(d, ns);
    }
    if (history.empty()) continue;
    auto key = [](const TxnDesc& d) { return std::make_tuple(d.type, d.cost_params, CostModel::set_size(d)); };
    for (int q = 0; q < 40; ++q) {
      const TxnDesc d = random_txn();
      std::map<decltype(key(d)), std::pair<double, int>> means;
      double ns = 0, keys = 0;
      for (const Sample& s : history) {
        auto& [sum, n] = means[key(s.d)];
        sum += s.ns, ++n;
        ns += s.ns, keys += static_cast<double>(CostModel::set_size(s.d));
      }
      double want = ns / keys * static_cast<double>(CostModel::set_size(d));
      if (auto it = means.find(key(d)); it != means.end()) {
        want = it->second.first / it->second.second;
      } else {
        std::optional<std::pair<std::pair<uint64_t, size_t>, double>> best;
        for (const auto& [k, mean] : means) {
          const auto& [type, params, size] = k;
          if (type != d.type) continue;
          uint64_t gap = 0;
          for (int i = 0; i < 2; ++i) gap += params[i] > d.cost_params[i] ? params[i] - d.cost_params[i] : d.cost_params[i] - params[i];
          const size_t want_size = CostModel::set_size(d);
          const std::pair<uint64_t, size_t> g{gap, size > want_size ? size - want_size : want_size - size};
          if (!best || g < best->first)
            best = {g, mean.first / mean.second * static_cast<double>(want_size) / static_cast<double>(size)};
        }
        if (best) want = best->second;
      }
      EXPECT_DOUBLE_EQ(m.estimate(d), want) << "round " << round << " query " << q;
    }
  }
}

// Strife as a Partitioner: k parts of CF clusters (no conflict between
// parts), residuals = Strife's, everything once.
TEST(StrifePartitioner, PartsAreConflictFreeAcrossAndCoverTheBundle) {
  Random rng(5);
  std::vector<TxnDesc> w(400);
  for (uint32_t i = 0; i < w.size(); ++i) {
    std::set<GlobalKey> ws;
    for (int a = 0; a < 3; ++a) ws.insert(rng.below(500));
    w[i].id = i;
    w[i].write_set.assign(ws.begin(), ws.end());
  }
  strife::Options o;
  o.k = 10;
  strife::StrifePartitioner sp(o);
  Partitioning p;
  sp.partition(w, 3, p);
  ASSERT_EQ(p.parts.size(), 3u);
  EXPECT_EQ(p.validate(w.size()), "");
  EXPECT_GT(p.partition_us, 0);
  for (uint32_t i = 0; i < 3; ++i)
    for (uint32_t j = i + 1; j < 3; ++j)
      for (uint32_t a : p.parts[i])
        for (uint32_t b : p.parts[j]) ASSERT_FALSE(conflict(w[a], w[b])) << a << " in P" << i << ", " << b << " in P" << j;
}

// TSKD over a partitioner without a residual (Schism, Horticulture): TSKD
// extracts R itself (§6.1, step "extract"), so the transactions in conflict
// across partitions reach TSgen as R; over Strife's (explicit residual) there
// is no extraction. The partitioner's time is the plan's input_partition_ns.
TEST(TskdFrontend, ExtractsTheResidualOfAPartitionerWithoutOne) {
  class TwoParts final : public Partitioner {
   public:
    void partition(std::span<const TxnDesc> b, unsigned k, Partitioning& out) override {
      out.parts.assign(k, {});
      for (uint32_t t = 0; t < b.size(); ++t) out.parts[t % 2].push_back(t);
    }
    const char* name() const override { return "two-parts"; }
    bool gives_residual() const override { return false; }
  };
  // 0 (P0) and 1 (P1) both write key 7; 2 (P0) and 3 (P1) touch their own keys.
  std::vector<TxnDesc> w(4);
  const std::vector<std::vector<GlobalKey>> writes = {{7}, {7}, {8}, {9}};
  for (uint32_t i = 0; i < 4; ++i) w[i].id = i, w[i].write_set = writes[i];
  TskdOptions o;
  o.variant = Variant::kTsdeferOnly;  // P_i as they are after the extraction: the test reads them back
  o.threads = 2;
  TskdFrontend fe(o, std::make_unique<TwoParts>());
  BundlePlan plan;
  plan.per_thread.resize(2);
  fe.plan(w, plan);
  EXPECT_EQ(plan.validate(w.size(), 2), "");
  EXPECT_EQ(plan.residuals, (std::vector<uint32_t>{0, 1}));
  ASSERT_EQ(plan.per_thread[0].size(), 1u);
  EXPECT_EQ(plan.per_thread[0][0].txns, (std::vector<uint32_t>{2}));
  EXPECT_EQ(plan.per_thread[1][0].txns, (std::vector<uint32_t>{3}));
  auto has_step = [&](const char* name) {
    return std::any_of(plan.step_us.begin(), plan.step_us.end(), [&](const auto& s) { return s.first == name; });
  };
  EXPECT_TRUE(has_step("extract"));
  EXPECT_FALSE(plan.input_as_is);  // TSKD's own analysis follows the partition
}

}  // namespace
}  // namespace ccb::tspar
