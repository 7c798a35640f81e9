// Hand-built histories for each anomaly the checker must recognise.
#include "engine/verify/checker.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "tests/verify/history_builder.h"
#include "tests/verify/oracle.h"

namespace ccb::verify {
namespace {

using testing::brute_force_serializable;
using testing::canonical_cycle;
using testing::dependency_holds;
using testing::HistoryBuilder;

constexpr GlobalKey kX = make_global_key(1, 10);
constexpr GlobalKey kY = make_global_key(1, 11);
constexpr GlobalKey kZ = make_global_key(2, 7);

// (kind, key) pairs of a witness edge, for compact assertions.
std::set<std::pair<EdgeKind, GlobalKey>> deps_of(const WitnessEdge& e) {
  std::set<std::pair<EdgeKind, GlobalKey>> s;
  for (const Dependency& d : e.deps) s.insert({d.kind, d.key});
  return s;
}

// The edge of a cycle witness that leaves transaction `from`.
const WitnessEdge& edge_from(const Violation& v, uint64_t from) {
  for (const WitnessEdge& e : v.edges)
    if (e.from_txn == from) return e;
  ADD_FAILURE() << "no witness edge leaves T" << from;
  return v.edges.front();
}

// Every witness must be a real cycle of real dependencies.
void expect_valid_cycle(const History& h, const Violation& v) {
  ASSERT_EQ(v.kind, ViolationKind::kCycle);
  ASSERT_GE(v.txns.size(), 2u);
  ASSERT_EQ(v.edges.size(), v.txns.size());
  for (size_t i = 0; i < v.edges.size(); ++i) {
    const WitnessEdge& e = v.edges[i];
    EXPECT_EQ(e.from_txn, v.txns[i]);
    EXPECT_EQ(e.to_txn, v.txns[(i + 1) % v.txns.size()]);
    ASSERT_FALSE(e.deps.empty());
    EXPECT_GE(e.deps_total, e.deps.size());
    for (const Dependency& d : e.deps)
      EXPECT_TRUE(dependency_holds(h, e.from_txn, e.to_txn, d))
          << "T" << e.from_txn << " -" << edge_kind_name(d.kind) << "(" << key_to_string(d.key) << ")-> T" << e.to_txn;
  }
}

CheckResult check_and_compare(const History& h) {
  CheckResult r = check_serializable(h);
  EXPECT_EQ(r.serializable, brute_force_serializable(h)) << r.violation.message;
  if (r.violation.kind == ViolationKind::kCycle) expect_valid_cycle(h, r.violation);
  return r;
}

TEST(Checker, EmptyHistoryIsSerializable) {
  const CheckResult r = check_serializable(History{});
  EXPECT_TRUE(r.serializable);
  EXPECT_EQ(r.violation.kind, ViolationKind::kNone);
  EXPECT_EQ(r.counts.txns, 0u);
}

TEST(Checker, SerialHistoryIsSerializableWithExactEdgeCounts) {
  const History h = HistoryBuilder()
                        .txn(1).rmw(kX, 0).rmw(kY, 0)
                        .txn(2).read(kX, 1).rmw(kY, 1)
                        .txn(3).rmw(kX, 1).read(kY, 2)
                        .build();
  const CheckResult r = check_and_compare(h);
  EXPECT_TRUE(r.serializable);
  EXPECT_EQ(r.counts.txns, 3u);
  EXPECT_EQ(r.counts.accesses, 6u);
  EXPECT_EQ(r.counts.reads, 6u);
  EXPECT_EQ(r.counts.writes, 4u);
  // x: T1 -ww-> T3, T1 -wr-> T2, T1 -wr-> T3, T2 -rw-> T3.
  // y: T1 -ww-> T2, T1 -wr-> T2, T2 -wr-> T3.
  EXPECT_EQ(r.counts.edges_ww, 2u);
  EXPECT_EQ(r.counts.edges_wr, 4u);
  EXPECT_EQ(r.counts.edges_rw, 1u);
  EXPECT_EQ(r.counts.graph_edges, 5u);  // T1->T3 and T1->T2 on x merge ww+wr per version
  EXPECT_EQ(r.counts.cyclic_sccs, 0u);
}

TEST(Checker, LostUpdateForkIsReported) {
  // Both read version 0 of x and both installed over it.
  const History h = HistoryBuilder().txn(1).rmw(kX, 0).txn(2).rmw(kX, 0).build();
  const CheckResult r = check_and_compare(h);
  ASSERT_FALSE(r.serializable);
  EXPECT_EQ(r.violation.kind, ViolationKind::kLostUpdate);
  EXPECT_TRUE(r.violation.has_key);
  EXPECT_EQ(r.violation.key, kX);
  EXPECT_EQ(r.violation.version, 0u);
  EXPECT_EQ(std::set<uint64_t>(r.violation.txns.begin(), r.violation.txns.end()), (std::set<uint64_t>{1, 2}));
  EXPECT_EQ(r.counts.lost_updates, 1u);
  EXPECT_NE(r.violation.message.find("lost update"), std::string::npos);
}

TEST(Checker, LostUpdateOrderedByInstallIsAnRwWwCycle) {
  // T2 read version 0 but installed after T1: T2 -rw(x)-> T1 -ww(x)-> T2.
  const History h = HistoryBuilder().txn(1).rmw(kX, 0).txn(2).read_write(kX, 0, 1).build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_TRUE(r.violation.minimal);
  EXPECT_EQ(canonical_cycle(r.violation.txns), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 2)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kRW, kX}}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 1)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWW, kX}}));
  EXPECT_EQ(edge_from(r.violation, 2).deps.front().version, 0u);  // the version T2 read
  EXPECT_NE(r.violation.message.find("G2"), std::string::npos);
}

