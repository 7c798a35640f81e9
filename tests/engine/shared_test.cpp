// The model's policy on the word (engine/core/shared.h), natively: a
// Shared<T, Modelled::kNo> keeps std::atomic's layout and semantics, and a
// LineAccess refuses a word outside the object whose line it charged (a
// modelling error: that word's line was never charged). What each form
// charges under sim is tests/sim/sim_test.cpp's TheModelsPolicy... test.
#include <gtest/gtest.h>

#include <cstdint>

#include "engine/core/shared.h"

namespace ccb {
namespace {

struct Header {
  Shared<uint64_t> word{1};
  Shared<uint64_t, Modelled::kNo> count{0};
};

TEST(SharedTest, AnUnmodelledWordIsAnAtomicOfTheSameLayout) {
  static_assert(sizeof(Shared<uint32_t, Modelled::kNo>) == sizeof(std::atomic<uint32_t>));
  Shared<uint64_t, Modelled::kNo> w{5};
  EXPECT_EQ(w.fetch_add(2), 5u);
  uint64_t expected = 7;
  EXPECT_TRUE(w.compare_exchange_strong(expected, 9));
  EXPECT_EQ(w.load(), 9u);
  EXPECT_EQ(w.exchange(1), 9u);
  EXPECT_EQ(w.reread(), 1u);
}

TEST(SharedTest, ALineAccessReachesTheWordsOfItsObject) {
  Header h;
  const auto row = write_line(h);
  row[h.word].store(4, std::memory_order_relaxed);
  row[h.count].fetch_add(3, std::memory_order_relaxed);
  EXPECT_EQ(read_line(h)[h.word].load(), 4u);
  EXPECT_EQ(h.count.load(), 3u);
  Header fresh;
  unshared_line(fresh)[fresh.word].store(8, std::memory_order_relaxed);
  EXPECT_EQ(fresh.word.load(), 8u);
}

TEST(SharedDeathTest, ALineAccessRefusesAWordOfAnotherObject) {
  Header charged, other;
  const auto row = write_line(charged);
  EXPECT_DEBUG_DEATH(row[other.word].store(2), "inside");
}

}  // namespace
}  // namespace ccb
