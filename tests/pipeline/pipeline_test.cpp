// Unit tests of the pipeline engine's storage and validator rules (Ding et
// al., PVLDB 2018, §3.1, §4.3, §5 setup).
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "systems/pipeline/validator_cache.h"
#include "systems/pipeline/versioned_store.h"

namespace ccb::pipeline {
namespace {

using reorder::ReadVersion;

TEST(StorePartition, IgnoresAWriteOlderThanTheStoredVersion) {
  StorePartition part([](GlobalKey k) { return static_cast<int64_t>(k) * 10; });
  EXPECT_EQ(part.read(7).value, 70);  // the loaded value, version 0
  EXPECT_EQ(part.read(7).version, 0u);
  EXPECT_TRUE(part.write(7, 1, 5));
  EXPECT_FALSE(part.write(7, 2, 3));  // §5: version 3 < 5 exists: ignored
  EXPECT_EQ(part.read(7).value, 1);
  EXPECT_EQ(part.read(7).version, 5u);
  EXPECT_TRUE(part.write(7, 3, 9));
  EXPECT_EQ(part.read(7).version, 9u);
}

// A storage request: a write (key 1, value, version) or a read of key 1.
struct Req {
  bool write;
  int64_t value;
  uint64_t version;
  StoredObject seen{};
};

std::vector<StoredObject> serve(std::vector<Req> batch, bool reorder) {
  StorePartition part([](GlobalKey) { return int64_t{0}; });
  serve_storage_batch(std::span<Req>(batch), reorder, [](const Req& r) { return r.write; },
                      [&](Req& r) {
                        if (r.write) part.write(1, r.value, r.version);
                        else r.seen = part.read(1);
                      });
  std::vector<StoredObject> reads;
  for (const Req& r : batch)
    if (!r.write) reads.push_back(r.seen);
  reads.push_back(part.read(1));  // the final state
  return reads;
}

TEST(StorageBatching, ReorderingAppliesTheHighestVersionBeforeEveryRead) {
  const std::vector<Req> batch = {{true, 50, 5}, {false, 0, 0}, {true, 30, 3}, {true, 70, 7}, {false, 0, 0}};
  // §3.1: apply the highest-version write per object, discard the others, then serve the reads.
  const auto reordered = serve(batch, true);
  ASSERT_EQ(reordered.size(), 3u);
  EXPECT_EQ(reordered[0].version, 7u);
  EXPECT_EQ(reordered[0].value, 70);
  EXPECT_EQ(reordered[1].version, 7u);
  EXPECT_EQ(reordered[2].version, 7u);  // the lower versions 5 and 3 did not win
  EXPECT_EQ(reordered[2].value, 70);
  // Arrival order (mode batch): the first read sees version 5, the stale write 3 is ignored.
  const auto arrival = serve(batch, false);
  EXPECT_EQ(arrival[0].version, 5u);
  EXPECT_EQ(arrival[0].value, 50);
  EXPECT_EQ(arrival[1].version, 7u);
  EXPECT_EQ(arrival[2].value, 70);
}

TEST(ValidatorCache, ConflictRuleOnTwoTransactions) {
  // T1 and T2 both read X (key 1) at version 0; T1 writes X and commits first
  // with timestamp 1. A read of version k conflicts iff a committed T(i),
  // i > k, wrote X (§2): T2's read of version 0 meets T1's write.
  ValidatorCache cache;
  const std::vector<ReadVersion> t1 = {{1, 0}}, t2 = {{1, 0}, {2, 0}};
  EXPECT_FALSE(read_conflicts(t1, cache));
  cache.publish(1, 1);  // T1 commits, ts 1, writes X
  EXPECT_TRUE(read_conflicts(t2, cache));
  const std::vector<ReadVersion> t3 = {{1, 1}, {2, 0}};  // read T1's version: no conflict
  EXPECT_FALSE(read_conflicts(t3, cache));
  EXPECT_EQ(cache.latest(2), 0u);  // never written: the initial load's version
}

// Ordered-batch validation with three transactions over keys X = 1, Y = 2.
struct Fixture {
  std::vector<std::vector<ReadVersion>> reads;
  std::vector<std::vector<GlobalKey>> writes;
  std::vector<BatchMember> members() const {
    std::vector<BatchMember> m;
    for (size_t i = 0; i < reads.size(); ++i) m.push_back({reads[i], writes[i]});
    return m;
  }
};

TEST(ValidateOrderedBatch, CacheUpdatedInSerializationOrderAtTheBatchEnd) {
  // Positions 0 and 1 both write X (blindly); 2 writes Y. Commit order 1, 0, 2.
  Fixture f{{{}, {}, {}}, {{1}, {1}, {2}}};
  ValidatorCache cache;
  uint64_t last_ts = 10;
  const std::vector<uint32_t> order = {1, 0, 2};
  std::vector<uint64_t> seen_during_batch;
  const auto members = f.members();
  const auto ts = validate_ordered_batch(cache, members, order, last_ts, true,
                                         [&](uint32_t, uint64_t, const auto& current) {
                                           seen_during_batch.push_back(cache.latest(1));  // not yet published
                                           seen_during_batch.push_back(current(1));       // serialization order
                                         });
  EXPECT_EQ(ts, (std::vector<uint64_t>{12, 11, 13}));
  EXPECT_EQ(last_ts, 13u);
  EXPECT_EQ(seen_during_batch, (std::vector<uint64_t>{0, 0, 0, 11, 0, 12}));
  // X's latest is the later one in serialization order (position 0, ts 12), not in arrival order.
  EXPECT_EQ(cache.latest(1), 12u);
  EXPECT_EQ(cache.latest(2), 13u);
}

TEST(ValidateOrderedBatch, AReadOverwrittenEarlierInTheBatchAborts) {
  // Position 0 reads X at version 0; position 1 writes X. Edge 0 -> 1: 0 must
  // commit first. In that order both commit; the other way round 0 read a
  // value that 1 overwrote inside the batch and must abort.
  Fixture f{{{{1, 0}}, {}}, {{}, {1}}};
  const auto members = f.members();
  auto run = [&](std::vector<uint32_t> order, bool check) {
    ValidatorCache cache;
    uint64_t last_ts = 0;
    return validate_ordered_batch(cache, members, order, last_ts, check, [](uint32_t, uint64_t, const auto&) {});
  };
  EXPECT_EQ(run({0, 1}, true), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(run({1, 0}, true), (std::vector<uint64_t>{0, 1}));
  // The planted bug (no in-batch check) commits it: the checker must catch that (stress test).
  EXPECT_EQ(run({1, 0}, false), (std::vector<uint64_t>{2, 1}));
}

TEST(ValidateOrderedBatch, ReadOfAnOlderCommittedVersionAborts) {
  Fixture f{{{{1, 3}}, {{2, 0}}}, {{}, {}}};
  ValidatorCache cache;
  cache.publish(1, 4);
  uint64_t last_ts = 4;
  const auto members = f.members();
  const std::vector<uint32_t> order = {0, 1};
  const auto ts = validate_ordered_batch(cache, members, order, last_ts, true, [](uint32_t, uint64_t, const auto&) {});
  EXPECT_EQ(ts, (std::vector<uint64_t>{0, 5}));
}

}  // namespace
}  // namespace ccb::pipeline