TEST(Checker, WriteSkewIsAnRwRwCycle) {
  // Both read x and y; T1 writes x, T2 writes y.
  const History h = HistoryBuilder()
                        .txn(1).rmw(kX, 0).read(kY, 0)
                        .txn(2).read(kX, 0).rmw(kY, 0)
                        .build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_EQ(canonical_cycle(r.violation.txns), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 1)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kRW, kY}}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 2)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kRW, kX}}));
  EXPECT_NE(r.violation.message.find("G2 anti-dependency cycle"), std::string::npos);
  EXPECT_EQ(r.counts.cyclic_sccs, 1u);
  EXPECT_EQ(r.counts.largest_scc, 2u);
}

TEST(Checker, ReadSkewIsAnRwWrCycle) {
  // T2 saw x before T1 and y after T1.
  const History h = HistoryBuilder()
                        .txn(1).rmw(kX, 0).rmw(kY, 0)
                        .txn(2).read(kX, 0).read(kY, 1)
                        .build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_EQ(deps_of(edge_from(r.violation, 2)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kRW, kX}}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 1)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWR, kY}}));
}

// Multi-version histories: a read records the version it returned (its
// writer's id), which may be older than the key's newest committed version;
// the anti-dependency goes to the writer of the version directly after the
// one read, wherever the reader committed.
TEST(Checker, OldVersionReadsOfASerializableMultiVersionScheduleAreAccepted) {
  // T2 began before T1 and read x's old version after T1 committed x1; T3
  // began after both. Serial order T2, T1, T3.
  const History h = HistoryBuilder()
                        .txn(1).rmw(kX, 0)
                        .txn(2).read(kX, 0).rmw(kY, 0)
                        .txn(3).read(kX, 1).read(kY, 2)
                        .build();
  const CheckResult r = check_and_compare(h);
  EXPECT_TRUE(r.serializable) << r.violation.message;
  EXPECT_EQ(r.counts.edges_rw, 1u);  // T2 -rw(x)-> T1
  EXPECT_EQ(r.counts.edges_wr, 2u);  // T1 -wr(x)-> T3, T2 -wr(y)-> T3
}

