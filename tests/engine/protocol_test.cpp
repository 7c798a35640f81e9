// Deterministic two-transaction interleavings for every protocol
// (tests/support/protocols.h: AllProtocols; the anomalies only for the
// serializable ones). Each transaction runs on its own thread and the test
// hands it one step at a time (tests/support/schedule.h), so a protocol may
// wait where its rule says so: what it does at a conflict (proceed, be
// refused, wait until the other transaction finishes) is an expected outcome,
// stated once in tests/support/protocols.h. Protocols that lock a predicted
// access set get each transaction's prediction at begin, as from the
// executor; those with a lock service or partitions are set up as the engine
// sets them up (PreparedProtocol), so every protocol runs every schedule.
#include <gtest/gtest.h>

#include <cstring>

#include "engine/txn/txn.h"
#include "tests/support/counters.h"
#include "tests/support/protocols.h"
#include "tests/support/schedule.h"

namespace ccb {
namespace {

using test_support::OnConflict;
using test_support::predict;

constexpr uint64_t A = 0, B = 1, C = 2;

template <class CC>
class ProtocolTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kRows = 4;
  static constexpr uint64_t kBigRows = 300;  // past the access set's linear-scan limit
  ~ProtocolTest() override { test_support::finish_all(t1_, t2_); }
  uint64_t counter(uint64_t key) const { return rows_.value(key); }

