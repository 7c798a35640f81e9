// TPC-W-like workload: thread roles, DoCart and OrderProcess semantics, the
// three invariants and the options.
#include <gflags/gflags.h>
#include <gtest/gtest.h>

#include <set>

#include "engine/cc/nowait/nowait.h"
#include "tests/workloads/test_util.h"
#include "workloads/tpcw/tpcw.h"

DECLARE_uint64(tpcw_items);
DECLARE_double(tpcw_hot_prob);
DECLARE_uint32(tpcw_cart_items);
DECLARE_uint32(tpcw_order_lines);
DECLARE_uint32(tpcw_order_threads);

namespace ccb {
namespace {

using CC = NoWait;
using W = TpcwWorkload<CC>;
using ccb::testing::expect_all_hold;
using ccb::testing::run_once;

TpcwOptions small_options() {
  TpcwOptions o;
  o.items = 200;
  o.hot_prob = 0.5;
  o.cart_items = 5;
  o.order_lines = 10;
  o.order_threads = 1;
  return o;
}

class TpcwTest : public ::testing::Test {
 protected:
  TpcwTest() : w_(small_options()), txn_(cc_, 0, nullptr) { w_.load(2); }
  const TpcwItem& item(uint32_t i) {
    return *reinterpret_cast<const TpcwItem*>(w_.items().lookup(i)->data() + kVersionBytes);
  }
  const TpcwCart& cart(uint32_t s) {
    return *reinterpret_cast<const TpcwCart*>(w_.carts().lookup(s)->data() + kVersionBytes);
  }
  std::vector<InvariantResult> invariants() { return w_.check_invariants({ts_}); }

