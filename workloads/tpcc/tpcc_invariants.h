// Post-run consistency checks of a TPC-C database: the spec's consistency
// conditions 1-7 (clause 3.3.2), conservation laws against what the workers
// committed, and the invariants of the auxiliary structures.
//
// The primary indexes are hashes and cannot be scanned, so rows inserted
// during the run are found by key: every order id of a district lies in
// [1, D_NEXT_O_ID), and every order line of an order in OL_NUMBER 1..15.
// Probing one id past the range catches rows the counters do not account for.
//
// Each result's detail names the first offending warehouse/district and the
// numbers compared, or the totals when the condition holds.
//
// Thread safety: REQUIRES that no transaction runs (rows are read directly).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/tpcc/tpcc_database.h"
#include "engine/workload.h"

namespace ccb::tpcc {

// What the workers committed (summed over their ThreadStates).
struct CommittedTotals {
  uint64_t new_orders = 0;
  uint64_t payments = 0;
  int64_t payment_cents = 0;
};

namespace detail {

// One named condition: the first failure's message, or a summary.
class Condition {
 public:
  explicit Condition(std::string name) : name_(std::move(name)) {}
  // Records a failure unless `ok`; the message is built only on failure.
  template <class Describe>
  void expect(bool ok, Describe&& describe) {
    if (ok) return;
    if (failures_++ == 0) first_ = describe();
  }
  InvariantResult result(const std::string& summary) const {
    if (failures_ == 0) return {name_, true, summary};
    return {name_, false, first_ + (failures_ > 1 ? " (and " + std::to_string(failures_ - 1) + " more)" : "")};
  }

