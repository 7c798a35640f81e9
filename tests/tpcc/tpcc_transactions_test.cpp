// Each transaction run alone (one thread) under one protocol per conflict rule
// (tests/support/protocols.h, OnePerConflictRule: the procedures meet locked
// rows read in place and optimistic private copies; every protocol runs
// TPC-C in the verify tier): it must change exactly what its spec profile says
// (clauses 2.4.2, 2.5.2, 2.6.2, 2.7.4, 2.8.2), touch exactly the expected rows
// (from the recorded history) and keep the consistency conditions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "tests/support/protocols.h"
#include "tests/tpcc/tpcc_test_util.h"

namespace ccb {
namespace {

using namespace tpcc;
using namespace tpcc::testing;

GlobalKey gk(uint32_t table, uint64_t key) { return make_global_key(table, key); }

// One database per protocol for the whole suite (loading dominates the cost);
// every test measures the changes it makes. The Txn lives as long as the
// database because the rows it inserts are allocated from it.
template <class CC>
class TpccTransactionTest : public ::testing::Test {
 protected:
  using W = TpccWorkload<CC>;
  static void SetUpTestSuite() {
    workload_ = new W(small_options(2));
    workload_->load(2);
    cc_ = new CC;
    log_ = new verify::HistoryLog;
    txn_ = new Txn<CC>(*cc_, 0, log_);
  }
  static void TearDownTestSuite() {
    delete txn_;
    delete log_;
    delete cc_;
    delete workload_;
  }
  void TearDown() override { expect_all_hold(workload_->check_invariants({committed_})); }

  static TpccDatabase<CC>& db() { return workload_->db(); }
  // Runs `r` as one transaction; on commit returns its footprint.
  static RC run(const TpccRequest& r, Footprint* footprint = nullptr) {
    const RC rc = run_once(*workload_, *txn_, r);
    Footprint f = last_footprint(*log_);
    if (rc == RC::kOk) workload_->on_commit(committed_, r);
    if (footprint != nullptr) *footprint = std::move(f);
    return rc;
  }
  static TpccRequest delivery_request(uint32_t w, uint8_t carrier, uint64_t date) {
    TpccRequest r;
    r.type = kDelivery;
    r.w_id = static_cast<uint16_t>(w);
    r.carrier_id = carrier;
    r.date = date;
    return r;
  }
  static TpccRequest stock_level_request(uint32_t w, uint32_t d, uint8_t threshold) {
    TpccRequest r;
    r.type = kStockLevel;
    r.w_id = static_cast<uint16_t>(w);
    r.d_id = static_cast<uint8_t>(d);
    r.threshold = threshold;
    return r;
  }
  // Whether every district of warehouse w has no undelivered order.
  static bool all_delivered(uint32_t w) {
    for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d)
      if (row<DeliveryCursorRow>(db().delivery_cursor, district_key(w, d))->next_o_id !=
          row<DistrictRow>(db().district, district_key(w, d))->next_o_id)
        return false;
    return true;
  }
  // Runs Deliveries of warehouse w until every order is delivered.
  static void deliver_everything(uint32_t w) {
    for (int i = 0; i < 1000 && !all_delivered(w); ++i)
      ASSERT_EQ(run(delivery_request(w, 1, 1700000100)), RC::kOk);
    ASSERT_TRUE(all_delivered(w));
  }
  // The customer a by-name selection must pick, found by scanning the
  // district (not through the index): position ceil(n/2) by C_FIRST.
  static uint32_t middle_by_scan(uint32_t w, uint32_t d, uint32_t name) {
    char last[16];
    last_name(name, last);
    std::vector<std::pair<std::string, uint32_t>> namesakes;
    for (uint32_t c = 1; c <= kCustomersPerDistrict; ++c) {
      const auto* cr = row<CustomerRow>(db().customer, customer_key(w, d, c));
      if (text(cr->last) == text(last)) namesakes.emplace_back(std::string(text(cr->first)), c);
    }
    std::sort(namesakes.begin(), namesakes.end());
    return namesakes.empty() ? 0 : namesakes[(namesakes.size() + 1) / 2 - 1].second;
  }

  // OLLP as the bundle executor runs it (tpcc_reconnaissance.h): the batch's
  // begin_reconnaissance, then each request's reconnoiter(); returns whether
  // every prediction changed.
  static bool reconnoiter(std::vector<TpccRequest*> batch) {
    std::vector<TpccRequest> requests;
    for (const TpccRequest* r : batch) requests.push_back(*r);
    workload_->begin_reconnaissance(std::span<TpccRequest>(requests));
    bool all_changed = true;
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i]->delivery_rank = requests[i].delivery_rank;
      all_changed &= workload_->reconnoiter(*batch[i]);
    }
    return all_changed;
  }
  // As in a CC-free queue of the bundle executor, where predictions are checked.
  static RC run_cc_free(const TpccRequest& r, Footprint* footprint = nullptr) {
    txn_->set_cc_free(true);
    const RC rc = run(r, footprint);
    txn_->set_cc_free(false);
    return rc;
  }
  static std::set<GlobalKey> keys(const std::vector<GlobalKey>& v) { return {v.begin(), v.end()}; }
  static TpccRequest order_status_request(uint32_t w, uint32_t d, uint32_t c) {
    TpccRequest r;
    r.type = kOrderStatus;
    r.w_id = r.c_w_id = static_cast<uint16_t>(w);
    r.d_id = r.c_d_id = static_cast<uint8_t>(d);
    r.c_id = c;
    return r;
  }

  static inline W* workload_ = nullptr;
  static inline CC* cc_ = nullptr;
  static inline verify::HistoryLog* log_ = nullptr;
  static inline Txn<CC>* txn_ = nullptr;
  static inline typename W::ThreadState committed_{};
};