  CC cc_;
  W w_;
  Txn<CC> txn_;
  W::ThreadState ts_;
};

TEST_F(TpcwTest, ThreadZeroOrdersTheOthersShopWithTheHotItemAsConfigured) {
  Random rng(1);
  int hot_carts = 0;
  for (int i = 0; i < 4000; ++i) {
    TpcwRequest r;
    const uint32_t thread = i % 4;
    w_.generate(rng, thread, r);
    std::set<uint32_t> distinct(r.item, r.item + r.n);
    ASSERT_EQ(distinct.size(), r.n);
    for (uint32_t k = 0; k < r.n; ++k) ASSERT_LT(r.item[k], 200u);
    const bool hot = distinct.count(W::kHotItem) > 0;
    if (thread == 0) {
      ASSERT_EQ(r.txn(), TpcwTxn::kOrderProcess);
      ASSERT_EQ(r.n, 10u);
      ASSERT_TRUE(hot);  // "one hot item in the orders processed by each OrderProcess"
      for (uint32_t k = 0; k < r.n; ++k) ASSERT_TRUE(r.qty[k] >= 1 && r.qty[k] <= TpcwGenerator::kMaxQty);
    } else {
      ASSERT_EQ(r.txn(), TpcwTxn::kDoCart);
      ASSERT_EQ(r.n, 5u);
      ASSERT_EQ(r.session, thread);
      hot_carts += hot;
    }
  }
  EXPECT_NEAR(hot_carts, 1500, 120);  // hot_prob 0.5 of 3000 DoCarts
}

TEST_F(TpcwTest, OrderProcessUpdatesStockWithRestockRule) {
  TpcwRequest r{};
  r.type = static_cast<uint32_t>(TpcwTxn::kOrderProcess);
  r.n = 2;
  r.item[0] = W::kHotItem;
  r.item[1] = 7;
  r.qty[0] = 5;
  r.qty[1] = 1;
  const int64_t stock7 = item(7).stock;
  for (int i = 0; i < 20; ++i) ASSERT_EQ(run_once<CC>(w_, txn_, r, ts_), RC::kOk);
  EXPECT_EQ(item(W::kHotItem).sold, 100);
  EXPECT_GT(item(W::kHotItem).restocks, 0);  // 100 units out of at most 30 in stock
  EXPECT_GE(item(W::kHotItem).stock, W::kRestockBelow);
  EXPECT_EQ(item(7).sold, 20);
  EXPECT_EQ(item(7).stock, stock7 - 20 + W::kRestockUnits * item(7).restocks);
  EXPECT_EQ(ts_.units_ordered, 120u);
  expect_all_hold(invariants());
}

TEST_F(TpcwTest, DoCartFillsTheSessionCartAndDisplaysItsSubtotal) {
  TpcwRequest r{};
  r.type = static_cast<uint32_t>(TpcwTxn::kDoCart);
  r.session = 3;
  r.n = 3;
  r.item[0] = 10, r.item[1] = 11, r.item[2] = W::kHotItem;
  for (int i = 0; i < 2; ++i) ASSERT_EQ(run_once<CC>(w_, txn_, r, ts_), RC::kOk);
  EXPECT_EQ(cart(3).adds, 6u);
  EXPECT_EQ(cart(3).lines, 3u);
  EXPECT_EQ(cart(3).subtotal, 2 * (item(10).price + item(11).price + item(W::kHotItem).price));
  EXPECT_EQ(cart(2).adds, 0u);  // other sessions untouched
  // More distinct items than lines: the cart replaces its oldest lines.
  for (uint32_t i = 0; i < 6; ++i) {
    r.n = 3;
    for (uint32_t k = 0; k < 3; ++k) r.item[k] = 20 + 3 * i + k;
    ASSERT_EQ(run_once<CC>(w_, txn_, r, ts_), RC::kOk);
  }
  EXPECT_EQ(cart(3).lines, TpcwCart::kLines);
  EXPECT_EQ(cart(3).adds, 24u);
  int64_t subtotal = 0;
  for (uint32_t l = 0; l < TpcwCart::kLines; ++l) subtotal += cart(3).line[l].qty * item(cart(3).line[l].item).price;
  EXPECT_EQ(cart(3).subtotal, subtotal);
  EXPECT_EQ(ts_.cart_adds, 24u);
  expect_all_hold(invariants());
}

TEST_F(TpcwTest, DescribePredictsTheAccessedRowsAndInvariantsCatchCorruption) {
  Random rng(9);
  for (int i = 0; i < 2000; ++i) {
    TpcwRequest r;
    w_.generate(rng, i % 3, r);
    ccb::testing::expect_describe_matches<CC>(w_, txn_, r, ts_);
  }
  expect_all_hold(invariants());
  EXPECT_EQ(w_.table_by_id(W::kItemId), &w_.items());
  EXPECT_EQ(w_.table_by_id(W::kCartId), &w_.carts());
  EXPECT_EQ(w_.table_by_id(0), nullptr);
  // A lost OrderProcess update: the item forgets one sold unit and its stock.
  auto* it = reinterpret_cast<TpcwItem*>(w_.items().lookup(W::kHotItem)->data() + kVersionBytes);
  it->sold -= 1;
  it->stock += 1;
  auto inv = invariants();
  EXPECT_TRUE(inv[0].ok) << inv[0].detail;  // still consistent per row ...
  EXPECT_FALSE(inv[1].ok);                  // ... but units sold != units ordered
  it->stock += 1;
  EXPECT_FALSE(invariants()[0].ok);
  auto* c = reinterpret_cast<TpcwCart*>(w_.carts().lookup(1)->data() + kVersionBytes);
  c->adds += 1;
  EXPECT_FALSE(invariants()[2].ok);
}

TEST(TpcwOptionsTest, FlagsAreValidated) {
  gflags::FlagSaver restore;
  FLAGS_tpcw_items = 500;
  FLAGS_tpcw_hot_prob = 0.2;
  FLAGS_tpcw_order_threads = 2;
  const TpcwOptions o = TpcwOptions::from_flags();
  EXPECT_EQ(o.items, 500u);
  EXPECT_EQ(o.hot_prob, 0.2);
  EXPECT_EQ(o.order_threads, 2u);
  FLAGS_tpcw_hot_prob = 1.5;
  ccb::testing::expect_config_error([] { TpcwOptions::from_flags(); }, "tpcw_hot_prob");
  FLAGS_tpcw_hot_prob = 1;
  FLAGS_tpcw_cart_items = 0;
  ccb::testing::expect_config_error([] { TpcwOptions::from_flags(); }, "tpcw_cart_items");
  FLAGS_tpcw_cart_items = 5;
  FLAGS_tpcw_order_lines = 33;
  ccb::testing::expect_config_error([] { TpcwOptions::from_flags(); }, "tpcw_order_lines");
  FLAGS_tpcw_order_lines = 10;
  FLAGS_tpcw_items = 10;
  ccb::testing::expect_config_error([] { TpcwOptions::from_flags(); }, "tpcw_items");
  FLAGS_tpcw_items = 100;
  FLAGS_tpcw_order_threads = 0;
  ccb::testing::expect_config_error([] { TpcwOptions::from_flags(); }, "tpcw_order_threads");
}

}  // namespace
}  // namespace ccb
