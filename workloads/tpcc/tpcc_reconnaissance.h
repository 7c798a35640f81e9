// OLLP reconnaissance for TPC-C (README.md "Predicted access sets"): the
// bundle executor's front-ends plan a batch from each transaction's predicted
// access set (engine/exec/bundle_batches.h, HasReconnaissance), and the
// rows of Payment and OrderStatus by last name, OrderStatus, Delivery and
// StockLevel depend on the database. Strife folds "a read-only, low isolation
// level query called the reconnaissance query" into its prepare step
// (Strife §5.6.4, after Thomson and Abadi's OLLP); the TSKD paper requires
// access sets known upfront and cites techniques that identify them (TSKD §3,
// "Limitations" (1)). Neither says what happens when the prediction is wrong
// [INF]: here the procedure checks it where the plan relies on it for
// isolation, in a CC-free queue (txn.cc_free()), and returns
// RC::kPredictionMismatch there (having written nothing); the executor
// re-plans the transaction in the next batch, as OLLP restarts it. Under the
// protocol (residuals, TSKD's queues, which TSKD §3 runs with CC "to guard
// ... against potentially overlooked conflicts") a stale prediction costs
// only scheduling quality, and the transaction runs as TPC-C specifies (no
// front-end runs CC and CC-free queues of a batch side by side,
// engine/exec/bundle_plan.h "Who uses what"; --verify's conflict-free check
// would catch one that did).
//
// The reconnaissance runs in the batch's analysis, when no transaction runs:
// it reads rows in place (TpccDatabase::row). Within the batch, transactions
// run before the prediction's own may change what it reads:
//   Payment, OrderStatus by last name: the middle namesake (the index never
//       changes: always right).
//   OrderStatus: the customer's last order and its O_OL_CNT. A NewOrder of
//       the same customer that runs first gives it a newer one: both declare
//       its CUSTOMER_LAST_ORDER row, so the plan orders them (one queue, or
//       the residuals), and when the batch holds such a NewOrder the
//       OrderStatus also declares a read of DISTRICT, the conflict key of the
//       batch's inserted orders (below), and accepts a last order newer than
//       the predicted one in a CC-free queue (predicted_new_order): the plan
//       ran its NewOrder first. Without one in the batch a newer last order
//       is a transaction outside the plan: a mismatch.
//   StockLevel: D_NEXT_O_ID, which fixes the 20 orders it examines. TPC-C
//       2.8.2.3 asks of StockLevel only that "all data read must be committed
//       and no older than the most recently committed data prior to the time
//       this business transaction was initiated", which the state at the
//       batch's analysis is; the procedure then examines that window instead
//       of reading DISTRICT, so NewOrders of the batch do not invalidate it.
//   Delivery: the oldest undelivered order of each district moves with every
//       Delivery of the warehouse. For the plan, the k-th Delivery of a
//       warehouse in batch order is bound to the order cursor + k of each
//       district (or, past D_NEXT_O_ID, to finding the district empty,
//       reading DISTRICT) and declares its customer. The batch's Deliveries
//       of a warehouse all write the same cursors, so a partitioner keeps
//       them in one CC-free queue (or sends them to the residuals, which run
//       after every queue, under CC: Strife §2, TSKD §6.1), but not
//       necessarily in batch order nor all of them. So once the plan exists
//       the k-th Delivery of a warehouse in its CC-free queue is bound again,
//       to cursor + k, the oldest undelivered order when it runs
//       (bind_in_queue; engine/exec/queue_binding.h checks the customers it
//       then declares against the other queues and otherwise leaves it to
//       the residuals). Deliveries in the residuals or in CC queues keep the
//       batch-order binding: unchecked, they deliver the oldest order. One
//       that still runs out of its bound order in a CC-free queue (an earlier
//       one of its queue was re-planned) is a mismatch.
//       (Declaring every order one of the m Deliveries might reach instead
//       makes each declare 10 m customers: Schism's pairwise graph did not
//       finish a 10,000-transaction bundle at the small profile in 120 s.)
// Conflict keys for rows a prediction does not name one by one: the NEW-ORDER,
// ORDER and ORDER-LINE rows of undelivered orders, which only Delivery
// writes, stand under the district's DELIVERY_CURSOR row: Delivery writes it,
// and an OrderStatus or StockLevel reading such a row that a Delivery of the
// batch may reach (an order in [cursor, cursor + m)) declares a read of it.
// Orders a NewOrder of the batch inserts stand under DISTRICT (NewOrder
// writes it; a Delivery that may reach them, and an OrderStatus that may find
// one as its customer's last order, read it).
//
// Thread safety: begin() runs alone on the coordinator (it writes the
// Deliveries' ranks into the batch); reconnoiter() and
// describe_rows() then run concurrently on distinct requests, reading the
// database and the batch's counts; the queue binding (begin_queue(),
// bind_in_queue(), accept_binding()) runs alone on the coordinator after the
// plan. REQUIRES: no transaction runs meanwhile.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/core/txn_desc.h"
#include "workloads/tpcc/tpcc_requests.h"
#include "workloads/tpcc/tpcc_schema.h"

