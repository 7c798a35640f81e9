// The multi-version protocols' defining behaviour (engine/cc/cicada/cicada.h, si.h,
// ermia.h) and their version storage (engine/core/versions.h), driven step by
// step from one thread: each transaction has its own worker id, and none of
// these schedules waits (readers wait only for rows locked inside a commit).
//   Cicada: a reader at an older timestamp reads the older version and
//           commits although a newer writer committed; a writer below a later
//           reader's timestamp aborts; the early check and pending versions.
//   SI:     write skew commits, and the serializability checker reports it as
//           a G2 cycle.
//   ERMIA:  the Serial Safety Net aborts the same dangerous structure.
//   GC:     versions no transaction can read are recycled, and not before.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "engine/cc/cicada/cicada.h"
#include "engine/cc/ermia/ermia.h"
#include "engine/cc/si/si.h"
#include "engine/verify/checker.h"
#include "engine/verify/recorder.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr uint64_t A = 0, B = 1, C = 2;

// Transactions on workers 0..n-1 of one protocol, with their history
// recorded for the checker.
template <class CC>
struct Workers {
  explicit Workers(CC& cc, int n = 3) : logs(n) {
    for (int i = 0; i < n; ++i) txns.emplace_back(cc, i, &logs[i]);
  }
  Txn<CC>& operator[](size_t i) { return txns[i]; }
  verify::CheckResult check() { return verify::check_serializable(verify::HistoryLog::merge(logs)); }
  std::vector<verify::HistoryLog> logs;
  std::deque<Txn<CC>> txns;
};

template <class CC>
bool commit_increment(Txn<CC>& t, Table<CC>& table, uint64_t key) {
  t.begin();
  return increment(t, table, key) && t.commit() == RC::kOk;
}

// The version id (writer's transaction id) of the image `t` read of `key`.
template <class CC>
uint64_t version_read(Txn<CC>& t, Table<CC>& table, uint64_t key) {
  const uint8_t* p = t.read(table, key);
  return p == nullptr ? ~uint64_t{0} : image_version(p - kVersionBytes);
}

// ---- Cicada -------------------------------------------------------------------

TEST(Cicada, OlderReaderReadsTheOlderVersionAndCommitsBesideANewerWriter) {
  Cicada cc;
  Counters<Cicada> c(4);
  Workers<Cicada> w(cc);
  w[0].begin();  // the older timestamp
  w[1].begin();
  ASSERT_LT(w[0].meta().ts, w[1].meta().ts);
  ASSERT_TRUE(increment(w[1], c.table, A));
  ASSERT_EQ(w[1].commit(), RC::kOk);  // A = 1 at the newer timestamp
  EXPECT_EQ(c.value(A), 1u);
  uint64_t seen = 99;
  ASSERT_TRUE(read(w[0], c.table, A, &seen));
  EXPECT_EQ(seen, 0u) << "the version visible at the older timestamp";
  ASSERT_TRUE(increment(w[0], c.table, B));  // a read-write transaction, serialized first
  EXPECT_EQ(w[0].commit(), RC::kOk);
  EXPECT_EQ(c.value(B), 1u);
  // A transaction that begins now sees the newer version.
  w[2].begin();
  EXPECT_EQ(version_read(w[2], c.table, A), w[1].id());
  EXPECT_EQ(w[2].commit(), RC::kOk);
  const verify::CheckResult r = w.check();
  EXPECT_TRUE(r.serializable) << r.violation.message;
  EXPECT_EQ(r.counts.edges_rw, 1u);  // the older reader before the writer
  const mv::MvState::Totals s = cc.total_stats();
  EXPECT_EQ(s.versions.created, 2u);  // A's and B's loader versions, saved into their chains
}

TEST(Cicada, AWriterBelowALaterReadersTimestampAborts) {
  Cicada cc;
  Counters<Cicada> c(4);
  Workers<Cicada> w(cc);
  w[0].begin();  // older: will write A
  w[1].begin();
  ASSERT_TRUE(read(w[1], c.table, A));
  ASSERT_EQ(w[1].commit(), RC::kOk);  // A's version was read at the newer timestamp (rts)
  ASSERT_TRUE(increment(w[0], c.table, A));
  EXPECT_EQ(w[0].commit(), RC::kValidation) << "a version read later cannot be overwritten earlier";
  EXPECT_EQ(cc.total_stats().counters.early_aborts, 1u);  // caught before installing anything
  EXPECT_EQ(c.value(A), 0u);
  EXPECT_TRUE(w.check().serializable);
}

TEST(Cicada, AReaderMissingANewerVersionBelowItsTimestampAborts) {
  Cicada cc;
  Counters<Cicada> c(4);
  Workers<Cicada> w(cc);
  w[0].begin();  // writes A at the older timestamp
  w[1].begin();  // reads A at the newer one, before the write commits
  ASSERT_TRUE(increment(w[0], c.table, A));
  uint64_t seen = 99;
  ASSERT_TRUE(read(w[1], c.table, A, &seen));
  EXPECT_EQ(seen, 0u);
  ASSERT_EQ(w[0].commit(), RC::kOk);  // its version lies below w[1]'s timestamp
  ASSERT_TRUE(increment(w[1], c.table, B));
  EXPECT_EQ(w[1].commit(), RC::kValidation);
  EXPECT_EQ(c.value(B), 0u);
  EXPECT_TRUE(w.check().serializable);
}

