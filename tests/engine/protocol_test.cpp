// Deterministic two-transaction interleavings, driven step by step from one
// thread, for every protocol. Conflicting schedules must abort (or be refused
// a lock); compatible ones must commit.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "engine/cc/nocc.h"
#include "engine/cc/nowait.h"
#include "engine/cc/occ.h"
#include "engine/cc/silo.h"
#include "engine/cc/tictoc.h"
#include "engine/cc/txn.h"

namespace ccb {
namespace {

// What each protocol does with "T1 reads A; T2 overwrites A and commits; T1
// (read-only) commits". Serializable as T1 < T2, yet only protocols that can
// order T1 before an already committed writer accept it.
enum class Outcome { kWriterRefusedLock, kReaderAborts, kBothCommit };
template <class CC> constexpr Outcome kReadThenOverwrite = Outcome::kReaderAborts;  // OCC, Silo
template <> constexpr Outcome kReadThenOverwrite<NoWait> = Outcome::kWriterRefusedLock;
template <> constexpr Outcome kReadThenOverwrite<TicToc> = Outcome::kBothCommit;     // time travel
template <> constexpr Outcome kReadThenOverwrite<NoCC> = Outcome::kBothCommit;       // no CC at all

template <class CC>
class ProtocolTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kRows = 4;
  ProtocolTest() : table_(0, "t", 8, kRows, kRows), t1_(cc_, 0, nullptr), t2_(cc_, 1, nullptr) {
    for (uint64_t k = 0; k < kRows; ++k) table_.load(k, k);
  }
  uint64_t counter(uint64_t key) {
    uint64_t c;
    std::memcpy(&c, table_.lookup(key)->data() + kVersionBytes, 8);
    return c;
  }
  static bool increment(Txn<CC>& t, Table<CC>& table, uint64_t key) {
    uint8_t* p = t.update(table, key);
    if (p == nullptr) return false;
    uint64_t c;
    std::memcpy(&c, p, 8);
    ++c;
    std::memcpy(p, &c, 8);
    return true;
  }
  CC cc_;
  Table<CC> table_;
  Txn<CC> t1_, t2_;
};

using AllProtocols = ::testing::Types<NoWait, Occ, Silo, TicToc, NoCC>;
TYPED_TEST_SUITE(ProtocolTest, AllProtocols);

template <class CC>
class SerializableProtocolTest : public ProtocolTest<CC> {};
using SerializableProtocols = ::testing::Types<NoWait, Occ, Silo, TicToc>;
TYPED_TEST_SUITE(SerializableProtocolTest, SerializableProtocols);

TYPED_TEST(ProtocolTest, DisjointWritesBothCommit) {
  this->t1_.begin();
  this->t2_.begin();
  ASSERT_TRUE(this->increment(this->t1_, this->table_, 0));
  ASSERT_TRUE(this->increment(this->t2_, this->table_, 1));
  EXPECT_EQ(this->t1_.commit(), RC::kOk);
  EXPECT_EQ(this->t2_.commit(), RC::kOk);
  EXPECT_EQ(this->counter(0), 1u);
  EXPECT_EQ(this->counter(1), 1u);
}

TYPED_TEST(ProtocolTest, ConcurrentReadersBothCommit) {
  this->t1_.begin();
  this->t2_.begin();
  ASSERT_NE(this->t1_.read(this->table_, 2), nullptr);
  ASSERT_NE(this->t2_.read(this->table_, 2), nullptr);
  EXPECT_EQ(this->t1_.commit(), RC::kOk);
  EXPECT_EQ(this->t2_.commit(), RC::kOk);
}

TYPED_TEST(ProtocolTest, ReadThenUpdateOfTheSameRowUpgrades) {
  this->t1_.begin();
  ASSERT_NE(this->t1_.read(this->table_, 3), nullptr);
  ASSERT_TRUE(this->increment(this->t1_, this->table_, 3));
  ASSERT_TRUE(this->increment(this->t1_, this->table_, 3));  // the same private copy
  EXPECT_EQ(this->t1_.accesses().size(), 1u);
  EXPECT_EQ(this->t1_.commit(), RC::kOk);
  EXPECT_EQ(this->counter(3), 2u);
  // A second transaction sees the committed value and its version.
  this->t2_.begin();
  const uint8_t* p = this->t2_.read(this->table_, 3);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(image_version(p - kVersionBytes), this->t1_.id());
  EXPECT_EQ(this->t2_.commit(), RC::kOk);
}

TYPED_TEST(ProtocolTest, LargeAccessSetsFindRepeatedRows) {
  // Past the linear-scan limit the access set is searched through a hash
  // table: every repeated row must still map to its first access.
  using CC = TypeParam;
  constexpr uint64_t kMany = 300;
  Table<CC> big(1, "big", 8, kMany, kMany);
  for (uint64_t k = 0; k < kMany; ++k) big.load(k, k);
  this->t1_.begin();
  for (uint64_t k = 0; k < kMany; ++k) ASSERT_NE(this->t1_.read(big, k), nullptr);
  for (uint64_t k = 0; k < kMany; k += 7) ASSERT_TRUE(this->increment(this->t1_, big, k));
  for (uint64_t k = 0; k < kMany; k += 7) ASSERT_TRUE(this->increment(this->t1_, big, k));
  EXPECT_EQ(this->t1_.accesses().size(), kMany);
  EXPECT_EQ(this->t1_.commit(), RC::kOk);
  for (uint64_t k = 0; k < kMany; ++k) {
    uint64_t c;
    std::memcpy(&c, big.lookup(k)->data() + kVersionBytes, 8);
    EXPECT_EQ(c, k % 7 == 0 ? 2u : 0u) << k;
  }
  // The next attempt starts from an empty access set.
  this->t1_.begin();
  ASSERT_NE(this->t1_.read(big, 3), nullptr);
  EXPECT_EQ(this->t1_.accesses().size(), 1u);
  EXPECT_EQ(this->t1_.commit(), RC::kOk);
}

TYPED_TEST(ProtocolTest, InsertIsInvisibleUntilCommit) {
  this->t1_.begin();
  uint8_t* p = this->t1_.insert(this->table_, 100);
  ASSERT_NE(p, nullptr);
  const uint64_t v = 77;
  std::memcpy(p, &v, 8);
  this->t2_.begin();
  EXPECT_EQ(this->t2_.read(this->table_, 100), nullptr);
  EXPECT_EQ(this->t2_.failure(), RC::kNotFound);
  this->t2_.abort();
  EXPECT_EQ(this->t1_.commit(), RC::kOk);
  EXPECT_EQ(this->counter(100), 77u);
  this->t2_.begin();
  EXPECT_NE(this->t2_.read(this->table_, 100), nullptr);
  EXPECT_EQ(this->t2_.commit(), RC::kOk);
}

TYPED_TEST(ProtocolTest, ReadThenConcurrentOverwrite) {
  using CC = TypeParam;
  this->t1_.begin();
  ASSERT_NE(this->t1_.read(this->table_, 0), nullptr);
  this->t2_.begin();
  const bool writer_got_lock = this->increment(this->t2_, this->table_, 0);
  if (kReadThenOverwrite<CC> == Outcome::kWriterRefusedLock) {
    EXPECT_FALSE(writer_got_lock);
    EXPECT_EQ(this->t2_.failure(), RC::kLockConflict);
    this->t2_.abort();
    EXPECT_EQ(this->t1_.commit(), RC::kOk);
    return;
  }
  ASSERT_TRUE(writer_got_lock);
  EXPECT_EQ(this->t2_.commit(), RC::kOk);
  const RC reader = this->t1_.commit();
  if (kReadThenOverwrite<CC> == Outcome::kReaderAborts) {
    EXPECT_EQ(reader, RC::kValidation);
  } else {
    EXPECT_EQ(reader, RC::kOk);
  }
}

TYPED_TEST(SerializableProtocolTest, LostUpdateIsPrevented) {
  this->t1_.begin();
  this->t2_.begin();
  ASSERT_TRUE(this->increment(this->t1_, this->table_, 0));
  const bool second = this->increment(this->t2_, this->table_, 0);
  if (!second) this->t2_.abort();
  EXPECT_EQ(this->t1_.commit(), RC::kOk);
  if (second) {
    EXPECT_NE(this->t2_.commit(), RC::kOk);
  }
  EXPECT_EQ(this->counter(0), 1u);
}

TYPED_TEST(SerializableProtocolTest, WriteSkewIsPrevented) {
  // T1: r(A) r(B) w(A); T2: r(A) r(B) w(B). Committing both is not serializable.
  auto& t1 = this->t1_;
  auto& t2 = this->t2_;
  t1.begin();
  t2.begin();
  ASSERT_NE(t1.read(this->table_, 0), nullptr);
  ASSERT_NE(t1.read(this->table_, 1), nullptr);
  ASSERT_NE(t2.read(this->table_, 0), nullptr);
  ASSERT_NE(t2.read(this->table_, 1), nullptr);
  int committed = 0;
  if (this->increment(t1, this->table_, 0)) committed += t1.commit() == RC::kOk;
  else t1.abort();
  if (this->increment(t2, this->table_, 1)) committed += t2.commit() == RC::kOk;
  else t2.abort();
  EXPECT_LE(committed, 1);
}

TYPED_TEST(SerializableProtocolTest, AbortReleasesEverything) {
  this->t1_.begin();
  ASSERT_NE(this->t1_.read(this->table_, 0), nullptr);
  ASSERT_TRUE(this->increment(this->t1_, this->table_, 1));
  this->t1_.abort();
  // After the abort another transaction can write both rows and commit.
  this->t2_.begin();
  ASSERT_TRUE(this->increment(this->t2_, this->table_, 0));
  ASSERT_TRUE(this->increment(this->t2_, this->table_, 1));
  EXPECT_EQ(this->t2_.commit(), RC::kOk);
  EXPECT_EQ(this->counter(0), 1u);
  EXPECT_EQ(this->counter(1), 1u);
}

}  // namespace
}  // namespace ccb
