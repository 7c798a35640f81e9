// The concurrent hash index loses no insert and never indexes a key twice.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "engine/core/hash_index.h"

namespace ccb {
namespace {

TEST(HashIndex, ConcurrentInsertsAndLookupsLoseNothing) {
  constexpr int kThreads = 4;
  constexpr uint64_t kPerThread = 50'000;
  HashIndex index(1024);  // deliberately undersized: long chains, many CAS races
  std::vector<Arena> arenas(kThreads);
  std::atomic<uint64_t> lookups_ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < kPerThread; ++i) {
        // Interleaved keys: neighbouring keys go to different threads.
        const uint64_t key = i * kThreads + t;
        ASSERT_TRUE(index.insert(key, reinterpret_cast<void*>(key + 1), arenas[t]));
        // Our own key must be visible at once; so must an earlier one of a peer, if inserted.
        ASSERT_EQ(index.lookup(key), reinterpret_cast<void*>(key + 1));
        if (i > 0) {
          void* peer = index.lookup((i - 1) * kThreads + (t + 1) % kThreads);
          if (peer != nullptr) ++lookups_ok;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (uint64_t key = 0; key < kThreads * kPerThread; ++key)
    ASSERT_EQ(index.lookup(key), reinterpret_cast<void*>(key + 1)) << key;
  EXPECT_EQ(index.lookup(kThreads * kPerThread), nullptr);
  EXPECT_GT(lookups_ok.load(), 0u);
}

TEST(HashIndex, ConcurrentDuplicateInsertsHaveExactlyOneWinner) {
  constexpr int kThreads = 4;
  constexpr uint64_t kKeys = 20'000;
  HashIndex index(kKeys);
  std::vector<Arena> arenas(kThreads);
  std::atomic<uint64_t> wins{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (uint64_t k = 0; k < kKeys; ++k)
        if (index.insert(k, reinterpret_cast<void*>(uint64_t(t + 1)), arenas[t])) ++wins;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wins.load(), kKeys);
  for (uint64_t k = 0; k < kKeys; ++k) EXPECT_NE(index.lookup(k), nullptr);
}

}  // namespace
}  // namespace ccb