TYPED_TEST_SUITE(TpccTransactionTest, test_support::OnePerConflictRule);

TYPED_TEST(TpccTransactionTest, NewOrderInsertsTheOrderAndUpdatesStock) {
  auto& db = this->db();
  const uint32_t w = 1, d = 3, c = 42;
  // Item 202 comes from warehouse 2 (a remote line) and its stock is low, so
  // its quantity wraps (2.4.2.2: + 91); item 303 has plenty.
  const auto r = new_order_request(w, d, c, {{101, 1, 4}, {202, 2, 7}, {303, 1, 2}});
  row<StockRow>(db.stock, stock_key(2, 202))->quantity = 12;
  row<StockRow>(db.stock, stock_key(1, 303))->quantity = 50;
  const StockRow before[3] = {*row<StockRow>(db.stock, stock_key(1, 101)), *row<StockRow>(db.stock, stock_key(2, 202)),
                              *row<StockRow>(db.stock, stock_key(1, 303))};
  const DistrictRow dist_before = *row<DistrictRow>(db.district, district_key(w, d));
  const CustomerRow cust_before = *row<CustomerRow>(db.customer, customer_key(w, d, c));
  const uint32_t o = dist_before.next_o_id;

  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);

  const auto* dist = row<DistrictRow>(db.district, district_key(w, d));
  EXPECT_EQ(dist->next_o_id, o + 1);
  EXPECT_EQ(dist->ytd, dist_before.ytd);
  const auto* od = row<OrderRow>(db.order, order_key(w, d, o));
  ASSERT_NE(od, nullptr);
  EXPECT_EQ(od->c_id, c);
  EXPECT_EQ(od->ol_cnt, 3);
  EXPECT_EQ(od->carrier_id, 0);
  EXPECT_EQ(od->all_local, 0) << "item 202 came from warehouse 2";
  EXPECT_EQ(od->entry_d, r.date);
  const auto* no = row<NewOrderRow>(db.new_order, order_key(w, d, o));
  ASSERT_NE(no, nullptr);
  EXPECT_EQ(no->delivered, 0);
  EXPECT_EQ(row<CustomerLastOrderRow>(db.customer_last_order, customer_key(w, d, c))->o_id, o);
  EXPECT_EQ(row<CustomerRow>(db.customer, customer_key(w, d, c))->balance, cust_before.balance);

  auto spec_quantity = [](int32_t q, int32_t ordered) { return q >= ordered + 10 ? q - ordered : q - ordered + 91; };
  const int32_t new_quantity[3] = {spec_quantity(before[0].quantity, 4), 12 - 7 + 91, 50 - 2};
  for (uint32_t i = 0; i < 3; ++i) {
    const TpccOrderItem& item = r.items[i];
    const auto* line = row<OrderLineRow>(db.order_line, order_line_key(w, d, o, i + 1));
    ASSERT_NE(line, nullptr);
    EXPECT_EQ(line->i_id, item.i_id);
    EXPECT_EQ(line->supply_w_id, item.supply_w_id);
    EXPECT_EQ(line->quantity, item.quantity);
    EXPECT_EQ(line->delivery_d, 0u);
    EXPECT_EQ(line->amount, item.quantity * row<ItemRow>(db.item, item_key(item.i_id))->price);
    EXPECT_EQ(std::memcmp(line->dist_info, before[i].dist[d - 1], 24), 0) << "OL_DIST_INFO = S_DIST_03";
    const auto* s = row<StockRow>(db.stock, stock_key(item.supply_w_id, item.i_id));
    EXPECT_EQ(s->quantity, new_quantity[i]) << i;
    EXPECT_EQ(s->ytd, before[i].ytd + item.quantity);
    EXPECT_EQ(s->order_cnt, before[i].order_cnt + 1);
    EXPECT_EQ(s->remote_cnt, before[i].remote_cnt + (item.supply_w_id != w));
  }
  EXPECT_EQ(db.order_line.lookup(order_line_key(w, d, o, 4)), nullptr);

  EXPECT_EQ(f.read,
            (std::set<GlobalKey>{gk(kWarehouseTable, warehouse_key(w)), gk(kCustomerTable, customer_key(w, d, c)),
                                 gk(kItemTable, 101), gk(kItemTable, 202), gk(kItemTable, 303)}));
  EXPECT_EQ(f.written,
            (std::set<GlobalKey>{
                gk(kDistrictTable, district_key(w, d)), gk(kStockTable, stock_key(1, 101)),
                gk(kStockTable, stock_key(2, 202)), gk(kStockTable, stock_key(1, 303)),
                gk(kCustomerLastOrderTable, customer_key(w, d, c)), gk(kOrderTable, order_key(w, d, o)),
                gk(kNewOrderTable, order_key(w, d, o)), gk(kOrderLineTable, order_line_key(w, d, o, 1)),
                gk(kOrderLineTable, order_line_key(w, d, o, 2)), gk(kOrderLineTable, order_line_key(w, d, o, 3))}));
}

