// Key-value micro benchmark: 5 reads + 5 writes with one shared object,
// counter invariant, options.
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <set>

#include "engine/cc/nowait/nowait.h"
#include "tests/workloads/test_util.h"
#include "workloads/micro/micro.h"

DECLARE_uint64(micro_objects);
DECLARE_double(theta);

namespace ccb {
namespace {

using CC = NoWait;
using W = MicroWorkload<CC>;
using ccb::testing::expect_all_hold;

TEST(MicroTest, FiveReadsFiveWritesOneSharedObject) {
  MicroOptions o;
  o.objects = 1000;
  o.key_skew.theta = 0.9;
  W w(o);
  w.load(2);
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  W::ThreadState ts;
  Random rng(2);
  std::vector<uint64_t> hits(1000);
  for (int i = 0; i < 3000; ++i) {
    MicroRequest r;
    w.generate(rng, 0, r);
    std::set<uint64_t> keys(r.keys, r.keys + MicroOptions::kKeys);
    ASSERT_EQ(keys.size(), 9u);
    for (uint64_t k : keys) ++hits[k];
    const TxnDesc d = w.describe(r);
    ASSERT_EQ(d.read_set.size(), 4u);   // read-only objects
    ASSERT_EQ(d.write_set.size(), 5u);  // one read-modify-write + 4 writes
    ccb::testing::expect_describe_matches<CC>(w, txn, r, ts);
    ASSERT_EQ(txn.accesses().size(), 9u);
  }
  EXPECT_GT(hits[0], hits[10]);  // Zipf: object 0 is the hottest
  EXPECT_EQ(ts.writes, 15000u);
  EXPECT_EQ(w.table_by_id(W::kTableId), &w.table());
  expect_all_hold(w.check_invariants({ts}));
  store_field<uint64_t>(w.table().lookup(3)->data() + kVersionBytes, 0, 0);
  store_field<uint64_t>(w.table().lookup(0)->data() + kVersionBytes, 0, 0);
  EXPECT_FALSE(ccb::testing::all_hold(w.check_invariants({ts})));
}

TEST(MicroTest, WritesIncrementAndReadsDoNot) {
  MicroOptions o;
  o.objects = 100;
  W w(o);
  w.load(1);
  CC cc;
  Txn<CC> txn(cc, 0, nullptr);
  W::ThreadState ts;
  MicroRequest r;
  for (uint32_t i = 0; i < MicroOptions::kKeys; ++i) r.keys[i] = 10 * i;
  ASSERT_EQ(ccb::testing::run_once<CC>(w, txn, r, ts), RC::kOk);
  auto counter = [&](uint64_t k) { return load_field<uint64_t>(w.table().lookup(k)->data() + kVersionBytes, 0); };
  EXPECT_EQ(counter(0), 1u);
  for (uint64_t k : {10, 20, 30, 40}) EXPECT_EQ(counter(k), 0u);
  for (uint64_t k : {50, 60, 70, 80}) EXPECT_EQ(counter(k), 1u);
}

TEST(MicroOptionsTest, FlagsAreValidated) {
  gflags::FlagSaver restore;
  FLAGS_micro_objects = 9;
  FLAGS_theta = 0.7;
  EXPECT_EQ(MicroOptions::from_flags().objects, 9u);
  FLAGS_micro_objects = 8;
  ccb::testing::expect_config_error([] { MicroOptions::from_flags(); }, "micro_objects");
}

}  // namespace
}  // namespace ccb