TEST(Checker, AnOldVersionReadAntiDependsOnTheNextVersionsWriter) {
  // x: 0 -> T1 -> T2. T3 read x's version 0, two versions behind: T3 -rw-> T1
  // (the writer of the version after 0), not T2.
  const History ok = HistoryBuilder()
                         .txn(1).rmw(kX, 0)
                         .txn(2).rmw(kX, 1)
                         .txn(3).read(kX, 0).rmw(kZ, 0)
                         .build();
  const CheckResult r = check_and_compare(ok);
  EXPECT_TRUE(r.serializable);
  EXPECT_EQ(r.counts.edges_rw, 1u);
  // ... and T3 also read T2's write of y: T3 -rw(x)-> T1 -ww(x)-> T2 -wr(y)-> T3.
  const History bad = HistoryBuilder()
                          .txn(1).rmw(kX, 0)
                          .txn(2).rmw(kX, 1).rmw(kY, 0)
                          .txn(3).read(kX, 0).read(kY, 2)
                          .build();
  const CheckResult rb = check_and_compare(bad);
  ASSERT_EQ(rb.violation.kind, ViolationKind::kCycle);
  EXPECT_EQ(canonical_cycle(rb.violation.txns), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(deps_of(edge_from(rb.violation, 3)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kRW, kX}}));
  EXPECT_EQ(edge_from(rb.violation, 3).deps.front().version, 0u);
  EXPECT_NE(rb.violation.message.find("G2"), std::string::npos);
}

TEST(Checker, SnapshotIsolationsReadOnlyAnomalyIsG2) {
  // Fekete, O'Neil, O'Neil (SIGMOD Record 2004): T1 reads x and y on its
  // snapshot and writes y; T2 writes x; T3 begins after T2 and before T1
  // commits: it sees T2's x and the old y. Every step is legal under SI.
  const History h = HistoryBuilder()
                        .txn(1).read(kX, 0).rmw(kY, 0)
                        .txn(2).rmw(kX, 0)
                        .txn(3).read(kX, 2).read(kY, 0)
                        .build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_EQ(canonical_cycle(r.violation.txns), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_NE(r.violation.message.find("G2 anti-dependency cycle of 3 transactions"), std::string::npos);
}

TEST(Checker, NonRepeatableReadIsACycleOnOneKey) {
  const History h = HistoryBuilder().txn(1).rmw(kX, 0).txn(2).read(kX, 0).read(kX, 1).build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_EQ(deps_of(edge_from(r.violation, 2)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kRW, kX}}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 1)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWR, kX}}));
}

TEST(Checker, WriteCycleIsG0) {
  // Version orders disagree: x: T1 then T2; y: T2 then T1.
  const History h = HistoryBuilder()
                        .txn(1).write(kX, 0).write(kY, 2)
                        .txn(2).write(kY, 0).write(kX, 1)
                        .build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_NE(r.violation.message.find("G0"), std::string::npos);
  EXPECT_EQ(deps_of(edge_from(r.violation, 1)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWW, kX}}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 2)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWW, kY}}));
}

TEST(Checker, CircularInformationFlowIsG1c) {
  const History h = HistoryBuilder()
                        .txn(1).rmw(kX, 0).read(kY, 2)
                        .txn(2).rmw(kY, 0).read(kX, 1)
                        .build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_NE(r.violation.message.find("G1c"), std::string::npos);
}

TEST(Checker, ReadOfInitialVersionOrdersReaderFirst) {
  // T2 read the loader's version of x, which T1 overwrote: T2 before T1.
  const History ok = HistoryBuilder().txn(1).insert(kX).txn(2).read(kX, 0).build();
  const CheckResult r = check_and_compare(ok);
  EXPECT_TRUE(r.serializable);
  EXPECT_EQ(r.counts.edges_rw, 1u);
  EXPECT_EQ(r.counts.edges_wr, 0u);  // the loader's edges are not counted

  // ... but T2 also saw T1's write of z: no order fits.
  const History bad = HistoryBuilder().txn(1).insert(kX).rmw(kZ, 0).txn(2).read(kX, 0).read(kZ, 1).build();
  const CheckResult rb = check_and_compare(bad);
  ASSERT_EQ(rb.violation.kind, ViolationKind::kCycle);
  EXPECT_EQ(deps_of(edge_from(rb.violation, 2)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kRW, kX}}));
  EXPECT_EQ(deps_of(edge_from(rb.violation, 1)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWR, kZ}}));
}