namespace ccb::tpcc {

class Reconnaissance {
 public:
  explicit Reconnaissance(uint32_t warehouses) : deliveries_(warehouses + 1, 0), queue_ranks_(warehouses + 1, 0) {}

  // The batch whose requests are reconnoitered next: counts its Deliveries
  // per warehouse and ranks them in batch order (TpccRequest::delivery_rank),
  // and notes the customers its NewOrders give a new last order (proj maps an
  // element of `batch` to its TpccRequest).
  template <class R, class Proj = std::identity>
  void begin(std::span<R> batch, Proj proj = {}) {
    std::fill(deliveries_.begin(), deliveries_.end(), 0u);
    new_order_customers_.clear();
    for (R& x : batch) {
      TpccRequest& r = std::invoke(proj, x);
      if (r.type == kDelivery) r.delivery_rank = deliveries_[r.w_id]++;
      // A rolled-back NewOrder (2.4.1.4) leaves the last order alone.
      if (r.type == kNewOrder && !r.rolls_back()) new_order_customers_.push_back(customer_key(r.w_id, r.d_id, r.c_id));
    }
    std::sort(new_order_customers_.begin(), new_order_customers_.end());
    new_order_customers_.erase(std::unique(new_order_customers_.begin(), new_order_customers_.end()),
                               new_order_customers_.end());
  }

  // Queue binding (engine/exec/queue_binding.h), after the plan: a CC-free
  // queue starts (begin_queue), and each of its requests in queue order is
  // bound (bind_in_queue) and, if the executor keeps it there, takes its
  // position (accept_binding). Only a predicted Delivery binds: its rank
  // becomes its position among the queue's Deliveries of its warehouse, and
  // its prediction is made again (returns whether it changed).
  void begin_queue() { std::fill(queue_ranks_.begin(), queue_ranks_.end(), 0u); }
  template <class Db>
  bool bind_in_queue(Db& db, TpccRequest& r) const {
    if (r.type != kDelivery || r.delivery_from[0] == 0) return false;
    r.delivery_rank = queue_ranks_[r.w_id];
    return reconnoiter(db, r);
  }
  void accept_binding(const TpccRequest& r) {
    if (r.type == kDelivery && r.delivery_from[0] != 0) ++queue_ranks_[r.w_id];
  }

  // Predicts r's data-dependent rows against `db`; returns whether the
  // prediction changed (r must be described again).
  template <class Db>
  bool reconnoiter(Db& db, TpccRequest& r) const {
    const TpccRequest before = r;
    switch (r.type) {
      case kPayment:
        if (r.by_last_name) r.predicted_c_id = db.names.middle(r.c_w_id, r.c_d_id, r.c_last);
        return r.predicted_c_id != before.predicted_c_id;
      case kOrderStatus: {
        const uint32_t w = r.w_id, d = r.d_id;
        const uint32_t c = r.by_last_name ? db.names.middle(w, d, r.c_last) : r.c_id;
        if (r.by_last_name) r.predicted_c_id = c;
        r.predicted_o_id = row<CustomerLastOrderRow>(db, db.customer_last_order, customer_key(w, d, c))->o_id;
        r.predicted_ol_cnt = row<OrderRow>(db, db.order, order_key(w, d, r.predicted_o_id))->ol_cnt;
        r.predicted_cursor_read = reachable_by_delivery(db, w, d, r.predicted_o_id, r.predicted_o_id + 1);
        r.predicted_new_order = std::binary_search(new_order_customers_.begin(), new_order_customers_.end(),
                                                   customer_key(w, d, c));
        return r.predicted_c_id != before.predicted_c_id || r.predicted_o_id != before.predicted_o_id ||
               r.predicted_ol_cnt != before.predicted_ol_cnt ||
               r.predicted_cursor_read != before.predicted_cursor_read ||
               r.predicted_new_order != before.predicted_new_order;
      }
      case kStockLevel: {
        const uint32_t w = r.w_id, d = r.d_id;
        r.predicted_o_id = row<DistrictRow>(db, db.district, district_key(w, d))->next_o_id;
        r.predicted_cursor_read = reachable_by_delivery(db, w, d, r.predicted_o_id - kStockLevelOrders, r.predicted_o_id);
        return r.predicted_o_id != before.predicted_o_id || r.predicted_cursor_read != before.predicted_cursor_read;
      }
      case kDelivery: {
        bool changed = false;
        r.delivery_open = 0;
        for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
          const uint32_t next = row<DistrictRow>(db, db.district, district_key(r.w_id, d))->next_o_id;
          const uint32_t from = std::min(cursor(db, r.w_id, d) + r.delivery_rank, next);
          const uint32_t to = from < next ? from + 1 : from;  // at D_NEXT_O_ID: none, the district is empty
          changed |= r.delivery_from[d - 1] != from || r.delivery_to[d - 1] != to;
          r.delivery_from[d - 1] = from;
          r.delivery_to[d - 1] = to;
          if (from == to) r.delivery_open |= static_cast<uint16_t>(1u << (d - 1));
        }
        return changed || r.delivery_open != before.delivery_open;
      }
      default:
        return false;  // NewOrder: every row it touches follows from the request
    }
  }