TYPED_TEST(TpccTransactionTest, NewOrderWithAnUnusedItemRollsBackLeavingNothing) {
  auto& db = this->db();
  const uint32_t w = 2, d = 9, c = 7;
  const auto r = new_order_request(w, d, c, {{11, 2, 3}, {12, 2, 3}, {kUnusedItemId, 2, 3}});
  ASSERT_TRUE(r.rolls_back());
  const uint32_t o = row<DistrictRow>(db.district, district_key(w, d))->next_o_id;
  const StockRow s11 = *row<StockRow>(db.stock, stock_key(w, 11));
  const uint32_t last = row<CustomerLastOrderRow>(db.customer_last_order, customer_key(w, d, c))->o_id;

  Footprint f;
  EXPECT_EQ(this->run(r, &f), RC::kUser);

  EXPECT_TRUE(f.read.empty() && f.written.empty()) << "a rolled-back transaction is not in the history";
  EXPECT_EQ(row<DistrictRow>(db.district, district_key(w, d))->next_o_id, o);
  EXPECT_EQ(db.order.lookup(order_key(w, d, o)), nullptr);
  EXPECT_EQ(db.new_order.lookup(order_key(w, d, o)), nullptr);
  EXPECT_EQ(db.order_line.lookup(order_line_key(w, d, o, 1)), nullptr);
  EXPECT_EQ(std::memcmp(row<StockRow>(db.stock, stock_key(w, 11)), &s11, sizeof s11), 0);
  EXPECT_EQ(row<CustomerLastOrderRow>(db.customer_last_order, customer_key(w, d, c))->o_id, last);
  // The district is free again: the next NewOrder takes the same O_ID.
  ASSERT_EQ(this->run(new_order_request(w, d, c, {{11, 2, 3}})), RC::kOk);
  EXPECT_NE(db.order.lookup(order_key(w, d, o)), nullptr);
}

TYPED_TEST(TpccTransactionTest, PaymentByIdMovesTheAmountAndRecordsHistory) {
  auto& db = this->db();
  const uint32_t w = 1, d = 5, c = 1234;
  auto r = payment_request(w, d, w, d, 123456);
  r.c_id = c;
  const auto wh_before = *row<WarehouseRow>(db.warehouse, warehouse_key(w));
  const auto dist_before = *row<DistrictRow>(db.district, district_key(w, d));
  auto* cust = row<CustomerRow>(db.customer, customer_key(w, d, c));
  std::memcpy(cust->credit, "GC", 2);
  const auto cust_before = *cust;

  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);

  const auto* wh = row<WarehouseRow>(db.warehouse, warehouse_key(w));
  const auto* dist = row<DistrictRow>(db.district, district_key(w, d));
  EXPECT_EQ(wh->ytd, wh_before.ytd + 123456);
  EXPECT_EQ(dist->ytd, dist_before.ytd + 123456);
  EXPECT_EQ(dist->next_o_id, dist_before.next_o_id);
  EXPECT_EQ(cust->balance, cust_before.balance - 123456);
  EXPECT_EQ(cust->ytd_payment, cust_before.ytd_payment + 123456);
  EXPECT_EQ(cust->payment_cnt, cust_before.payment_cnt + 1);
  EXPECT_EQ(std::memcmp(cust->data, cust_before.data, sizeof cust->data), 0) << "a GC customer's C_DATA is kept";

  const uint64_t h_key = this->txn_->id();
  const auto* h = row<HistoryRow>(db.history, h_key);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->c_id, c);
  EXPECT_EQ(h->c_w_id, w);
  EXPECT_EQ(h->c_d_id, d);
  EXPECT_EQ(h->w_id, w);
  EXPECT_EQ(h->d_id, d);
  EXPECT_EQ(h->amount, 123456);
  EXPECT_EQ(h->date, r.date);
  EXPECT_EQ(text(h->data), std::string(text(wh->name)) + "    " + std::string(text(dist->name)));
  EXPECT_TRUE(f.read.empty());
  EXPECT_EQ(f.written,
            (std::set<GlobalKey>{gk(kWarehouseTable, warehouse_key(w)), gk(kDistrictTable, district_key(w, d)),
                                 gk(kCustomerTable, customer_key(w, d, c)), gk(kHistoryTable, h_key)}));
}

TYPED_TEST(TpccTransactionTest, RemotePaymentChargesTheOtherWarehousesCustomer) {
  auto& db = this->db();
  auto r = payment_request(1, 2, 2, 8, 500);
  r.c_id = 77;
  const int64_t home_ytd = row<WarehouseRow>(db.warehouse, warehouse_key(1))->ytd;
  const int64_t remote_ytd = row<WarehouseRow>(db.warehouse, warehouse_key(2))->ytd;
  const int64_t balance = row<CustomerRow>(db.customer, customer_key(2, 8, 77))->balance;
  ASSERT_EQ(this->run(r), RC::kOk);
  EXPECT_EQ(row<WarehouseRow>(db.warehouse, warehouse_key(1))->ytd, home_ytd + 500);
  EXPECT_EQ(row<WarehouseRow>(db.warehouse, warehouse_key(2))->ytd, remote_ytd);
  EXPECT_EQ(row<CustomerRow>(db.customer, customer_key(2, 8, 77))->balance, balance - 500);
}