TEST(Checker, InsertHistoryWithGuardRowIsSerializable) {
  // TPC-C shape: each inserter bumps the district's next-order id and inserts
  // a new order row; a later reader sees both orders and probes a third,
  // absent one.
  constexpr GlobalKey kDistrict = make_global_key(3, 1);
  const GlobalKey o1 = make_global_key(4, 1), o2 = make_global_key(4, 2), o3 = make_global_key(4, 3);
  const History h = HistoryBuilder()
                        .txn(1).rmw(kDistrict, 0).insert(o1)
                        .txn(2).rmw(kDistrict, 1).insert(o2)
                        .txn(3).read(kDistrict, 2).read(o1, 1).read(o2, 2).read(o3, 0)
                        .build();
  EXPECT_TRUE(check_and_compare(h).serializable);
}

TEST(Checker, PhantomIsCaughtThroughTheGuardRow) {
  // T2 read the district after T1's bump but missed T1's inserted order.
  constexpr GlobalKey kDistrict = make_global_key(3, 1);
  const GlobalKey o1 = make_global_key(4, 1);
  const History h = HistoryBuilder()
                        .txn(1).rmw(kDistrict, 0).insert(o1)
                        .txn(2).read(kDistrict, 1).read(o1, 0)
                        .build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_EQ(deps_of(edge_from(r.violation, 2)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kRW, o1}}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 1)), (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWR, kDistrict}}));
}

TEST(Checker, DirtyReadOfAnUncommittedVersionIsFlagged) {
  const History h = HistoryBuilder().txn(1).rmw(kX, 0).txn(2).read(kX, 99).build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kAbortedRead);
  EXPECT_EQ(r.violation.key, kX);
  EXPECT_EQ(r.violation.version, 99u);
  EXPECT_EQ(r.violation.txns, (std::vector<uint64_t>{2}));
  EXPECT_EQ(r.counts.aborted_reads, 1u);
}

TEST(Checker, ReadOfAVersionInstalledOnAnotherKeyIsFlagged) {
  // T1 committed, but it never wrote x: version 1 of x does not exist.
  const History h = HistoryBuilder().txn(1).rmw(kY, 0).txn(2).read(kX, 1).build();
  const CheckResult r = check_and_compare(h);
  EXPECT_EQ(r.violation.kind, ViolationKind::kAbortedRead);
  EXPECT_EQ(r.violation.key, kX);
}

TEST(Checker, OverwriteOfAnUnknownVersionIsFlagged) {
  const History h = HistoryBuilder().txn(1).write(kX, 42).build();
  const CheckResult r = check_and_compare(h);
  EXPECT_EQ(r.violation.kind, ViolationKind::kUnknownVersion);
  EXPECT_EQ(r.violation.version, 42u);
  EXPECT_EQ(r.counts.unknown_versions, 1u);
}

TEST(Checker, OverwriteOfOwnVersionNeverInstalledIsFlagged) {
  // T1 claims to overwrite its own version of x but never installed one.
  const History h = HistoryBuilder().txn(1).write(kX, 1).build();
  const CheckResult r = check_and_compare(h);
  EXPECT_EQ(r.violation.kind, ViolationKind::kUnknownVersion);
  EXPECT_EQ(r.violation.version, 1u);
}

TEST(Checker, DuplicateTransactionIdsAreFlagged) {
  const History h = HistoryBuilder().txn(5).rmw(kX, 0).txn(5).read(kY, 0).build();
  const CheckResult r = check_and_compare(h);
  EXPECT_EQ(r.violation.kind, ViolationKind::kDuplicateTxn);
  EXPECT_EQ(r.violation.txns, (std::vector<uint64_t>{5}));
}

