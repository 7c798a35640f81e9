// The checks can fail: each deliberate corruption of the loaded database (or
// of the committed totals) breaks the condition that guards it, and undoing
// it makes every condition hold again.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>

#include "engine/cc/silo/silo.h"
#include "tests/tpcc/tpcc_test_util.h"

namespace ccb {
namespace {

using namespace tpcc;
using namespace tpcc::testing;
using CC = Silo;

class TpccInvariantsTest : public ::testing::Test {
 protected:
  using W = TpccWorkload<CC>;
  static void SetUpTestSuite() {
    workload_ = new W(small_options(1));
    workload_->load(2);
  }
  static void TearDownTestSuite() {
    delete workload_;
    workload_ = nullptr;
  }
  static TpccDatabase<CC>& db() { return workload_->db(); }

  // Applies `corrupt`, expects exactly the conditions in `broken` to fail,
  // each with its text in the detail (where it failed, what was compared),
  // undoes the corruption and expects everything to hold again.
  static void expect_breaks(const std::function<void()>& corrupt, const std::function<void()>& undo,
                            const std::map<std::string, std::string>& broken, const W::ThreadState& committed = {}) {
    corrupt();
    const auto results = workload_->check_invariants({committed});
    std::set<std::string> failed, expected;
    for (const auto& r : results)
      if (!r.ok) failed.insert(r.name);
    for (const auto& [name, text] : broken) {
      expected.insert(name);
      const std::string& detail = find_result(results, name).detail;
      EXPECT_NE(detail.find(text), std::string::npos) << name << ": " << detail;
    }
    EXPECT_EQ(failed, expected);
    undo();
    expect_all_hold(workload_->check_invariants({W::ThreadState{}}));
  }

  static inline W* workload_ = nullptr;
};

TEST_F(TpccInvariantsTest, WarehouseYtdOutOfStep) {
  auto* wh = row<WarehouseRow>(db().warehouse, warehouse_key(1));
  expect_breaks([&] { wh->ytd += 1; }, [&] { wh->ytd -= 1; },
                {{"tpcc_c1_w_ytd_eq_sum_d_ytd", "w 1: W_YTD"},
                 {"tpcc_committed_payments_eq_ytd_and_payment_cnt", "W_YTD grew by 1 cents"}});
}

TEST_F(TpccInvariantsTest, NextOrderIdBehindTheOrders) {
  auto* dist = row<DistrictRow>(db().district, district_key(1, 4));
  // Order 3000 now lies at D_NEXT_O_ID, outside the range the checks scan,
  // so its customer's last-order row also names an order "beyond" the end.
  expect_breaks([&] { dist->next_o_id -= 1; }, [&] { dist->next_o_id += 1; },
                {{"tpcc_c2_next_o_id_eq_max_o_id_eq_max_no_o_id", "w 1 d 4: D_NEXT_O_ID 3000"},
                 {"tpcc_aux_cursor_and_last_order", "w 1 d 4"},
                 {"tpcc_committed_new_orders_eq_inserted_orders", "sum(D_NEXT_O_ID - 3001) -1"}});
}

TEST_F(TpccInvariantsTest, HoleInNewOrder) {
  auto* no = row<NewOrderRow>(db().new_order, order_key(1, 6, 2500));
  expect_breaks([&] { no->delivered = 1; }, [&] { no->delivered = 0; },
                {{"tpcc_c3_new_order_ids_contiguous", "w 1 d 6: max(NO_O_ID) - min(NO_O_ID) + 1 = 900 but 899"},
                 {"tpcc_c5_carrier_null_iff_new_order", "w 1 d 6: order 2500"}});
}

TEST_F(TpccInvariantsTest, OrderLineCountOffByOne) {
  auto* od = row<OrderRow>(db().order, order_key(1, 2, 17));
  expect_breaks([&] { ++od->ol_cnt; }, [&] { --od->ol_cnt; },
                {{"tpcc_c4_sum_ol_cnt_eq_order_lines", "w 1 d 2: sum(O_OL_CNT)"},
                 {"tpcc_c6_ol_cnt_eq_lines_per_order", "w 1 d 2: order 17"}});
}

TEST_F(TpccInvariantsTest, UndeliveredLineWithDeliveryDate) {
  auto* line = row<OrderLineRow>(db().order_line, order_line_key(1, 9, 2999, 2));
  expect_breaks([&] { line->delivery_d = 42; }, [&] { line->delivery_d = 0; },
                {{"tpcc_c7_delivery_d_null_iff_carrier_null", "w 1 d 9: order 2999 line 2"},
                 {"tpcc_customer_balance_eq_delivered_minus_paid", "vs delivered OL_AMOUNT"}});
}

TEST_F(TpccInvariantsTest, DeliveryCursorAheadOfTheOldestUndeliveredOrder) {
  auto* cursor = row<DeliveryCursorRow>(db().delivery_cursor, district_key(1, 10));
  expect_breaks([&] { ++cursor->next_o_id; }, [&] { --cursor->next_o_id; },
                {{"tpcc_aux_cursor_and_last_order", "w 1 d 10: delivery cursor 2102"},
                 {"tpcc_customer_balance_eq_delivered_minus_paid", "vs orders delivered 1"}});
}

TEST_F(TpccInvariantsTest, StaleLastOrderOfACustomer) {
  auto* last = row<CustomerLastOrderRow>(db().customer_last_order, customer_key(1, 1, 99));
  expect_breaks([&] { ++last->o_id; }, [&] { --last->o_id; },
                {{"tpcc_aux_cursor_and_last_order", "w 1 d 1: customer 99"}});
}

TEST_F(TpccInvariantsTest, CustomerBalanceWithoutADelivery) {
  auto* cust = row<CustomerRow>(db().customer, customer_key(1, 3, 5));
  expect_breaks([&] { cust->balance += 100; }, [&] { cust->balance -= 100; },
                {{"tpcc_customer_balance_eq_delivered_minus_paid", "sum(C_BALANCE + C_YTD_PAYMENT) 100"}});
}

TEST_F(TpccInvariantsTest, CommittedWorkMissingFromTheTables) {
  W::ThreadState committed;
  committed.new_orders = 1;
  expect_breaks([] {}, [] {}, {{"tpcc_committed_new_orders_eq_inserted_orders", "but 1 committed NewOrders"}},
                committed);
  committed = {};
  committed.payments = 1;
  committed.payment_cents = 700;
  expect_breaks([] {}, [] {}, {{"tpcc_committed_payments_eq_ytd_and_payment_cnt", "paying 700 cents"}}, committed);
}

}  // namespace
}  // namespace ccb