TYPED_TEST(TpccTransactionTest, PaymentByLastNamePaysTheMiddleNamesakeAndPrependsBadCreditData) {
  auto& db = this->db();
  const uint32_t w = 2, d = 3, name = 371;
  const uint32_t c = this->middle_by_scan(w, d, name);
  ASSERT_NE(c, 0u);
  auto* cust = row<CustomerRow>(db.customer, customer_key(w, d, c));
  std::memcpy(cust->credit, "BC", 2);
  const auto cust_before = *cust;
  auto r = payment_request(w, d, w, d, 250075);
  r.by_last_name = true;
  r.c_last = name;

  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);

  EXPECT_EQ(cust->balance, cust_before.balance - 250075);
  EXPECT_TRUE(f.written.count(gk(kCustomerTable, customer_key(w, d, c))));
  EXPECT_EQ(f.written.size(), 4u);  // warehouse, district, that customer, history
  // 2.5.2.2: C_ID C_D_ID C_W_ID D_ID W_ID H_AMOUNT at the left, the rest shifted right.
  const std::string prefix = std::to_string(c) + " 3 2 3 2 2500.75|";
  const std::string_view data = text(cust->data);
  ASSERT_EQ(data.size(), std::min<size_t>(500, prefix.size() + text(cust_before.data).size()));
  EXPECT_EQ(data.substr(0, prefix.size()), prefix);
  EXPECT_EQ(data.substr(prefix.size()), text(cust_before.data).substr(0, 500 - prefix.size()));
}

// OLLP (Strife §5.6.4): reconnoiter() predicts the by-name customer, which
// describe() then names; a wrong prediction aborts with kPredictionMismatch
// and changes nothing, the right one commits.
TYPED_TEST(TpccTransactionTest, PaymentByLastNameChecksItsReconnaissancePrediction) {
  auto& db = this->db();
  const uint32_t w = 1, d = 4, name = 123;
  const uint32_t c = this->middle_by_scan(w, d, name);
  ASSERT_NE(c, 0u);
  auto r = payment_request(w, d, w, d, 1000);
  r.by_last_name = true;
  r.c_last = name;
  const GlobalKey cust_key = gk(kCustomerTable, customer_key(w, d, c));
  const TxnDesc before = this->workload_->describe(r);
  EXPECT_EQ(std::count(before.write_set.begin(), before.write_set.end(), cust_key), 0);
  ASSERT_TRUE(this->workload_->reconnoiter(r));
  EXPECT_EQ(r.predicted_c_id, c);
  EXPECT_FALSE(this->workload_->reconnoiter(r)) << "an unchanged prediction needs no new description";
  const TxnDesc after = this->workload_->describe(r);
  EXPECT_EQ(std::count(after.write_set.begin(), after.write_set.end(), cust_key), 1);

  auto* cust = row<CustomerRow>(db.customer, customer_key(w, d, c));
  const int64_t balance = cust->balance;
  const int64_t ytd_w = row<WarehouseRow>(db.warehouse, warehouse_key(w))->ytd;
  TpccRequest stale = r;
  stale.predicted_c_id = c == 1 ? 2 : c - 1;  // the index changed since the reconnaissance
  EXPECT_EQ(this->run(stale, nullptr), RC::kPredictionMismatch);
  EXPECT_EQ(cust->balance, balance);
  EXPECT_EQ(row<WarehouseRow>(db.warehouse, warehouse_key(w))->ytd, ytd_w);
  EXPECT_EQ(this->run(r, nullptr), RC::kOk);
  EXPECT_EQ(cust->balance, balance - 1000);
}

TYPED_TEST(TpccTransactionTest, OrderStatusReadsTheCustomersLastOrderAndChangesNothing) {
  auto& db = this->db();
  const uint32_t w = 1, d = 6, c = 2999;
  ASSERT_EQ(this->run(new_order_request(w, d, c, {{5, 1, 1}, {6, 1, 1}, {7, 1, 1}, {8, 1, 1}})), RC::kOk);
  const uint32_t o = row<DistrictRow>(db.district, district_key(w, d))->next_o_id - 1;

  TpccRequest r;
  r.type = kOrderStatus;
  r.w_id = r.c_w_id = w;
  r.d_id = r.c_d_id = d;
  r.c_id = c;
  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_TRUE(f.written.empty());
  std::set<GlobalKey> expected = {gk(kCustomerTable, customer_key(w, d, c)),
                                  gk(kCustomerLastOrderTable, customer_key(w, d, c)),
                                  gk(kOrderTable, order_key(w, d, o))};
  for (uint32_t ol = 1; ol <= 4; ++ol) expected.insert(gk(kOrderLineTable, order_line_key(w, d, o, ol)));
  EXPECT_EQ(f.read, expected);

  // By last name: the middle namesake's last (loaded) order.
  const uint32_t name = 5;
  const uint32_t named = this->middle_by_scan(w, d, name);
  r.by_last_name = true;
  r.c_last = name;
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  const uint32_t named_order = row<CustomerLastOrderRow>(db.customer_last_order, customer_key(w, d, named))->o_id;
  EXPECT_TRUE(f.read.count(gk(kCustomerTable, customer_key(w, d, named))));
  EXPECT_TRUE(f.read.count(gk(kOrderTable, order_key(w, d, named_order))));
  EXPECT_EQ(f.read.size(), 3u + row<OrderRow>(db.order, order_key(w, d, named_order))->ol_cnt);
}

