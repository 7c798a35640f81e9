// Silo's read-only snapshot transactions (Silo section 4.9; engine/cc/silo/silo.h
// and engine/cc_helpers/snapshots.h), driven step by step from one thread with the
// epoch advanced by hand (tick()): what a snapshot sees, when versions are
// saved, and that a running snapshot keeps its versions while writers churn.
#include <gtest/gtest.h>

#include "engine/cc/silo/silo.h"
#include "tests/cc/cc_test_util.h"

namespace ccb {
namespace {

using cc_test::Counters;
using cc_test::increment;
using cc_test::read;

constexpr uint64_t A = 0, B = 1;

bool commit_increment(Txn<Silo>& w, Table<Silo>& table, uint64_t key) {
  w.begin();
  return increment(w, table, key) && w.commit() == RC::kOk;
}

// Versions are saved only once a read-only request has arrived; it, and the
// ones after it, run as ordinary validated transactions until the floor
// reaches the first snapshot epoch boundary after its arrival.
TEST(SiloSnapshot, TheFirstReadOnlyRequestStartsVersionSaving) {
  Silo cc(/*snapshot_epochs=*/1);
  Counters<Silo> c(4);
  Txn<Silo> w(cc, 0, nullptr), s(cc, 1, nullptr);
  ASSERT_TRUE(commit_increment(w, c.table, A));
  ASSERT_TRUE(commit_increment(w, c.table, A));
  cc.tick();
  ASSERT_TRUE(commit_increment(w, c.table, A));  // A = 3 in epoch 2
  EXPECT_EQ(cc.total_stats().versions_saved, 0u);
  uint64_t v = 0;
  s.begin(0, /*read_only=*/true);  // the first: saving starts, complete from epoch 3
  ASSERT_TRUE(read(s, c.table, A, &v));
  EXPECT_EQ(v, 3u);  // the latest version: not a snapshot
  ASSERT_TRUE(commit_increment(w, c.table, A));  // A = 4, epoch 2: nothing to save
  EXPECT_EQ(s.commit(), RC::kValidation);        // validated, as Silo's phase 2
  EXPECT_EQ(cc.total_stats().snapshot_txns, 0u);
  cc.tick();  // epoch 3, floor 3: complete
  ASSERT_TRUE(commit_increment(w, c.table, A));  // A = 5 overwrites epoch 2's version: saved
  EXPECT_EQ(cc.total_stats().versions_saved, 1u);
  s.begin(0, true);
  ASSERT_TRUE(read(s, c.table, A, &v));
  EXPECT_EQ(v, 4u);
  EXPECT_EQ(s.commit(), RC::kOk);
  EXPECT_EQ(cc.total_stats().snapshot_txns, 1u);
}

// Makes `cc`'s read-only requests run on snapshots (k = 1): the first one
// starts version saving, and the next epoch's floor is complete.
void enable_snapshots(Silo& cc, Txn<Silo>& reader) {
  reader.begin(0, true);
  reader.abort();
  cc.tick();
}

// A snapshot sees the state at the last snapshot epoch boundary, whatever
// commits later, and rows inserted after it do not exist.
TEST(SiloSnapshot, ReadsTheStateAtTheLastBoundary) {
  Silo cc(1);
  Counters<Silo> c(4);
  Txn<Silo> w(cc, 0, nullptr), s(cc, 1, nullptr);
  enable_snapshots(cc, s);  // epoch 2
  ASSERT_TRUE(commit_increment(w, c.table, A));  // A = 1 in epoch 2
  uint64_t v = 99;
  s.begin(0, true);
  ASSERT_TRUE(read(s, c.table, A, &v));
  EXPECT_EQ(v, 0u);  // epoch 2 has not ended
  ASSERT_EQ(s.commit(), RC::kOk);

  cc.tick();  // epoch 3: everything of epoch 2 is in the snapshot
  EXPECT_EQ(cc.snapshot_floor(), uint64_t{3} << Silo::kEpochShift);
  ASSERT_TRUE(commit_increment(w, c.table, A));  // A = 2, 3 in epoch 3
  ASSERT_TRUE(commit_increment(w, c.table, A));
  w.begin();
  ASSERT_NE(w.insert(c.table, 100), nullptr);
  ASSERT_EQ(w.commit(), RC::kOk);
  s.begin(0, true);
  cc_test::expect_snapshot_of_old_state(s, c.table, A, 1, B, 100);
  s.abort();

  cc.tick();
  s.begin(0, true);
  ASSERT_TRUE(read(s, c.table, A, &v));
  EXPECT_EQ(v, 3u);
  EXPECT_TRUE(read(s, c.table, 100));
  EXPECT_EQ(s.commit(), RC::kOk);
  EXPECT_EQ(cc.total_stats().snapshot_txns, 3u);
}

// A snapshot transaction is not validated: a row it read may be overwritten
// before it commits (under Silo's phase 2 a reader would abort).
TEST(SiloSnapshot, IsNeverValidated) {
  Silo cc(1);
  Counters<Silo> c(4);
  Txn<Silo> w(cc, 0, nullptr), s(cc, 1, nullptr), r(cc, 2, nullptr);
  enable_snapshots(cc, s);
  s.begin(0, true);
  r.begin();
  ASSERT_TRUE(read(s, c.table, A));
  ASSERT_TRUE(read(r, c.table, A));
  ASSERT_TRUE(increment(r, c.table, B));
  ASSERT_TRUE(commit_increment(w, c.table, A));
  EXPECT_EQ(s.commit(), RC::kOk);
  EXPECT_EQ(r.commit(), RC::kValidation);
}

// Section 4.9: a row is saved only when it is overwritten across a snapshot
// epoch boundary (every k epochs), however often it is written.
TEST(SiloSnapshot, SavesARowOncePerSnapshotEpoch) {
  Silo cc;  // k = 25
  Counters<Silo> c(4);
  Txn<Silo> w(cc, 0, nullptr), s(cc, 1, nullptr);
  s.begin(0, true);  // saving starts
  s.abort();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(commit_increment(w, c.table, A));
  EXPECT_EQ(cc.total_stats().versions_saved, 0u);  // epoch 1: the loaded image's snapshot epoch
  for (uint32_t e = 1; e < Silo::kSnapshotEpochs - 1; ++e) cc.tick();  // epoch 24
  ASSERT_TRUE(commit_increment(w, c.table, A));
  EXPECT_EQ(cc.total_stats().versions_saved, 0u);
  cc.tick();  // epoch 25: a new snapshot epoch
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(commit_increment(w, c.table, A));
  EXPECT_EQ(cc.total_stats().versions_saved, 1u);
  ASSERT_TRUE(commit_increment(w, c.table, B));
  EXPECT_EQ(cc.total_stats().versions_saved, 2u);
}

// A running snapshot keeps the versions it may read while writers move on
// through many floors and reuse the version chunks no snapshot needs.
TEST(SiloSnapshot, ARunningSnapshotKeepsItsVersions) {
  Silo cc(1);
  Counters<Silo> c(4);
  Txn<Silo> w(cc, 0, nullptr), s(cc, 1, nullptr), late(cc, 2, nullptr);
  enable_snapshots(cc, s);
  ASSERT_TRUE(commit_increment(w, c.table, A));
  cc.tick();
  s.begin(0, true);  // A = 1 at its floor
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(commit_increment(w, c.table, A));
    cc.tick();
  }
  uint64_t v = 0;
  ASSERT_TRUE(read(s, c.table, A, &v));
  EXPECT_EQ(v, 1u);
  ASSERT_EQ(s.commit(), RC::kOk);
  late.begin(0, true);
  ASSERT_TRUE(read(late, c.table, A, &v));
  EXPECT_EQ(v, 2001u);
  ASSERT_EQ(late.commit(), RC::kOk);
  EXPECT_EQ(cc.total_stats().versions_saved, 2001u);  // the loaded image, then one per epoch
}

// A commit that is still running (between publishing its epoch and
// installing) holds the floor at its epoch, so a snapshot never misses a
// transaction that installs into it late.
struct SiloHeldInCommit : Silo {
  using Silo::Silo;
  void enter_commit(Txn<Silo>& t) { committing_epoch(t).store(epoch_.load()); }
  void leave_commit(Txn<Silo>& t) { committing_epoch(t).store(kIdle); }
};

TEST(SiloSnapshot, TheFloorStaysAtARunningCommit) {
  SiloHeldInCommit cc(1);
  Txn<Silo> w(cc, 3, nullptr);
  cc.tick();
  EXPECT_EQ(cc.snapshot_floor(), uint64_t{2} << Silo::kEpochShift);
  cc.enter_commit(w);  // reads epoch 2 or later
  for (int i = 0; i < 3; ++i) cc.tick();
  EXPECT_EQ(cc.snapshot_floor(), uint64_t{2} << Silo::kEpochShift);
  cc.leave_commit(w);
  cc.tick();  // epoch 6
  EXPECT_EQ(cc.snapshot_floor(), uint64_t{6} << Silo::kEpochShift);
}

// With k epochs per snapshot epoch, floors are multiples of k.
TEST(SiloSnapshot, FloorsAreSnapshotEpochBoundaries) {
  Silo cc(4);
  for (int i = 0; i < 3; ++i) cc.tick();  // epoch 4
  EXPECT_EQ(cc.snapshot_floor(), uint64_t{4} << Silo::kEpochShift);
  for (int i = 0; i < 3; ++i) cc.tick();  // epoch 7
  EXPECT_EQ(cc.snapshot_floor(), uint64_t{4} << Silo::kEpochShift);
  cc.tick();  // epoch 8
  EXPECT_EQ(cc.snapshot_floor(), uint64_t{8} << Silo::kEpochShift);
}

}  // namespace
}  // namespace ccb
