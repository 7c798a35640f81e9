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

// Txn::prefetch fetches, for each key, the first node its bucket chains
// (ChainedHashIndex::first_in_bucket, through Table::prefetch_row), without
// walking the chain. That is the key's own row whenever the key was the last
// one pushed on its chain: for an index sized for its keys, most keys (about
// 1 - 1/e = 63 % with random hashing; more with Fibonacci hashing of strided
// keys). If the prefetch targeted anything else (a neighbouring bucket, the
// chain's tail), this would fail.
struct TestNode {
  uint64_t key;
  TestNode* next;
};
TEST(HashIndexPrefetch, TheBucketsFirstNodeIsTheKeysOwnForMostKeys) {
  constexpr uint64_t kKeys = 100'000;
  ChainedHashIndex<TestNode> index(kKeys);
  std::vector<TestNode> nodes(kKeys);
  for (uint64_t k = 0; k < kKeys; ++k) {
    nodes[k].key = k * 7 + 3;  // strided, as composite keys are
    ASSERT_TRUE(index.insert(&nodes[k]));
  }
  uint64_t own = 0;
  for (uint64_t k = 0; k < kKeys; ++k) {
    ASSERT_EQ(index.lookup(k * 7 + 3), &nodes[k]);
    own += index.first_in_bucket(k * 7 + 3) == &nodes[k];
  }
  EXPECT_GE(own, kKeys * 60 / 100) << own << " of " << kKeys;
  // An absent key whose bucket is empty: nothing to prefetch.
  ChainedHashIndex<TestNode> empty(16);
  EXPECT_EQ(empty.first_in_bucket(42), nullptr);
  empty.prefetch_bucket(42);
}

}  // namespace
}  // namespace ccb