TYPED_TEST(TpccTransactionTest, DeliveryDeliversTheOldestOrderOfEachDistrict) {
  auto& db = this->db();
  const uint32_t w = 1;
  struct Before {
    uint32_t o, c;
    int64_t balance, amount;
    uint32_t delivery_cnt;
  } before[kDistrictsPerWarehouse + 1];
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
    Before& b = before[d];
    b.o = row<DeliveryCursorRow>(db.delivery_cursor, district_key(w, d))->next_o_id;
    const auto* od = row<OrderRow>(db.order, order_key(w, d, b.o));
    b.c = od->c_id;
    b.amount = 0;
    for (uint32_t ol = 1; ol <= od->ol_cnt; ++ol)
      b.amount += row<OrderLineRow>(db.order_line, order_line_key(w, d, b.o, ol))->amount;
    const auto* cust = row<CustomerRow>(db.customer, customer_key(w, d, b.c));
    b.balance = cust->balance;
    b.delivery_cnt = cust->delivery_cnt;
  }
  ASSERT_EQ(this->run(this->delivery_request(w, 7, 1700000777)), RC::kOk);
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
    const Before& b = before[d];
    EXPECT_EQ(row<NewOrderRow>(db.new_order, order_key(w, d, b.o))->delivered, 1);
    EXPECT_EQ(row<NewOrderRow>(db.new_order, order_key(w, d, b.o + 1))->delivered, 0);
    EXPECT_EQ(row<DeliveryCursorRow>(db.delivery_cursor, district_key(w, d))->next_o_id, b.o + 1);
    const auto* od = row<OrderRow>(db.order, order_key(w, d, b.o));
    EXPECT_EQ(od->carrier_id, 7);
    for (uint32_t ol = 1; ol <= od->ol_cnt; ++ol)
      EXPECT_EQ(row<OrderLineRow>(db.order_line, order_line_key(w, d, b.o, ol))->delivery_d, 1700000777u);
    const auto* cust = row<CustomerRow>(db.customer, customer_key(w, d, b.c));
    EXPECT_EQ(cust->balance, b.balance + b.amount);
    EXPECT_EQ(cust->delivery_cnt, b.delivery_cnt + 1);
  }
}

TYPED_TEST(TpccTransactionTest, DeliverySkipsDistrictsWithoutUndeliveredOrders) {
  auto& db = this->db();
  const uint32_t w = 2;
  auto all_delivered = [&] { return this->all_delivered(w); };
  ASSERT_NO_FATAL_FAILURE(this->deliver_everything(w));

  // Nothing left: the Delivery commits, reading each DISTRICT to prove it.
  Footprint f;
  ASSERT_EQ(this->run(this->delivery_request(w, 2, 1700000200), &f), RC::kOk);
  ASSERT_TRUE(all_delivered());
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d)
    EXPECT_TRUE(f.read.count(gk(kDistrictTable, district_key(w, d)))) << d;

  // One new order in district 4: the next Delivery delivers exactly it.
  ASSERT_EQ(this->run(new_order_request(w, 4, 10, {{1, 2, 1}})), RC::kOk);
  const uint32_t o = row<DistrictRow>(db.district, district_key(w, 4))->next_o_id - 1;
  ASSERT_EQ(this->run(this->delivery_request(w, 3, 1700000300), &f), RC::kOk);
  EXPECT_TRUE(all_delivered());
  EXPECT_EQ(row<OrderRow>(db.order, order_key(w, 4, o))->carrier_id, 3);
  EXPECT_TRUE(f.written.count(gk(kNewOrderTable, order_key(w, 4, o))));
  EXPECT_FALSE(f.written.count(gk(kNewOrderTable, order_key(w, 5, o))));
}

TYPED_TEST(TpccTransactionTest, StockLevelReadsTheLastTwentyOrdersStock) {
  auto& db = this->db();
  const uint32_t w = 1, d = 2;
  auto r = this->stock_level_request(w, d, 15);
  const uint32_t next = row<DistrictRow>(db.district, district_key(w, d))->next_o_id;
  std::set<GlobalKey> expected = {gk(kDistrictTable, district_key(w, d))};
  for (uint32_t o = next - 20; o < next; ++o) {
    const auto* od = row<OrderRow>(db.order, order_key(w, d, o));
    for (uint32_t ol = 1; ol <= od->ol_cnt; ++ol) {
      expected.insert(gk(kOrderLineTable, order_line_key(w, d, o, ol)));
      expected.insert(
          gk(kStockTable, stock_key(w, row<OrderLineRow>(db.order_line, order_line_key(w, d, o, ol))->i_id)));
    }
  }
  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_TRUE(f.written.empty());
  EXPECT_EQ(f.read, expected);
}