TEST(Cicada, APendingVersionBlocksAnotherWriter) {
  Cicada cc;
  Counters<Cicada> c(4);
  Workers<Cicada> w(cc);
  w[0].begin();
  w[1].begin();
  ASSERT_TRUE(increment(w[0], c.table, A));
  ASSERT_TRUE(increment(w[1], c.table, A));
  // w[0]'s pending version of A, as its commit installs it.
  uint64_t expected = 0;
  ASSERT_TRUE(c.table.lookup(A)->meta.word.compare_exchange_strong(expected, mv::kLockBit | w[0].meta().ts));
  EXPECT_EQ(w[1].commit(), RC::kValidation);
  c.table.lookup(A)->meta.word.store(0);  // w[0] gives it up
  EXPECT_EQ(w[0].commit(), RC::kOk);
  EXPECT_EQ(c.value(A), 1u);
}

// ---- SI and ERMIA: write skew ---------------------------------------------------

// T1: r(A) r(B) w(A); T2: r(A) r(B) w(B), both on the same snapshot; T1
// commits first. Returns T2's commit result.
template <class CC>
RC write_skew(Workers<CC>& w, Counters<CC>& c) {
  w[0].begin();
  w[1].begin();
  EXPECT_TRUE(read(w[0], c.table, A) && read(w[0], c.table, B));
  EXPECT_TRUE(read(w[1], c.table, A) && read(w[1], c.table, B));
  EXPECT_TRUE(increment(w[0], c.table, A));
  EXPECT_TRUE(increment(w[1], c.table, B));
  EXPECT_EQ(w[0].commit(), RC::kOk);
  return w[1].commit();
}

TEST(Si, WriteSkewCommitsAndTheCheckerReportsAG2Cycle) {
  Si cc;
  Counters<Si> c(4);
  Workers<Si> w(cc);
  EXPECT_EQ(write_skew(w, c), RC::kOk) << "snapshot isolation admits write skew";
  EXPECT_EQ(c.value(A), 1u);
  EXPECT_EQ(c.value(B), 1u);
  const verify::CheckResult r = w.check();
  ASSERT_FALSE(r.serializable);
  EXPECT_EQ(r.violation.kind, verify::ViolationKind::kCycle);
  EXPECT_NE(r.violation.message.find("G2 anti-dependency cycle of 2 transactions"), std::string::npos)
      << r.violation.message;
}

TEST(Si, FirstCommitterWins) {
  Si cc;
  Counters<Si> c(4);
  Workers<Si> w(cc);
  w[0].begin();
  w[1].begin();
  ASSERT_TRUE(increment(w[0], c.table, A));
  ASSERT_TRUE(increment(w[1], c.table, A));
  EXPECT_EQ(w[0].commit(), RC::kOk);
  EXPECT_EQ(w[1].commit(), RC::kValidation);
  EXPECT_EQ(c.value(A), 1u);
  EXPECT_EQ(cc.total_stats().counters.write_conflicts, 1u);
}

TEST(Si, ASnapshotSeesNothingCommittedAfterItBegan) {
  Si cc;
  Counters<Si> c(4);
  Workers<Si> w(cc);
  ASSERT_TRUE(commit_increment(w[0], c.table, A));  // A = 1
  w[1].begin();                                     // snapshot: A = 1, B = 0
  ASSERT_TRUE(commit_increment(w[0], c.table, A));  // A = 2
  ASSERT_TRUE(commit_increment(w[0], c.table, B));  // B = 1
  w[0].begin();
  ASSERT_NE(w[0].insert(c.table, 100), nullptr);
  ASSERT_EQ(w[0].commit(), RC::kOk);
  cc_test::expect_snapshot_of_old_state(w[1], c.table, A, 1, B, 100);
}

TEST(Ermia, TheSerialSafetyNetAbortsTheWriteSkewThatSiCommits) {
  Ermia cc;
  Counters<Ermia> c(4);
  Workers<Ermia> w(cc);
  EXPECT_EQ(write_skew(w, c), RC::kValidation);
  EXPECT_EQ(cc.total_stats().counters.ssn_aborts, 1u);
  EXPECT_EQ(cc.total_stats().counters.write_conflicts, 0u);  // disjoint writes: not first-committer-wins
  EXPECT_EQ(c.value(B), 0u);
  EXPECT_TRUE(w.check().serializable);
}

// A reader of an old version is not a dangerous structure on its own: T2
// reads A's old version (T2 -rw-> T1) and nothing orders T1 before T2.
TEST(Ermia, AReaderOfAnOldVersionCommitsWithoutADangerousStructure) {
  Ermia cc;
  Counters<Ermia> c(4);
  Workers<Ermia> w(cc);
  w[1].begin();
  ASSERT_TRUE(commit_increment(w[0], c.table, A));
  uint64_t seen = 99;
  ASSERT_TRUE(read(w[1], c.table, A, &seen));
  EXPECT_EQ(seen, 0u);
  ASSERT_TRUE(increment(w[1], c.table, C));
  EXPECT_EQ(w[1].commit(), RC::kOk);
  EXPECT_TRUE(w.check().serializable);
}

