// The five TPC-C transactions as stored procedures, written once as templates
// over the transaction context (README.md, design property 2): the same code runs
// under every protocol. Each follows the spec's transaction profile (clauses
// 2.4.2, 2.5.2, 2.6.2, 2.7.4, 2.8.2); README.md lists where the data access
// differs and why (auxiliary rows instead of scans, tombstones instead of
// deletes).
//
// Conventions: every row access goes through the transaction (read / update /
// insert); a nullptr means the attempt failed and txn.failure() says why, which
// the procedure returns so the executor retries (or, for RC::kUser and
// RC::kNotFound, gives up). No procedure allocates: per-transaction arrays
// live on the stack, row copies in the transaction's scratch arena.
//
// REQUIRES (all procedures): the request was produced by TpccGenerator
// (or equivalently) for a database with at least r.w_id warehouses.
// Thread safety: procedures run concurrently on the same database; the
// protocol provides isolation.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "engine/core/keep_alive.h"
#include "engine/core/local_work.h"
#include "engine/core/rc.h"
#include "workloads/tpcc/tpcc_database.h"
#include "workloads/tpcc/tpcc_requests.h"

namespace ccb::tpcc {

template <class T, class TxnT, class TableT>
const T* read_row(TxnT& txn, TableT& table, uint64_t key) {
  return reinterpret_cast<const T*>(txn.read(table, key));
}
template <class T, class TxnT, class TableT>
T* update_row(TxnT& txn, TableT& table, uint64_t key) {
  return reinterpret_cast<T*>(txn.update(table, key));
}
template <class T, class TxnT, class TableT>
T* insert_row(TxnT& txn, TableT& table, uint64_t key) {
  return reinterpret_cast<T*>(txn.insert(table, key));
}

template <size_t N>
bool contains_original(const char (&data)[N]) {
  return text(data).find("ORIGINAL") != std::string_view::npos;
}

// ---- NewOrder (2.4.2) ----------------------------------------------------------
// The inserts come after every read and update: the order of operations does
// not change the transaction's effect, and an attempt that aborts on a lock
// conflict or on the unused item then allocates no insert rows (inserted rows
// come from a bump arena and are not reclaimed).
template <class TxnT, class Db>
RC new_order(TxnT& txn, Db& db, const TpccRequest& r) {
  const uint32_t w = r.w_id, d = r.d_id;
  {  // The rows it reads and updates, known from the request (Txn::prefetch).
    typename TxnT::PrefetchKey declared[3 + 2 * kMaxOrderLines];
    size_t n = 0;
    if (!db.immutable_reads()) declared[n++] = {&db.warehouse, warehouse_key(w)};
    declared[n++] = {&db.district, district_key(w, d)};
    if (!db.immutable_reads()) declared[n++] = {&db.customer, customer_key(w, d, r.c_id)};
    for (uint32_t i = 0; i < r.ol_cnt; ++i) {
      declared[n++] = {&db.item, item_key(r.items[i].i_id)};
      declared[n++] = {&db.stock, stock_key(r.items[i].supply_w_id, r.items[i].i_id)};
    }
    txn.prefetch(declared, n);
  }
  // W_TAX and the customer's C_DISCOUNT, C_LAST, C_CREDIT: no transaction
  // writes them, so with --immutable_reads they come from the load's copy,
  // outside the protocol, at the cost of the index probe and row read they
  // replace (DBx1000's RD_RO accesses, which the 1000-cores data ran with).
  auto untracked_read = [] {
    charge_local_work(Work::kIndexProbe);
    charge_local_work(Work::kRowRead);
  };
  int32_t w_tax = 0;
  if (db.immutable_reads()) {
    untracked_read();
    w_tax = db.warehouse_tax(w);
  } else {
    const auto* wh = read_row<WarehouseRow>(txn, db.warehouse, warehouse_key(w));
    if (wh == nullptr) return txn.failure();
    w_tax = wh->tax;
  }
  auto* dist = update_row<DistrictRow>(txn, db.district, district_key(w, d));
  if (dist == nullptr) return txn.failure();
  const uint32_t o_id = dist->next_o_id++;
  int32_t c_discount = 0;
  std::string_view c_last;
  char c_credit = 0;
  if (db.immutable_reads()) {
    untracked_read();
    const auto& terms = db.customer_terms(w, d, r.c_id);
    c_discount = terms.discount;
    c_last = text(terms.last);
    c_credit = terms.credit[0];
  } else {
    const auto* cust = read_row<CustomerRow>(txn, db.customer, customer_key(w, d, r.c_id));
    if (cust == nullptr) return txn.failure();
    c_discount = cust->discount;
    c_last = text(cust->last);
    c_credit = cust->credit[0];
  }

  int64_t amount[kMaxOrderLines];
  const char* dist_info[kMaxOrderLines];
  int64_t sum = 0;
  uint32_t brand_items = 0;  // "B" (brand) when I_DATA and S_DATA both contain ORIGINAL, else "G"
  for (uint32_t i = 0; i < r.ol_cnt; ++i) {
    const TpccOrderItem& line = r.items[i];
    const auto* it = read_row<ItemRow>(txn, db.item, item_key(line.i_id));
    // 2.4.2.3: an unused item id signals "not-found" and the whole
    // transaction rolls back: a user abort, not retried.
    if (it == nullptr) return txn.failure() == RC::kNotFound ? RC::kUser : txn.failure();
    auto* s = update_row<StockRow>(txn, db.stock, stock_key(line.supply_w_id, line.i_id));
    if (s == nullptr) return txn.failure();
    const int32_t qty = line.quantity;
    s->quantity = s->quantity >= qty + 10 ? s->quantity - qty : s->quantity - qty + 91;
    s->ytd += qty;
    ++s->order_cnt;
    if (line.supply_w_id != w) ++s->remote_cnt;
    amount[i] = qty * it->price;
    dist_info[i] = s->dist[d - 1];
    sum += amount[i];
    brand_items += contains_original(it->data) && contains_original(s->data);
  }

  auto* last = update_row<CustomerLastOrderRow>(txn, db.customer_last_order, customer_key(w, d, r.c_id));
  if (last == nullptr) return txn.failure();
  last->o_id = o_id;
  auto* od = insert_row<OrderRow>(txn, db.order, order_key(w, d, o_id));
  if (od == nullptr) return txn.failure();
  od->c_id = r.c_id;
  od->entry_d = r.date;
  od->carrier_id = 0;
  od->ol_cnt = r.ol_cnt;
  od->all_local = r.all_local();
  if (insert_row<NewOrderRow>(txn, db.new_order, order_key(w, d, o_id)) == nullptr) return txn.failure();
  for (uint32_t i = 0; i < r.ol_cnt; ++i) {
    auto* ol = insert_row<OrderLineRow>(txn, db.order_line, order_line_key(w, d, o_id, i + 1));
    if (ol == nullptr) return txn.failure();
    ol->i_id = r.items[i].i_id;
    ol->supply_w_id = r.items[i].supply_w_id;
    ol->quantity = r.items[i].quantity;
    ol->amount = amount[i];
    ol->delivery_d = 0;
    std::memcpy(ol->dist_info, dist_info[i], sizeof ol->dist_info);
  }
  // The terminal output (2.4.3.3): total = sum * (1 - C_DISCOUNT) * (1 + W_TAX + D_TAX).
  const int64_t total = sum * (10000 - c_discount) / 10000 * (10000 + w_tax + dist->tax) / 10000;
  keep_alive(static_cast<uint64_t>(total) + brand_items + c_last.size() + c_credit);
  return RC::kOk;
}

// ---- Payment (2.5.2) -------------------------------------------------------------
// 2.5.2.2: a "BC" customer's C_DATA gets C_ID, C_D_ID, C_W_ID, D_ID, W_ID and
// H_AMOUNT inserted at its left, the old contents shifted right and cut at 500.
inline void prepend_payment_record(char (&data)[500], const TpccRequest& r, uint32_t c_id) {
  char rec[80];
  char* p = rec;
  char* const end = rec + sizeof rec;
  for (uint64_t v : {uint64_t{c_id}, uint64_t{r.c_d_id}, uint64_t{r.c_w_id}, uint64_t{r.d_id}, uint64_t{r.w_id}}) {
    p = std::to_chars(p, end, v).ptr;
    *p++ = ' ';
  }
  p = std::to_chars(p, end, r.h_amount / 100).ptr;
  *p++ = '.';
  *p++ = static_cast<char>('0' + r.h_amount % 100 / 10);
  *p++ = static_cast<char>('0' + r.h_amount % 10);
  *p++ = '|';
  const size_t n = static_cast<size_t>(p - rec);
  std::memmove(data + n, data, sizeof data - n);
  std::memcpy(data, rec, n);
}

template <class TxnT, class Db>
RC payment(TxnT& txn, Db& db, const TpccRequest& r) {
  // By last name: the middle of the customers with that name ordered by
  // C_FIRST, from the immutable secondary index (tpcc_name_index.h). Every
  // name occurs in every district (customers 1..1000 take names 0..999), so
  // a miss means a corrupt database. Found first, so the customer's row is
  // fetched (Txn::prefetch) while the warehouse and district are updated.
  const uint32_t c_id = r.by_last_name ? db.names.middle(r.c_w_id, r.c_d_id, r.c_last) : r.c_id;
  if (c_id == 0) return RC::kNotFound;
  const typename TxnT::PrefetchKey customer{&db.customer, customer_key(r.c_w_id, r.c_d_id, c_id)};
  txn.prefetch(&customer, 1);

  auto* wh = update_row<WarehouseRow>(txn, db.warehouse, warehouse_key(r.w_id));
  if (wh == nullptr) return txn.failure();
  wh->ytd += r.h_amount;
  auto* dist = update_row<DistrictRow>(txn, db.district, district_key(r.w_id, r.d_id));
  if (dist == nullptr) return txn.failure();
  dist->ytd += r.h_amount;

  // OLLP (Strife §5.6.4): the front-end planned with the customer a
  // reconnaissance read predicted; another one would break its plan.
  if (r.by_last_name && r.predicted_c_id != 0 && r.predicted_c_id != c_id) return RC::kPredictionMismatch;
  auto* cust = update_row<CustomerRow>(txn, db.customer, customer_key(r.c_w_id, r.c_d_id, c_id));
  if (cust == nullptr) return txn.failure();
  cust->balance -= r.h_amount;
  cust->ytd_payment += r.h_amount;
  ++cust->payment_cnt;
  if (cust->credit[0] == 'B' && cust->credit[1] == 'C') prepend_payment_record(cust->data, r, c_id);

  // HISTORY has no primary key in the spec; the attempt's id is unique.
  auto* h = insert_row<HistoryRow>(txn, db.history, txn.id());
  if (h == nullptr) return txn.failure();
  h->c_id = c_id;
  h->c_d_id = r.c_d_id;
  h->c_w_id = r.c_w_id;
  h->d_id = r.d_id;
  h->w_id = r.w_id;
  h->date = r.date;
  h->amount = r.h_amount;
  // H_DATA = W_NAME, 4 spaces, D_NAME (up to 10 + 4 + 10 characters).
  const std::string_view w_name = text(wh->name), d_name = text(dist->name);
  char* p = h->data;
  p = std::copy(w_name.begin(), w_name.end(), p);
  p = std::fill_n(p, 4, ' ');
  std::copy(d_name.begin(), d_name.end(), p);
  return RC::kOk;
}

// ---- OrderStatus (2.6.2) ---------------------------------------------------------
// The customer's last order comes from its CUSTOMER_LAST_ORDER row instead of
// a descending scan of ORDER by (W, D, C) (README "Deviations").
// OLLP (tpcc_reconnaissance.h): with a predicted last order, in a CC-free
// queue, the customer and the order it finds must be the predicted ones, or,
// when the batch holds a NewOrder of the customer (predicted_new_order), a
// newer order, which the plan ran first: its rows stand under the DISTRICT
// row declared for it. Any other NewOrder of the customer that ran since
// makes it RC::kPredictionMismatch (it read only declared rows).
template <class TxnT, class Db>
RC order_status(TxnT& txn, Db& db, const TpccRequest& r) {
  const uint32_t w = r.w_id, d = r.d_id;
  const uint32_t c_id = r.by_last_name ? db.names.middle(w, d, r.c_last) : r.c_id;
  if (c_id == 0) return RC::kNotFound;
  const bool predicted = r.predicted_o_id != 0 && txn.cc_free();
  if (predicted && r.by_last_name && r.predicted_c_id != c_id) return RC::kPredictionMismatch;
  const auto* cust = read_row<CustomerRow>(txn, db.customer, customer_key(w, d, c_id));
  if (cust == nullptr) return txn.failure();
  const auto* last = read_row<CustomerLastOrderRow>(txn, db.customer_last_order, customer_key(w, d, c_id));
  if (last == nullptr) return txn.failure();
  const uint32_t o_id = last->o_id;
  const bool newer = predicted && r.predicted_new_order && o_id > r.predicted_o_id;  // the batch's NewOrder's
  if (predicted && o_id != r.predicted_o_id && !newer) return RC::kPredictionMismatch;
  const auto* od = read_row<OrderRow>(txn, db.order, order_key(w, d, o_id));
  if (od == nullptr) return txn.failure();
  if (predicted && !newer && od->ol_cnt != r.predicted_ol_cnt) return RC::kPredictionMismatch;
  uint64_t output = static_cast<uint64_t>(cust->balance) + od->entry_d + od->carrier_id;
  for (uint32_t ol = 1; ol <= od->ol_cnt; ++ol) {
    const auto* line = read_row<OrderLineRow>(txn, db.order_line, order_line_key(w, d, o_id, ol));
    if (line == nullptr) return txn.failure();
    output += line->i_id + line->supply_w_id + line->quantity + static_cast<uint64_t>(line->amount) + line->delivery_d;
  }
  keep_alive(output);
  return RC::kOk;
}

// ---- Delivery (2.7.4) ------------------------------------------------------------
// Per district, the oldest undelivered order is the district's delivery
// cursor (DELIVERY_CURSOR, = min live NO_O_ID); its NEW-ORDER row is deleted
// by setting the tombstone. Whether a district has no undelivered order is
// decided transactionally: the cursor's NEW-ORDER row is missing only if the
// cursor reached D_NEXT_O_ID (then the DISTRICT row, read under the protocol,
// proves it) or the NewOrder that inserts it has not committed yet (then
// D_NEXT_O_ID is past the cursor once it has, and the row is there: NewOrder
// publishes its inserts before its DISTRICT write becomes visible).
// OLLP (tpcc_reconnaissance.h): with a prediction, in a CC-free queue, the
// order it delivers in each district must be the one it is bound to
// [delivery_from, delivery_to), whose customer it declared, or, for a
// district it expects empty ("open", DISTRICT declared), none. Its binding
// follows its position among its queue's Deliveries of the warehouse
// (engine/exec/queue_binding.h), so anything else, e.g. an earlier Delivery
// of its queue re-planned, or an order a NewOrder of the batch inserted, is
// RC::kPredictionMismatch before any undeclared row is touched. Under the
// protocol it delivers the oldest order, as always.
template <class TxnT, class Db>
RC delivery(TxnT& txn, Db& db, const TpccRequest& r) {
  const uint32_t w = r.w_id;
  const bool predicted = r.delivery_from[0] != 0 && txn.cc_free();
  uint32_t delivered = 0;
  for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
    auto* cursor = update_row<DeliveryCursorRow>(txn, db.delivery_cursor, district_key(w, d));
    if (cursor == nullptr) return txn.failure();
    const uint32_t o_id = cursor->next_o_id;
    // Past the predicted window: only an open district's end, found empty.
    const bool at_end = predicted && o_id >= r.delivery_to[d - 1];
    if (predicted && (o_id < r.delivery_from[d - 1] ||
                      (at_end && (o_id != r.delivery_to[d - 1] || !(r.delivery_open >> (d - 1) & 1)))))
      return RC::kPredictionMismatch;
    auto* no = update_row<NewOrderRow>(txn, db.new_order, order_key(w, d, o_id));
    if (no != nullptr && at_end) return RC::kPredictionMismatch;  // an order inserted since: customer unknown
    if (no == nullptr) {
      if (txn.failure() != RC::kNotFound) return txn.failure();
      const auto* dist = read_row<DistrictRow>(txn, db.district, district_key(w, d));
      if (dist == nullptr) return txn.failure();
      if (dist->next_o_id <= o_id) continue;  // 2.7.4.2: no outstanding order: skip the district
      if (at_end) return RC::kPredictionMismatch;
      no = update_row<NewOrderRow>(txn, db.new_order, order_key(w, d, o_id));
      if (no == nullptr) return txn.failure();
    }
    no->delivered = 1;
    cursor->next_o_id = o_id + 1;

    auto* od = update_row<OrderRow>(txn, db.order, order_key(w, d, o_id));
    if (od == nullptr) return txn.failure();
    od->carrier_id = r.carrier_id;
    int64_t sum = 0;
    for (uint32_t ol = 1; ol <= od->ol_cnt; ++ol) {
      auto* line = update_row<OrderLineRow>(txn, db.order_line, order_line_key(w, d, o_id, ol));
      if (line == nullptr) return txn.failure();
      line->delivery_d = r.date;
      sum += line->amount;
    }
    auto* cust = update_row<CustomerRow>(txn, db.customer, customer_key(w, d, od->c_id));
    if (cust == nullptr) return txn.failure();
    cust->balance += sum;
    ++cust->delivery_cnt;
    ++delivered;
  }
  keep_alive(delivered);
  return RC::kOk;
}