  test_support::PreparedProtocol<CC> p_{2};
  test_support::Counters<CC> rows_{kRows, 0}, big_{kBigRows, 1};
  Table<CC>& table_ = rows_.table;
  test_support::ScheduledTxn<CC> t1_{p_.cc, 0, {&rows_.table, &big_.table}};
  test_support::ScheduledTxn<CC> t2_{p_.cc, 1, {&rows_.table, &big_.table}};
};
TYPED_TEST_SUITE(ProtocolTest, test_support::AllProtocols);

template <class CC>
class SerializableProtocolTest : public ProtocolTest<CC> {};
TYPED_TEST_SUITE(SerializableProtocolTest, test_support::SerializableProtocols);

TYPED_TEST(ProtocolTest, DisjointWritesBothCommit) {
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  ASSERT_TRUE(t1.begin(predict({}, {A})).returns());
  ASSERT_TRUE(t2.begin(predict({}, {B})).returns());
  ASSERT_TRUE(t1.increment(this->table_, A).returns());
  ASSERT_TRUE(t2.increment(this->table_, B).returns());
  EXPECT_TRUE(t1.commits());
  EXPECT_TRUE(t2.commits());
  EXPECT_EQ(this->counter(A), 1u);
  EXPECT_EQ(this->counter(B), 1u);
}

TYPED_TEST(ProtocolTest, ConcurrentReadersBothCommit) {
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  ASSERT_TRUE(t1.begin(predict({C}, {})).read(this->table_, C).returns());
  t2.begin(predict({C}, {})).read(this->table_, C);
  if (test_support::kReadersShareRows<TypeParam>) {
    ASSERT_TRUE(t2.returns());
  } else if (test_support::kOnConflict<TypeParam> == OnConflict::kRefused) {
    // Readers conflict, and the protocol's rule refuses a conflicting access.
    ASSERT_TRUE(t2.returns());
    EXPECT_EQ(rc_name(t2.failure()), rc_name(test_support::kRefusal<TypeParam>)) << "the second reader is refused";
    EXPECT_TRUE(t1.commits());
    return;
  } else {
    EXPECT_TRUE(t2.waits()) << "the second reader waits until the first finishes";
  }
  EXPECT_TRUE(t1.commits());
  EXPECT_TRUE(t2.commits());
}

TYPED_TEST(ProtocolTest, ReadThenUpdateOfTheSameRowUpgrades) {
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  t1.begin(predict({}, {C})).read(this->table_, C);
  t1.increment(this->table_, C).increment(this->table_, C);  // the same private copy
  ASSERT_TRUE(t1.returns());
  ASSERT_EQ(rc_name(t1.failure()), rc_name(RC::kOk));
  EXPECT_EQ(t1.txn().accesses().size(), 1u);
  EXPECT_TRUE(t1.commits());
  EXPECT_EQ(this->counter(C), 2u);
  // A second transaction sees the committed value and its version.
  const uint64_t writer = t1.txn().id();
  uint64_t seen_version = 0;
  t2.begin(predict({C}, {})).step([&](Txn<TypeParam>& t) {
    const uint8_t* p = t.read(this->table_, C);
    if (p == nullptr) return t.failure();
    seen_version = image_version(p - kVersionBytes);
    return RC::kOk;
  });
  EXPECT_TRUE(t2.commits());
  EXPECT_EQ(seen_version, writer);
}

TYPED_TEST(ProtocolTest, LargeAccessSetsFindRepeatedRows) {
  // Past the linear-scan limit the access set is searched through a hash
  // table: every repeated row must still map to its first access.
  constexpr uint64_t kMany = ProtocolTest<TypeParam>::kBigRows;
  auto& t1 = this->t1_;
  Table<TypeParam>& big = this->big_.table;
  TxnDesc predicted;
  for (uint64_t k = 0; k < kMany; ++k)
    (k % 7 == 0 ? predicted.write_set : predicted.read_set).push_back(make_global_key(big.id(), k));
  t1.begin(predicted);
  for (uint64_t k = 0; k < kMany; ++k) t1.read(big, k);
  for (int round = 0; round < 2; ++round)
    for (uint64_t k = 0; k < kMany; k += 7) t1.increment(big, k);
  ASSERT_TRUE(t1.returns());
  ASSERT_EQ(rc_name(t1.failure()), rc_name(RC::kOk));
  EXPECT_EQ(t1.txn().accesses().size(), kMany);
  EXPECT_TRUE(t1.commits());
  for (uint64_t k = 0; k < kMany; ++k) EXPECT_EQ(this->big_.value(k), k % 7 == 0 ? 2u : 0u) << k;
  // The next attempt starts from an empty access set.
  ASSERT_TRUE(t1.begin(predict({3}, {}, big.id())).read(big, 3).returns());
  EXPECT_EQ(t1.txn().accesses().size(), 1u);
  EXPECT_TRUE(t1.commits());
}

TYPED_TEST(ProtocolTest, InsertIsInvisibleUntilCommit) {
  constexpr uint64_t kNew = 100;
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  ASSERT_TRUE(t1.begin(predict({}, {kNew})).insert(this->table_, kNew, 77).returns());
  ASSERT_EQ(rc_name(t1.failure()), rc_name(RC::kOk));
  uint64_t seen = 0;
  t2.begin(predict({kNew}, {})).read(this->table_, kNew, &seen);
  if (test_support::kPendingInsertBlocksReaders<TypeParam>) {
    EXPECT_TRUE(t2.waits()) << "the reader waits for the inserter";
    EXPECT_TRUE(t1.commits());
    EXPECT_TRUE(t2.commits());
    EXPECT_EQ(seen, 77u);
    return;
  }
  ASSERT_TRUE(t2.returns());
  EXPECT_EQ(rc_name(t2.failure()), rc_name(RC::kNotFound));
  EXPECT_TRUE(t1.commits());
  EXPECT_EQ(this->counter(kNew), 77u);
  EXPECT_TRUE(t2.begin(predict({kNew}, {})).read(this->table_, kNew, &seen).commits());
  EXPECT_EQ(seen, 77u);
}

// "T1 reads A; T2 overwrites A and commits; T1 commits", each protocol as its
// conflict rule says (test_support::kOnConflict).
TYPED_TEST(ProtocolTest, ReadThenConcurrentOverwrite) {
  using CC = TypeParam;
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  ASSERT_TRUE(t1.begin(predict({A}, {})).read(this->table_, A).returns());
  t2.begin(predict({}, {A})).increment(this->table_, A);
  switch (test_support::kOnConflict<CC>) {
    case OnConflict::kWaits:
      EXPECT_TRUE(t2.waits()) << "the writer waits until the reader finishes";
      EXPECT_TRUE(t1.commits());
      EXPECT_TRUE(t2.commits());
      break;
    case OnConflict::kRefused:
      ASSERT_TRUE(t2.returns());
      EXPECT_EQ(rc_name(t2.failure()), rc_name(test_support::kRefusal<CC>)) << "the writer is refused";
      EXPECT_TRUE(t1.commits());
      break;
    case OnConflict::kProceeds:
      EXPECT_TRUE(t2.commits());
      ASSERT_TRUE(t1.commit().returns());
      EXPECT_EQ(rc_name(t1.failure()),
                rc_name(test_support::kReaderCommitsBeforeOverwriter<CC> ? RC::kOk : RC::kValidation));
      break;
  }
  EXPECT_EQ(this->counter(A), t2.committed() ? 1u : 0u);
}

TYPED_TEST(ProtocolTest, AbortReleasesEverything) {
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  ASSERT_TRUE(t1.begin(predict({A}, {B})).read(this->table_, A).increment(this->table_, B).returns());
  ASSERT_EQ(rc_name(t1.failure()), rc_name(RC::kOk));
  ASSERT_TRUE(t1.abort().returns());
  // After the abort another transaction can write both rows and commit.
  t2.begin(predict({}, {A, B})).increment(this->table_, A).increment(this->table_, B);
  EXPECT_TRUE(t2.commits());
  EXPECT_EQ(this->counter(A), 1u);
  EXPECT_EQ(this->counter(B), 1u);
}

// T1 and T2 increment A, T1 commits first. Whatever the protocol does with
// T2's increment (kOnConflict), A ends as the committed increments made it.
TYPED_TEST(SerializableProtocolTest, LostUpdateIsPrevented) {
  using CC = TypeParam;
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  ASSERT_TRUE(t1.begin(predict({}, {A})).increment(this->table_, A).returns());
  t2.begin(predict({}, {A})).increment(this->table_, A);
  if (test_support::kOnConflict<CC> == OnConflict::kWaits) {
    EXPECT_TRUE(t2.waits()) << "the second writer waits until the first finishes";
  } else {
    ASSERT_TRUE(t2.returns());
    const RC expected = test_support::kOnConflict<CC> == OnConflict::kRefused ? test_support::kRefusal<CC> : RC::kOk;
    EXPECT_EQ(rc_name(t2.failure()), rc_name(expected));
  }
  EXPECT_TRUE(t1.commits());
  ASSERT_TRUE(t2.commit().returns());
  EXPECT_EQ(t2.committed(), test_support::kOnConflict<CC> == OnConflict::kWaits) << rc_name(t2.failure());
  EXPECT_EQ(this->counter(A), 1u + t2.committed());
}

// T1: r(A) r(B) w(A); T2: r(A) r(B) w(B), interleaved. Committing both is
// serializable only if one of them read the other's write (it ran after it).
// Which transaction waits differs (T1's upgrade under WaitDie and DlDetect,
// T2's acquisition under the protocols that lock up front), so each step
// gets a pause to return and the test checks the outcome only.
TYPED_TEST(SerializableProtocolTest, WriteSkewIsPrevented) {
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  uint64_t a1 = 0, b1 = 0, a2 = 0, b2 = 0;
  ASSERT_TRUE(t1.begin(predict({A, B}, {A})).read(this->table_, A, &a1).read(this->table_, B, &b1).returns());
  t2.begin(predict({A, B}, {B})).read(this->table_, A, &a2).read(this->table_, B, &b2).let_run();
  t1.increment(this->table_, A).commit().let_run();
  t2.increment(this->table_, B).commit();
  ASSERT_TRUE(t1.returns());
  ASSERT_TRUE(t2.returns());
  EXPECT_EQ(this->counter(A), t1.committed() ? 1u : 0u);
  EXPECT_EQ(this->counter(B), t2.committed() ? 1u : 0u);
  if (t1.committed() && t2.committed()) {
    EXPECT_TRUE(a2 == 1 || b1 == 1) << "both committed without either seeing the other's write";
  }
}

}  // namespace
}  // namespace ccb