TEST(Checker, MalformedHistoriesAreFlagged) {
  EXPECT_EQ(check_serializable(HistoryBuilder().txn(0).rmw(kX, 0).build()).violation.kind, ViolationKind::kMalformed);

  History out_of_range = HistoryBuilder().txn(1).rmw(kX, 0).build();
  out_of_range.txns[0].n_accesses = 2;
  const CheckResult r = check_serializable(out_of_range);
  EXPECT_FALSE(r.serializable);
  EXPECT_EQ(r.violation.kind, ViolationKind::kMalformed);
  EXPECT_NE(r.violation.message.find("T1"), std::string::npos);

  // One transaction cannot install two versions of a key.
  const CheckResult twice = check_serializable(HistoryBuilder().txn(1).write(kX, 0).write(kX, 0).build());
  EXPECT_EQ(twice.violation.kind, ViolationKind::kMalformed);
}

TEST(Checker, OwnWritesAddNoEdges) {
  // T1 writes x, reads its own version, overwrites it again; T2 follows.
  const History h = HistoryBuilder().txn(1).write(kX, 0).read(kX, 1).write(kX, 1).txn(2).rmw(kX, 1).build();
  const CheckResult r = check_and_compare(h);
  EXPECT_TRUE(r.serializable);
  // Only T1 -> T2: ww (T2 overwrote version 1), wr (T2 read it) and rw
  // (T1 read version 1, whose next version T2 installed); nothing T1 -> T1.
  EXPECT_EQ(r.counts.edges_ww, 1u);
  EXPECT_EQ(r.counts.edges_wr, 1u);
  EXPECT_EQ(r.counts.edges_rw, 1u);
  EXPECT_EQ(r.counts.graph_edges, 2u);
}

TEST(Checker, InconsistencyTakesPrecedenceOverCycles) {
  // A write skew on x/y plus a lost update on z.
  const History h = HistoryBuilder()
                        .txn(1).rmw(kX, 0).read(kY, 0).rmw(kZ, 0)
                        .txn(2).read(kX, 0).rmw(kY, 0).rmw(kZ, 0)
                        .build();
  const CheckResult r = check_serializable(h);
  EXPECT_EQ(r.violation.kind, ViolationKind::kLostUpdate);
  EXPECT_EQ(r.violation.key, kZ);
}

// A 5-cycle of wr edges T1 -> T2 -> T3 -> T4 -> T5 -> T1 with a chord
// T3 -> T1: one component, whose shortest cycle is T1 -> T2 -> T3 -> T1.
// Edge a -> b: a inserts key k(a, b), b reads it.
History five_cycle_with_chord() {
  auto k = [](uint64_t a, uint64_t b) { return make_global_key(9, a * 100 + b); };
  return HistoryBuilder()
      .txn(1).insert(k(1, 2)).read(k(5, 1), 5).read(k(3, 1), 3)
      .txn(2).insert(k(2, 3)).read(k(1, 2), 1)
      .txn(3).insert(k(3, 4)).insert(k(3, 1)).read(k(2, 3), 2)
      .txn(4).insert(k(4, 5)).read(k(3, 4), 3)
      .txn(5).insert(k(5, 1)).read(k(4, 5), 4)
      .build();
}

TEST(Checker, WitnessIsAShortestCycleAndNamesItsKeys) {
  const History h = five_cycle_with_chord();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_TRUE(r.violation.minimal);
  EXPECT_EQ(canonical_cycle(r.violation.txns), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 1)),
            (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWR, make_global_key(9, 102)}}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 2)),
            (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWR, make_global_key(9, 203)}}));
  EXPECT_EQ(deps_of(edge_from(r.violation, 3)),
            (std::set<std::pair<EdgeKind, GlobalKey>>{{EdgeKind::kWR, make_global_key(9, 301)}}));
  EXPECT_EQ(r.counts.cyclic_sccs, 1u);
  EXPECT_EQ(r.counts.largest_scc, 5u);
}