// ---- OLLP reconnaissance (tpcc_reconnaissance.h) ---------------------------------
// The rows a transaction touches, as the front-ends' conflict keys see them: a
// NEW-ORDER, ORDER or ORDER-LINE row stands under its district's
// DELIVERY_CURSOR row (the key Delivery writes and declares).
std::set<GlobalKey> as_conflict_keys(const std::set<GlobalKey>& touched) {
  std::set<GlobalKey> out;
  for (GlobalKey k : touched) {
    const uint64_t key = local_key_of(k);
    switch (table_of(k)) {
      case kNewOrderTable: case kOrderTable: out.insert(gk(kDeliveryCursorTable, key >> 32)); break;
      case kOrderLineTable: out.insert(gk(kDeliveryCursorTable, key >> 36)); break;
      default: out.insert(k);
    }
  }
  return out;
}

// Predicted = touched, by id and by last name, when nothing changes in
// between (no Delivery in the batch: no DELIVERY_CURSOR read).
TYPED_TEST(TpccTransactionTest, OllpOrderStatusPredictsExactlyTheRowsItReads) {
  for (const bool by_name : {false, true}) {
    auto r = this->order_status_request(1, 7, 1234);
    r.by_last_name = by_name;
    r.c_last = 77;
    ASSERT_TRUE(this->reconnoiter({&r})) << by_name;
    ASSERT_NE(r.predicted_o_id, 0u);
    const TxnDesc desc = this->workload_->describe(r);
    Footprint f;
    ASSERT_EQ(this->run(r, &f), RC::kOk) << by_name;
    EXPECT_TRUE(f.written.empty());
    EXPECT_TRUE(desc.write_set.empty());
    EXPECT_EQ(f.read, this->keys(desc.read_set)) << by_name;
    EXPECT_FALSE(this->reconnoiter({&r})) << "an unchanged prediction needs no new description";
  }
}

// A NewOrder of the customer between the reconnaissance and the execution
// changes its last order: detected in a CC-free queue (nothing read beyond
// the declared rows), and the next reconnaissance predicts the new order.
TYPED_TEST(TpccTransactionTest, OllpOrderStatusDetectsANewOrderOfItsCustomerInBetween) {
  auto& db = this->db();
  const uint32_t w = 1, d = 8, c = 2500;
  auto r = this->order_status_request(w, d, c);
  ASSERT_TRUE(this->reconnoiter({&r}));
  ASSERT_EQ(this->run(new_order_request(w, d, c, {{11, 1, 1}, {12, 1, 2}, {13, 1, 3}})), RC::kOk);
  EXPECT_EQ(this->run_cc_free(r), RC::kPredictionMismatch);
  EXPECT_EQ(this->run(r), RC::kOk) << "under the protocol it reads the new last order";
  ASSERT_TRUE(this->reconnoiter({&r})) << "the re-planned request is described again";
  EXPECT_EQ(r.predicted_o_id, row<DistrictRow>(db.district, district_key(w, d))->next_o_id - 1);
  EXPECT_EQ(r.predicted_ol_cnt, 3);
  const TxnDesc desc = this->workload_->describe(r);
  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_EQ(f.read, this->keys(desc.read_set));
}

// StockLevel's window is fixed by its reconnaissance (TPC-C 2.8.2.3): it reads
// exactly the predicted lines and stock rows, also after a NewOrder of the
// district; a window whose orders do not exist is a mismatch.
TYPED_TEST(TpccTransactionTest, OllpStockLevelReadsItsPredictedWindow) {
  auto& db = this->db();
  const uint32_t w = 1, d = 9;
  auto r = this->stock_level_request(w, d, 15);
  ASSERT_TRUE(this->reconnoiter({&r}));
  const uint32_t next = row<DistrictRow>(db.district, district_key(w, d))->next_o_id;
  ASSERT_EQ(r.predicted_o_id, next);
  const TxnDesc desc = this->workload_->describe(r);
  EXPECT_EQ(std::count(desc.read_set.begin(), desc.read_set.end(), gk(kDistrictTable, district_key(w, d))), 0);
  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_TRUE(f.written.empty());
  EXPECT_EQ(f.read, this->keys(desc.read_set));

  ASSERT_EQ(this->run(new_order_request(w, d, 7, {{21, 1, 1}, {22, 1, 1}})), RC::kOk);
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_EQ(f.read, this->keys(desc.read_set)) << "the window of the reconnaissance, not the NewOrder's";

  TpccRequest beyond = r;
  beyond.predicted_o_id = next + 30;  // orders that do not exist
  EXPECT_EQ(this->run_cc_free(beyond), RC::kPredictionMismatch);
}

// A Delivery declares its warehouse's cursors (the conflict key of the
// orders it delivers) and the customers of its predicted orders: alone in
// its batch, exactly the rows it touches.
TYPED_TEST(TpccTransactionTest, OllpDeliveryPredictsTheRowsItTouches) {
  auto r = this->delivery_request(1, 4, 1700000401);
  ASSERT_TRUE(this->reconnoiter({&r}));
  const TxnDesc desc = this->workload_->describe(r);
  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_TRUE(f.read.empty());
  EXPECT_TRUE(desc.read_set.empty());
  EXPECT_EQ(as_conflict_keys(f.written), this->keys(desc.write_set));
}

