#include "partitioners/schism/schism.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "partitioners/residual.h"
#include "tests/partitioners/txn_builder.h"

namespace ccb::schism {
namespace {

using test::txn;
using V = std::vector<uint32_t>;

// Two groups of 20 records (keys 0..19 and 100..119), each a ring of 20
// transactions writing neighbouring records; every transaction also reads
// record 999, which nobody writes. The obvious 2-way cut separates the
// groups and cuts nothing; record 999 would join them if it were a vertex
// (Schism's replication of a never-written tuple, schism.h).
std::vector<TxnDesc> two_groups(bool bridge) {
  std::vector<TxnDesc> b;
  for (uint64_t base : {0, 100})
    for (uint64_t i = 0; i < 20; ++i) b.push_back(txn({999}, {base + i, base + (i + 1) % 20}));
  if (bridge) b.push_back(txn({}, {0, 100}));  // 40: the only co-access across the groups
  test::number(b);
  return b;
}

bool same_part(const Partitioning& p, uint32_t lo, uint32_t hi, const V& except, size_t* part) {
  for (size_t i = 0; i < p.parts.size(); ++i) {
    for (uint32_t t = lo; t < hi; ++t) {
      if (std::count(except.begin(), except.end(), t)) continue;
      if (std::count(p.parts[i].begin(), p.parts[i].end(), t) == 0) goto next;
    }
    *part = i;
    return true;
  next:;
  }
  return false;
}

TEST(Schism, FindsTheObviousTwoWayCut) {
  const auto b = two_groups(false);
  SchismPartitioner s(Options{});
  Partitioning out;
  s.partition(b, 2, out);
  EXPECT_EQ(out.validate(b.size()), "");
  EXPECT_EQ(s.last_graph().vertices, 40u);  // record 999 is not a vertex
  EXPECT_EQ(s.last_graph().edges, 40u);
  EXPECT_EQ(s.last_graph().cut, 0u);
  EXPECT_TRUE(out.residual.empty());
  size_t pa = 9, pb = 9;
  ASSERT_TRUE(same_part(out, 0, 20, {}, &pa));
  ASSERT_TRUE(same_part(out, 20, 40, {}, &pb));
  EXPECT_NE(pa, pb);
  EXPECT_GT(out.partition_us, 0);
}

// Schism gives no residual (TSKD §6.1): the bridge joins one group and
// conflicts with that group's other side; TSKD's extraction (residual.h)
// then moves the bridge and the two writers of its record there to R.
TEST(Schism, CutsTheBridgeAndGivesNoResidualTskdExtractsIt) {
  const auto b = two_groups(true);
  SchismPartitioner s(Options{});
  EXPECT_FALSE(s.gives_residual());
  Partitioning out;
  s.partition(b, 2, out);
  EXPECT_EQ(out.validate(b.size()), "");
  EXPECT_EQ(s.last_graph().cut, 1u);  // the bridge's one co-access edge
  EXPECT_TRUE(out.residual.empty());
  size_t pa = 9, pb = 9;
  ASSERT_TRUE(same_part(out, 0, 20, {40}, &pa));
  ASSERT_TRUE(same_part(out, 20, 40, {40}, &pb));
  EXPECT_NE(pa, pb);
  extract_residual(b, out);
  EXPECT_EQ(out.validate(b.size()), "");
  ASSERT_EQ(out.residual.size(), 3u);
  EXPECT_TRUE(std::count(out.residual.begin(), out.residual.end(), 40u));
  const V r = out.residual;
  const bool in_a = std::count(r.begin(), r.end(), 19u) && std::count(r.begin(), r.end(), 0u);
  const bool in_b = std::count(r.begin(), r.end(), 39u) && std::count(r.begin(), r.end(), 20u);
  EXPECT_TRUE(in_a != in_b) << "residual must be the bridge and the two writers of its record in one group";
  ASSERT_TRUE(same_part(out, 0, 20, r, &pa));
  ASSERT_TRUE(same_part(out, 20, 40, r, &pb));
  EXPECT_NE(pa, pb);
}

TEST(Schism, EdgesWeighCoAccessAndOneCoreTakesEverything) {
  // Records 1, 2 are co-accessed twice; 3 has one accessor, 4 is read only.
  std::vector<TxnDesc> b = {txn({4}, {1, 2}), txn({}, {1, 2}), txn({4}, {2, 3})};
  test::number(b);
  SchismPartitioner s(Options{});
  Partitioning out;
  s.partition(b, 1, out);
  EXPECT_EQ(s.last_graph().vertices, 2u);
  EXPECT_EQ(s.last_graph().edges, 1u);
  EXPECT_EQ(out.parts, (std::vector<V>{{0, 1, 2}}));
  EXPECT_TRUE(out.residual.empty());
}

TEST(Schism, SameSeedSamePartition) {
  const auto b = two_groups(true);
  Partitioning x, y;
  make_schism({.seed = 5})->partition(b, 3, x);
  make_schism({.seed = 5})->partition(b, 3, y);
  EXPECT_EQ(x.parts, y.parts);
  EXPECT_EQ(x.residual, y.residual);
  EXPECT_EQ(x.validate(b.size()), "");
}

}  // namespace
}  // namespace ccb::schism