  // The predicted rows describe() adds from the database (TpccGenerator::
  // describe names those that follow from the request): a Delivery's
  // customers, a StockLevel's window of order lines and their stock rows.
  // Deterministic for an unchanged prediction (orders never change their
  // customer, lines or O_OL_CNT).
  template <class Db>
  static void describe_rows(Db& db, const TpccRequest& r, TxnDesc& desc) {
    if (r.type == kDelivery && r.delivery_from[0] != 0) {
      const size_t first = desc.write_set.size();
      for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d)
        for (uint32_t o = r.delivery_from[d - 1]; o < r.delivery_to[d - 1]; ++o) {
          const uint32_t c = row<OrderRow>(db, db.order, order_key(r.w_id, d, o))->c_id;
          desc.write_set.push_back(make_global_key(kCustomerTable, customer_key(r.w_id, d, c)));
        }
      sort_unique_from(desc.write_set, first);
    } else if (r.type == kStockLevel && r.predicted_o_id != 0) {
      const uint32_t w = r.w_id, d = r.d_id;
      const size_t first = desc.read_set.size();
      for (uint32_t o = r.predicted_o_id - kStockLevelOrders; o < r.predicted_o_id; ++o) {
        const uint32_t lines = row<OrderRow>(db, db.order, order_key(w, d, o))->ol_cnt;
        for (uint32_t ol = 1; ol <= lines; ++ol) {
          desc.read_set.push_back(make_global_key(kOrderLineTable, order_line_key(w, d, o, ol)));
          const uint32_t item = row<OrderLineRow>(db, db.order_line, order_line_key(w, d, o, ol))->i_id;
          desc.read_set.push_back(make_global_key(kStockTable, stock_key(w, item)));
        }
      }
      sort_unique_from(desc.read_set, first);
    }
  }

  uint32_t deliveries(uint32_t w) const { return w < deliveries_.size() ? deliveries_[w] : 0; }

 private:
  template <class T, class Db, class TableT>
  static const T* row(Db&, TableT& table, uint64_t key) {
    return Db::template row<T>(table, key);
  }
  template <class Db>
  static uint32_t cursor(Db& db, uint32_t w, uint32_t d) {
    return row<DeliveryCursorRow>(db, db.delivery_cursor, district_key(w, d))->next_o_id;
  }
  // Whether a Delivery of this batch may deliver an order of [lo, hi) of
  // district (w, d): its m Deliveries deliver at most [cursor, cursor + m).
  template <class Db>
  bool reachable_by_delivery(Db& db, uint32_t w, uint32_t d, uint32_t lo, uint32_t hi) const {
    const uint32_t m = deliveries(w);
    if (m == 0) return false;
    const uint32_t c = cursor(db, w, d);
    return lo < c + m && c < hi;
  }
  static void sort_unique_from(std::vector<GlobalKey>& keys, size_t first) {
    std::sort(keys.begin() + static_cast<std::ptrdiff_t>(first), keys.end());
    keys.erase(std::unique(keys.begin() + static_cast<std::ptrdiff_t>(first), keys.end()), keys.end());
  }

  std::vector<uint32_t> deliveries_;  // per warehouse id: Deliveries in the batch being reconnoitered
  std::vector<uint64_t> new_order_customers_;  // customer_key()s of the batch's NewOrders, sorted
  std::vector<uint32_t> queue_ranks_;  // per warehouse id: Deliveries bound in the queue being bound
};

}  // namespace ccb::tpcc