// Another Delivery of the warehouse between the reconnaissance and the
// execution moves every cursor past the predicted order: detected in a
// CC-free queue before anything is delivered, and re-planned with the next
// orders.
TYPED_TEST(TpccTransactionTest, OllpDeliveryDetectsAnotherDeliveryInBetween) {
  auto& db = this->db();
  const uint32_t w = 1;
  auto r = this->delivery_request(w, 5, 1700000501);
  ASSERT_TRUE(this->reconnoiter({&r}));
  ASSERT_EQ(this->run(this->delivery_request(w, 6, 1700000502)), RC::kOk);  // unplanned: no prediction
  uint32_t cursors[kDistrictsPerWarehouse];
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d)
    cursors[d - 1] = row<DeliveryCursorRow>(db.delivery_cursor, district_key(w, d))->next_o_id;
  EXPECT_EQ(this->run_cc_free(r), RC::kPredictionMismatch);
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
    EXPECT_EQ(row<DeliveryCursorRow>(db.delivery_cursor, district_key(w, d))->next_o_id, cursors[d - 1]);
    EXPECT_EQ(row<OrderRow>(db.order, order_key(w, d, cursors[d - 1]))->carrier_id, 0);
  }
  ASSERT_TRUE(this->reconnoiter({&r}));
  const TxnDesc desc = this->workload_->describe(r);
  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_EQ(as_conflict_keys(f.written), this->keys(desc.write_set));
}

// The Deliveries of a warehouse in one batch are bound to successive orders
// in batch order: run in that order (as one CC-free queue runs them) each
// touches exactly its prediction; out of it, the later one is a mismatch.
TYPED_TEST(TpccTransactionTest, OllpDeliveriesOfOneBatchAreBoundInBatchOrder) {
  auto a = this->delivery_request(1, 7, 1700000601), b = this->delivery_request(1, 8, 1700000602);
  ASSERT_TRUE(this->reconnoiter({&a, &b}));
  EXPECT_EQ(a.delivery_rank, 0u);
  EXPECT_EQ(b.delivery_rank, 1u);
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) EXPECT_EQ(b.delivery_from[d - 1], a.delivery_from[d - 1] + 1);
  const TxnDesc da = this->workload_->describe(a), db = this->workload_->describe(b);
  EXPECT_EQ(this->run_cc_free(b), RC::kPredictionMismatch) << "the later Delivery first";
  Footprint fa, fb;
  ASSERT_EQ(this->run_cc_free(a, &fa), RC::kOk);
  ASSERT_EQ(this->run_cc_free(b, &fb), RC::kOk);
  EXPECT_EQ(as_conflict_keys(fa.written), this->keys(da.write_set));
  EXPECT_EQ(as_conflict_keys(fb.written), this->keys(db.write_set));
}

// After the plan, a Delivery in a CC-free queue is bound to its position
// among its queue's Deliveries of the warehouse (engine/exec/queue_binding.h):
// the plan sent the batch's first Delivery to the residuals (which run after
// every queue) and kept the second in a queue, where it runs first. Bound in
// batch order it would find the first one's orders and be re-planned; bound
// to its queue position it delivers the oldest orders, exactly the rows it
// then declares, and the residual one, under the protocol, the next ones.
TYPED_TEST(TpccTransactionTest, OllpDeliveryIsBoundToItsPositionInItsCcFreeQueue) {
  auto& db = this->db();
  const uint32_t w = 1;
  auto a = this->delivery_request(w, 1, 1700000801), b = this->delivery_request(w, 2, 1700000802);
  ASSERT_TRUE(this->reconnoiter({&a, &b}));
  ASSERT_EQ(b.delivery_rank, 1u);
  EXPECT_EQ(this->run_cc_free(b), RC::kPredictionMismatch) << "bound in batch order, b expects a to have run";
  uint32_t oldest[kDistrictsPerWarehouse];
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d)
    oldest[d - 1] = row<DeliveryCursorRow>(db.delivery_cursor, district_key(w, d))->next_o_id;

  this->workload_->begin_queue_binding();
  ASSERT_TRUE(this->workload_->bind_in_queue(b)) << "first of its queue: bound again";
  this->workload_->accept_binding(b);
  EXPECT_EQ(b.delivery_rank, 0u);
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) EXPECT_EQ(b.delivery_from[d - 1], oldest[d - 1]);
  const TxnDesc desc = this->workload_->describe(b);
  Footprint f;
  ASSERT_EQ(this->run_cc_free(b, &f), RC::kOk);
  EXPECT_EQ(as_conflict_keys(f.written), this->keys(desc.write_set));
  ASSERT_EQ(this->run(a), RC::kOk) << "the residual one, under the protocol";
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
    EXPECT_NE(row<OrderRow>(db.order, order_key(w, d, oldest[d - 1]))->carrier_id, 0);
    EXPECT_EQ(row<DeliveryCursorRow>(db.delivery_cursor, district_key(w, d))->next_o_id, oldest[d - 1] + 2);
  }

  // Two Deliveries kept in their queue in batch order: their binding stands.
  auto c = this->delivery_request(w, 3, 1700000803), e = this->delivery_request(w, 4, 1700000804);
  ASSERT_TRUE(this->reconnoiter({&c, &e}));
  this->workload_->begin_queue_binding();
  for (TpccRequest* r : {&c, &e}) {
    EXPECT_FALSE(this->workload_->bind_in_queue(*r));
    this->workload_->accept_binding(*r);
  }
  EXPECT_EQ(e.delivery_rank, 1u);
  // A Delivery outside the plan runs before them and delivers c's orders: c
  // is still a mismatch; e's orders are the oldest now, as it predicted.
  ASSERT_EQ(this->run(this->delivery_request(w, 5, 1700000805)), RC::kOk);
  EXPECT_EQ(this->run_cc_free(c), RC::kPredictionMismatch);
  EXPECT_EQ(this->run_cc_free(e), RC::kOk);
}