// ---- StockLevel (2.8.2) ----------------------------------------------------------
// The order lines of the district's last 20 orders are found by probing
// OL_NUMBER 1, 2, ... until a line is missing. A missing line is not a
// phantom risk: an order's lines are inserted with it, under the DISTRICT
// write this transaction read, and never deleted.
// OLLP (tpcc_reconnaissance.h): with a predicted D_NEXT_O_ID the window is
// the predicted one and DISTRICT is not read (2.8.2.3 asks of StockLevel
// only committed data no older than when it was initiated); its orders
// existed then, so, in a CC-free queue, an order without lines is
// RC::kPredictionMismatch.
template <class TxnT, class Db>
RC stock_level(TxnT& txn, Db& db, const TpccRequest& r) {
  const uint32_t w = r.w_id, d = r.d_id;
  uint32_t next = r.predicted_o_id;
  if (next == 0) {
    const auto* dist = read_row<DistrictRow>(txn, db.district, district_key(w, d));
    if (dist == nullptr) return txn.failure();
    next = dist->next_o_id;
  }
  uint32_t items[kStockLevelOrders * kMaxOrderLines];
  uint32_t n = 0;
  for (uint32_t o = next - kStockLevelOrders; o < next; ++o) {
    for (uint32_t ol = 1; ol <= kMaxOrderLines; ++ol) {
      const auto* line = read_row<OrderLineRow>(txn, db.order_line, order_line_key(w, d, o, ol));
      if (line == nullptr) {
        if (txn.failure() != RC::kNotFound) return txn.failure();
        if (ol == 1 && r.predicted_o_id != 0 && txn.cc_free()) return RC::kPredictionMismatch;
        break;
      }
      items[n++] = line->i_id;
    }
  }
  std::sort(items, items + n);
  const uint32_t distinct = static_cast<uint32_t>(std::unique(items, items + n) - items);
  uint32_t low_stock = 0;
  for (uint32_t i = 0; i < distinct; ++i) {
    const auto* s = read_row<StockRow>(txn, db.stock, stock_key(w, items[i]));
    if (s == nullptr) return txn.failure();
    low_stock += s->quantity < r.threshold;
  }
  keep_alive(low_stock);
  return RC::kOk;
}

template <class TxnT, class Db>
RC run_tpcc(TxnT& txn, Db& db, const TpccRequest& r) {
  switch (r.type) {
    case kNewOrder:
      return new_order(txn, db, r);
    case kPayment:
      return payment(txn, db, r);
    case kOrderStatus:
      return order_status(txn, db, r);
    case kDelivery:
      return delivery(txn, db, r);
    default:
      return stock_level(txn, db, r);
  }
}

}  // namespace ccb::tpcc