TEST(Checker, WitnessPrefersTheShortestCycleAcrossComponents) {
  // A 4-cycle of rw edges on keys a..d among T1..T4, and a separate 2-cycle
  // (write skew on x/y) among T7, T8 listed after it.
  auto a = [](uint64_t i) { return make_global_key(5, i); };
  const History h = HistoryBuilder()
                        // Ti reads a(i) at version 0; T(i+1) writes a(i).
                        .txn(1).read(a(1), 0).write(a(4), 0)
                        .txn(2).read(a(2), 0).write(a(1), 0)
                        .txn(3).read(a(3), 0).write(a(2), 0)
                        .txn(4).read(a(4), 0).write(a(3), 0)
                        .txn(7).rmw(kX, 0).read(kY, 0)
                        .txn(8).read(kX, 0).rmw(kY, 0)
                        .build();
  const CheckResult r = check_and_compare(h);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  EXPECT_EQ(canonical_cycle(r.violation.txns), (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(r.counts.cyclic_sccs, 2u);
  EXPECT_EQ(r.counts.largest_scc, 4u);
}

TEST(Checker, ExhaustedWitnessBudgetStillGivesAValidCycle) {
  const History h = five_cycle_with_chord();
  CheckOptions opts;
  opts.witness_edge_budget = 1;  // only the first BFS runs
  const CheckResult r = check_serializable(h, opts);
  ASSERT_EQ(r.violation.kind, ViolationKind::kCycle);
  expect_valid_cycle(h, r.violation);
  EXPECT_FALSE(r.violation.minimal);
  EXPECT_NE(r.violation.message.find("budget"), std::string::npos);
}

// Strips the writer's layout whitespace (outside strings) so that the
// assertions do not depend on the pretty-printing.
std::string compact(const std::string& json) {
  std::string out;
  bool in_string = false, escaped = false;
  for (char c : json) {
    if (in_string) {
      out += c;
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
      out += c;
    } else if (c != ' ' && c != '\n') {
      out += c;
    }
  }
  return out;
}

TEST(Checker, ResultRendersAsJson) {
  const CheckResult ok = check_serializable(HistoryBuilder().txn(1).rmw(kX, 0).build());
  const std::string j = compact(check_result_to_json(ok));
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.back(), '}');
  EXPECT_EQ(j.rfind("{\"serializable\":true,\"violation\":null,\"counts\":{\"txns\":1,", 0), 0u) << j;
  EXPECT_EQ(violation_to_json(ok.violation), "null");

  const CheckResult bad =
      check_serializable(HistoryBuilder().txn(1).rmw(kX, 0).read(kY, 0).txn(2).read(kX, 0).rmw(kY, 0).build());
  const std::string b = compact(check_result_to_json(bad));
  EXPECT_NE(b.find("\"serializable\":false"), std::string::npos);
  EXPECT_NE(b.find("\"violation\":{\"kind\":\"cycle\""), std::string::npos);
  EXPECT_NE(b.find("\"minimal\":true"), std::string::npos);
  EXPECT_NE(b.find("{\"kind\":\"rw\",\"key\":" + std::to_string(kX) + ",\"table\":1,\"local_key\":10,\"version\":0}"),
            std::string::npos) << b;
  EXPECT_NE(b.find("\"edges_rw\":2"), std::string::npos);
}

TEST(Checker, JsonStringsAreEscaped) {
  Violation v;
  v.kind = ViolationKind::kMalformed;
  v.message = "a \"quoted\"\\ line\nwith\ttab and \x01";
  EXPECT_EQ(compact(violation_to_json(v)),
            "{\"kind\":\"malformed\",\"message\":\"a \\\"quoted\\\"\\\\ line\\nwith\\ttab and \\u0001\",\"txns\":[]}");
}

}  // namespace
}  // namespace ccb::verify