// The read-only anomaly (Fekete, O'Neil, O'Neil, SIGMOD Record 2004): T3
// sees T2's write but not T1's, T1 did not see T2's. SI commits all three
// (a G2 cycle); SSN aborts the last committer.
template <class CC>
RC read_only_anomaly(Workers<CC>& w, Counters<CC>& c) {
  w[0].begin();  // T1: reads A and B, writes B
  EXPECT_TRUE(read(w[0], c.table, A) && increment(w[0], c.table, B));
  EXPECT_TRUE(commit_increment(w[1], c.table, A));  // T2 writes A
  w[2].begin();                                     // T3 reads A (T2's) and B (before T1)
  EXPECT_TRUE(read(w[2], c.table, A) && read(w[2], c.table, B));
  EXPECT_EQ(w[2].commit(), RC::kOk);
  return w[0].commit();
}

TEST(Si, TheReadOnlyAnomalyCommits) {
  Si cc;
  Counters<Si> c(4);
  Workers<Si> w(cc);
  EXPECT_EQ(read_only_anomaly(w, c), RC::kOk);
  const verify::CheckResult r = w.check();
  ASSERT_FALSE(r.serializable);
  EXPECT_NE(r.violation.message.find("G2"), std::string::npos);
}

TEST(Ermia, TheReadOnlyAnomalyIsAborted) {
  Ermia cc;
  Counters<Ermia> c(4);
  Workers<Ermia> w(cc);
  EXPECT_EQ(read_only_anomaly(w, c), RC::kValidation);
  EXPECT_EQ(cc.total_stats().counters.ssn_aborts, 1u);
  EXPECT_TRUE(w.check().serializable);
}

// ---- Garbage collection ----------------------------------------------------------

template <class CC>
class MvGc : public ::testing::Test {};
using MvProtocols = ::testing::Types<Cicada, Si, Ermia>;
TYPED_TEST_SUITE(MvGc, MvProtocols);

// A reader that began before many overwrites keeps reading its version; the
// versions it might still need survive, and once it ends (and its worker
// moves on), the GC recycles them and the chain stays short.
TYPED_TEST(MvGc, VersionsAreRecycledOnlyWhenNoReaderCanNeedThem) {
  using CC = TypeParam;
  CC cc;
  Counters<CC> c(4);
  Workers<CC> w(cc);
  w[1].begin();  // an old reader, registered, its bound published
  constexpr uint64_t kWrites = 20000;  // several chunks of versions
  for (uint64_t i = 0; i < kWrites; ++i) ASSERT_TRUE(commit_increment(w[0], c.table, A));
  uint64_t seen = 99;
  ASSERT_TRUE(read(w[1], c.table, A, &seen));
  EXPECT_EQ(seen, 0u) << "the old reader's version survived";
  mv::MvState::Totals s = cc.total_stats();
  EXPECT_EQ(s.versions.created, kWrites);
  EXPECT_EQ(s.versions.reclaimed, 0u);
  EXPECT_EQ(c.table.lookup(A)->meta.chain.unmodelled().load(), kWrites);
  ASSERT_EQ(w[1].commit(), RC::kOk);
  // An idle worker's bound stays where its last transaction began: it holds
  // back every version overwritten since.
  for (uint64_t i = 0; i < kWrites; ++i) ASSERT_TRUE(commit_increment(w[0], c.table, A));
  EXPECT_EQ(cc.total_stats().versions.reclaimed, 0u);
  w[1].begin();  // the reader moves on
  ASSERT_EQ(w[1].commit(), RC::kOk);
  for (uint64_t i = 0; i < mv::MvState::kCollectEvery; ++i) ASSERT_TRUE(commit_increment(w[0], c.table, A));
  s = cc.total_stats();
  EXPECT_GT(s.versions.reclaimed, kWrites * 3 / 2) << "the versions nobody can read were recycled";
  EXPECT_LT(c.table.lookup(A)->meta.chain.unmodelled().load(), kWrites / 2);
  EXPECT_EQ(s.versions.created - s.versions.reclaimed, c.table.lookup(A)->meta.chain.unmodelled().load());
  EXPECT_GT(s.bytes_held, 0u);
  EXPECT_GE(s.bytes_peak, s.bytes_held);
  EXPECT_EQ(c.value(A), 2 * kWrites + mv::MvState::kCollectEvery);
  EXPECT_GE(s.versions.chain_quantile(0.99), 63u);  // the chain grew long while the reader ran
  JsonWriter j;
  j.begin_object();
  cc.stats_json(j);
  j.end_object();
  for (const char* key : {"versions_created", "versions_gced", "chain_length_p99", "version_bytes"})
    EXPECT_NE(j.str().find(key), std::string::npos) << key;
}

}  // namespace
}  // namespace ccb