// A NewOrder of the OrderStatus's customer in the same batch: the plan orders
// the two (both declare CUSTOMER_LAST_ORDER), and the OrderStatus also
// declares DISTRICT, the conflict key of the batch's inserted orders. Run
// after the NewOrder in a CC-free queue it reads the new order, rows the
// NewOrder's DISTRICT write stands for, instead of being re-planned. A
// NewOrder of a customer the batch does not order for, run outside the plan,
// is still a mismatch.
TYPED_TEST(TpccTransactionTest, OllpOrderStatusAfterANewOrderOfItsCustomerInTheBatch) {
  auto& db = this->db();
  const uint32_t w = 2, d = 6, c = 2400, other = 2401;
  auto no = new_order_request(w, d, c, {{31, 2, 1}, {32, 2, 2}, {33, 2, 3}});
  auto os = this->order_status_request(w, d, c), bystander = this->order_status_request(w, d, other);
  this->reconnoiter({&no, &os, &bystander});
  EXPECT_TRUE(os.predicted_new_order);
  EXPECT_FALSE(bystander.predicted_new_order);
  const GlobalKey district = gk(kDistrictTable, district_key(w, d));
  const TxnDesc desc = this->workload_->describe(os);
  EXPECT_EQ(std::count(desc.read_set.begin(), desc.read_set.end(), district), 1);
  const TxnDesc no_desc = this->workload_->describe(no);
  EXPECT_EQ(std::count(no_desc.write_set.begin(), no_desc.write_set.end(), district), 1);

  const uint32_t o = row<DistrictRow>(db.district, district_key(w, d))->next_o_id;
  ASSERT_EQ(this->run_cc_free(no), RC::kOk);
  Footprint f;
  ASSERT_EQ(this->run_cc_free(os, &f), RC::kOk) << "the NewOrder the plan ran first is no mismatch";
  EXPECT_EQ(f.read, (std::set<GlobalKey>{gk(kCustomerTable, customer_key(w, d, c)),
                                         gk(kCustomerLastOrderTable, customer_key(w, d, c)),
                                         gk(kOrderTable, order_key(w, d, o)),
                                         gk(kOrderLineTable, order_line_key(w, d, o, 1)),
                                         gk(kOrderLineTable, order_line_key(w, d, o, 2)),
                                         gk(kOrderLineTable, order_line_key(w, d, o, 3))}));

  ASSERT_EQ(this->run(new_order_request(w, d, other, {{34, 2, 1}})), RC::kOk);
  EXPECT_EQ(this->run_cc_free(bystander), RC::kPredictionMismatch) << "a NewOrder outside the plan";
  EXPECT_EQ(this->run(bystander), RC::kOk);
}

// A district without undelivered orders: the Delivery expects it empty and
// reads (and declares) DISTRICT; an order a NewOrder inserted since has a
// customer it did not declare: a mismatch in a CC-free queue.
TYPED_TEST(TpccTransactionTest, OllpDeliveryAtTheEndOfADistrictsOrders) {
  auto& db = this->db();
  const uint32_t w = 2;
  auto all_delivered = [&] { return this->all_delivered(w); };
  ASSERT_NO_FATAL_FAILURE(this->deliver_everything(w));

  auto r = this->delivery_request(w, 2, 1700000701);
  ASSERT_TRUE(this->reconnoiter({&r}));
  EXPECT_EQ(r.delivery_open, (1u << kDistrictsPerWarehouse) - 1);
  TxnDesc desc = this->workload_->describe(r);
  Footprint f;
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_EQ(f.read, this->keys(desc.read_set));  // the ten DISTRICT rows
  EXPECT_EQ(as_conflict_keys(f.written), this->keys(desc.write_set));

  ASSERT_EQ(this->run(new_order_request(w, 4, 10, {{1, 2, 1}})), RC::kOk);
  EXPECT_EQ(this->run_cc_free(r), RC::kPredictionMismatch);
  ASSERT_TRUE(this->reconnoiter({&r}));
  desc = this->workload_->describe(r);
  ASSERT_EQ(this->run(r, &f), RC::kOk);
  EXPECT_TRUE(all_delivered());
  EXPECT_EQ(as_conflict_keys(f.written), this->keys(desc.write_set));
  const uint32_t o = row<DistrictRow>(db.district, district_key(w, 4))->next_o_id - 1;
  EXPECT_TRUE(f.written.count(gk(kCustomerTable, customer_key(w, 4, row<OrderRow>(db.order, order_key(w, 4, o))->c_id))));
}

}  // namespace
}  // namespace ccb