 private:
  std::string name_;
  uint64_t failures_ = 0;
  std::string first_;
};

inline std::string at(uint32_t w, uint32_t d) { return "w " + std::to_string(w) + " d " + std::to_string(d) + ": "; }

}  // namespace detail

template <class CC>
std::vector<InvariantResult> check_tpcc_invariants(TpccDatabase<CC>& db, const CommittedTotals& committed) {
  using detail::at;
  using Db = TpccDatabase<CC>;
  detail::Condition c1("tpcc_c1_w_ytd_eq_sum_d_ytd"), c2("tpcc_c2_next_o_id_eq_max_o_id_eq_max_no_o_id"),
      c3("tpcc_c3_new_order_ids_contiguous"), c4("tpcc_c4_sum_ol_cnt_eq_order_lines"),
      c5("tpcc_c5_carrier_null_iff_new_order"), c6("tpcc_c6_ol_cnt_eq_lines_per_order"),
      c7("tpcc_c7_delivery_d_null_iff_carrier_null"), aux("tpcc_aux_cursor_and_last_order"),
      orders_conserved("tpcc_committed_new_orders_eq_inserted_orders"),
      payments_conserved("tpcc_committed_payments_eq_ytd_and_payment_cnt"),
      customers_conserved("tpcc_customer_balance_eq_delivered_minus_paid");

  uint64_t orders = 0, new_order_rows = 0, order_lines = 0, deliveries_after_load = 0;
  int64_t inserted_orders = 0, ytd_growth = 0, delivered_amount = 0, customer_money = 0;
  uint64_t payment_cnt_growth = 0, delivery_cnt = 0;
  std::vector<uint32_t> last_order(kCustomersPerDistrict + 1);

  for (uint32_t w = 1; w <= db.warehouses(); ++w) {
    const auto* wh = Db::template row<WarehouseRow>(db.warehouse, warehouse_key(w));
    int64_t sum_d_ytd = 0;
    for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
      const auto* dist = Db::template row<DistrictRow>(db.district, district_key(w, d));
      sum_d_ytd += dist->ytd;
      const uint32_t next = dist->next_o_id;
      inserted_orders += int64_t{next} - (kOrdersPerDistrict + 1);

      // Condition 2 (orders): order next - 1 exists, order next does not.
      c2.expect(
          db.order.lookup(order_key(w, d, next - 1)) != nullptr && db.order.lookup(order_key(w, d, next)) == nullptr,
          [&] { return at(w, d) + "D_NEXT_O_ID " + std::to_string(next) + " but max(O_ID) differs"; });
      c2.expect(db.new_order.lookup(order_key(w, d, next)) == nullptr,
                [&] { return at(w, d) + "a NEW-ORDER row at D_NEXT_O_ID " + std::to_string(next); });

      uint32_t no_min = 0, no_max = 0, no_count = 0;
      uint64_t sum_ol_cnt = 0, lines_in_district = 0;
      std::fill(last_order.begin(), last_order.end(), 0);
      for (uint32_t o = 1; o < next; ++o) {
        const auto* od = Db::template row<OrderRow>(db.order, order_key(w, d, o));
        c2.expect(od != nullptr,
                  [&] { return at(w, d) + "order " + std::to_string(o) + " missing below D_NEXT_O_ID"; });
        if (od == nullptr) continue;
        ++orders;
        const auto* no = Db::template row<NewOrderRow>(db.new_order, order_key(w, d, o));
        const bool undelivered = no != nullptr && !no->delivered;
        if (undelivered) {
          if (no_count++ == 0) no_min = o;
          no_max = o;
        }
        c5.expect(undelivered == (od->carrier_id == 0), [&] {
          return at(w, d) + "order " + std::to_string(o) + " O_CARRIER_ID " + std::to_string(od->carrier_id) +
                 (undelivered ? " with" : " without") + " a NEW-ORDER row";
        });
        if (od->c_id >= 1 && od->c_id <= kCustomersPerDistrict) last_order[od->c_id] = o;
        aux.expect(od->c_id >= 1 && od->c_id <= kCustomersPerDistrict,
                   [&] { return at(w, d) + "order " + std::to_string(o) + " has O_C_ID " + std::to_string(od->c_id); });

        sum_ol_cnt += od->ol_cnt;
        uint32_t lines = 0;
        for (uint32_t ol = 1; ol <= kMaxOrderLines; ++ol) {
          const auto* line = Db::template row<OrderLineRow>(db.order_line, order_line_key(w, d, o, ol));
          if (line == nullptr) continue;
          ++lines;
          c7.expect((line->delivery_d == 0) == (od->carrier_id == 0), [&] {
            return at(w, d) + "order " + std::to_string(o) + " line " + std::to_string(ol) + " OL_DELIVERY_D " +
                   std::to_string(line->delivery_d) + " vs O_CARRIER_ID " + std::to_string(od->carrier_id);
          });
          if (line->delivery_d != 0) delivered_amount += line->amount;
        }
        lines_in_district += lines;
        c6.expect(lines == od->ol_cnt, [&] {
          return at(w, d) + "order " + std::to_string(o) + " O_OL_CNT " + std::to_string(od->ol_cnt) + " but " +
                 std::to_string(lines) + " ORDER-LINE rows";
        });
      }
      new_order_rows += no_count;
      order_lines += lines_in_district;

      // Condition 2 (NEW-ORDER part) and 3; an empty NEW-ORDER has no max.
      c2.expect(no_count == 0 || no_max == next - 1, [&] {
        return at(w, d) + "max(NO_O_ID) " + std::to_string(no_max) + ", D_NEXT_O_ID - 1 = " + std::to_string(next - 1);
      });
      c3.expect(no_count == 0 || no_max - no_min + 1 == no_count, [&] {
        return at(w, d) + "max(NO_O_ID) - min(NO_O_ID) + 1 = " + std::to_string(no_max - no_min + 1) + " but " +
               std::to_string(no_count) + " NEW-ORDER rows";
      });
      c4.expect(sum_ol_cnt == lines_in_district, [&] {
        return at(w, d) + "sum(O_OL_CNT) " + std::to_string(sum_ol_cnt) + " but " + std::to_string(lines_in_district) +
               " ORDER-LINE rows";
      });

      // Auxiliary structures: the delivery cursor is the oldest undelivered
      // order, and each customer's last-order row names its newest order.
      const uint32_t cursor = Db::template row<DeliveryCursorRow>(db.delivery_cursor, district_key(w, d))->next_o_id;
      aux.expect(cursor == (no_count ? no_min : next), [&] {
        return at(w, d) + "delivery cursor " + std::to_string(cursor) + ", oldest undelivered order " +
               std::to_string(no_count ? no_min : next);
      });
      deliveries_after_load += cursor - kFirstUndeliveredOrder;
      for (uint32_t c = 1; c <= kCustomersPerDistrict; ++c) {
        const auto* cust = Db::template row<CustomerRow>(db.customer, customer_key(w, d, c));
        customer_money += cust->balance + cust->ytd_payment;
        payment_cnt_growth += cust->payment_cnt - 1;
        delivery_cnt += cust->delivery_cnt;
        const uint32_t recorded =
            Db::template row<CustomerLastOrderRow>(db.customer_last_order, customer_key(w, d, c))->o_id;
        aux.expect(recorded == last_order[c], [&] {
          return at(w, d) + "customer " + std::to_string(c) + " last order " + std::to_string(recorded) +
                 ", newest order " + std::to_string(last_order[c]);
        });
      }
    }
    c1.expect(wh->ytd == sum_d_ytd, [&] {
      return "w " + std::to_string(w) + ": W_YTD " + std::to_string(wh->ytd) + " but sum(D_YTD) " +
             std::to_string(sum_d_ytd);
    });
    ytd_growth += wh->ytd - kInitialWarehouseYtd;
  }

  orders_conserved.expect(inserted_orders == static_cast<int64_t>(committed.new_orders), [&] {
    return "sum(D_NEXT_O_ID - 3001) " + std::to_string(inserted_orders) + " but " +
           std::to_string(committed.new_orders) + " committed NewOrders";
  });
  payments_conserved.expect(ytd_growth == committed.payment_cents && payment_cnt_growth == committed.payments, [&] {
    return "W_YTD grew by " + std::to_string(ytd_growth) + " cents and C_PAYMENT_CNT by " +
           std::to_string(payment_cnt_growth) + "; committed Payments: " + std::to_string(committed.payments) +
           " paying " + std::to_string(committed.payment_cents) + " cents";
  });
  // Each delivered order adds its OL_AMOUNT sum to one C_BALANCE and one
  // C_DELIVERY_CNT; each payment moves H_AMOUNT from C_BALANCE to
  // C_YTD_PAYMENT; loaded balances cancel (-10.00 + 10.00) and loaded
  // delivered lines have OL_AMOUNT 0. (Condition 10 summed over customers.)
  customers_conserved.expect(customer_money == delivered_amount && delivery_cnt == deliveries_after_load, [&] {
    return "sum(C_BALANCE + C_YTD_PAYMENT) " + std::to_string(customer_money) + " vs delivered OL_AMOUNT " +
           std::to_string(delivered_amount) + "; sum(C_DELIVERY_CNT) " + std::to_string(delivery_cnt) +
           " vs orders delivered " + std::to_string(deliveries_after_load);
  });

  const std::string totals = std::to_string(orders) + " orders, " + std::to_string(new_order_rows) + " undelivered, " +
                             std::to_string(order_lines) + " order lines";
  return {c1.result("W_YTD = sum(D_YTD) in all " + std::to_string(db.warehouses()) + " warehouses"),
          c2.result("D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) in every district; " + totals),
          c3.result("NEW-ORDER ids contiguous in every district; " + std::to_string(new_order_rows) + " rows"),
          c4.result("sum(O_OL_CNT) = " + std::to_string(order_lines) + " ORDER-LINE rows"),
          c5.result("O_CARRIER_ID null exactly for the " + std::to_string(new_order_rows) + " undelivered orders"),
          c6.result("every order has O_OL_CNT lines"),
          c7.result("OL_DELIVERY_D null exactly for undelivered orders' lines"),
          aux.result("delivery cursors at the oldest undelivered orders; last-order rows at the newest orders"),
          orders_conserved.result(std::to_string(inserted_orders) + " orders inserted = committed NewOrders"),
          payments_conserved.result(std::to_string(committed.payments) + " committed Payments, " +
                                    std::to_string(committed.payment_cents) + " cents"),
          customers_conserved.result(
              "sum(C_BALANCE + C_YTD_PAYMENT) = delivered OL_AMOUNT = " + std::to_string(delivered_amount) +
              " cents; " + std::to_string(deliveries_after_load) + " deliveries")};
}

}  // namespace ccb::tpcc
