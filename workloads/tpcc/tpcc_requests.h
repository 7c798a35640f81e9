// TPC-C requests: the input data of the five transactions (clauses 2.4.1,
// 2.5.1, 2.6.1, 2.7.1, 2.8.1), their generation, and the access set a
// front-end can predict from them before execution (README.md, design property 3).
//
// Terminals are not emulated: with --home_warehouse=worker (the default)
// worker thread t generates every request of its stream with home warehouse
// W_ID = t mod warehouses + 1 (as DBx1000 does); with uniform each request's
// W_ID is drawn uniformly over all warehouses (clients spread over the whole
// database, the Strife paper's batches). D_ID is drawn uniformly, also for
// StockLevel (the spec fixes it per terminal).
//
// TpccGenerator is TPC-C's request generator, without tables or protocol
// (TpccWorkload<CC>, tpcc.h, holds one): it owns the run's NURand constants
// (clause 2.1.6, from --load_seed's fixed seed), which the loader also uses.
// Distinct item ids per order are drawn again on a repeat: at most 15 of
// 100000 items, so repeats are rare. No set-up beyond the constructor.
//
// Thread safety: a TpccGenerator is immutable after construction and may be
// shared; each caller passes its own Random.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "workloads/tpcc/tpcc_options.h"
#include "workloads/tpcc/tpcc_random.h"
#include "workloads/tpcc/tpcc_schema.h"

namespace ccb {

struct TpccOrderItem {
  uint32_t i_id;         // OL_I_ID (kUnusedItemId on the rolled-back order's last line)
  uint16_t supply_w_id;  // OL_SUPPLY_W_ID
  uint8_t quantity;      // OL_QUANTITY
};

// One transaction's input. Trivially copyable; unused fields stay zero.
struct TpccRequest {
  uint32_t type = 0;  // tpcc::TxnType
  uint16_t w_id = 0;  // home warehouse (every type)
  uint8_t d_id = 0;   // district (all but Delivery)
  // The customer (NewOrder, Payment, OrderStatus). Payment's customer may
  // belong to another warehouse and district (c_w_id, c_d_id); for NewOrder
  // and OrderStatus they equal (w_id, d_id); Delivery and StockLevel leave
  // them 0.
  uint16_t c_w_id = 0;
  uint8_t c_d_id = 0;
  bool by_last_name = false;
  uint32_t c_id = 0;       // when !by_last_name
  uint16_t c_last = 0;     // C_LAST's number in [0, 999] when by_last_name
  // OLLP predictions (Strife §5.6.4; tpcc_reconnaissance.h): what a
  // reconnaissance read found before the batch ran (TpccWorkload::reconnoiter,
  // only under a bundle front-end); zero = no prediction. describe() names the
  // rows they imply; the procedure checks them and returns
  // RC::kPredictionMismatch, having written nothing, if they no longer hold.
  uint32_t predicted_c_id = 0;  // Payment, OrderStatus by last name: the customer
  // OrderStatus: the customer's last order (its O_OL_CNT in predicted_ol_cnt);
  // StockLevel: D_NEXT_O_ID, the end of its window of 20 orders.
  uint32_t predicted_o_id = 0;
  uint8_t predicted_ol_cnt = 0;
  // OrderStatus, StockLevel: a Delivery of this batch may deliver an order it
  // reads; it then declares the district's DELIVERY_CURSOR row, the conflict
  // key of undelivered orders' rows (tpcc_reconnaissance.h).
  bool predicted_cursor_read = false;
  // OrderStatus: a NewOrder of this batch orders for its customer; it may run
  // first (the plan orders them) and give the customer a newer last order,
  // whose rows stand under DISTRICT, which it then declares.
  bool predicted_new_order = false;
  // Delivery: its rank among the batch's Deliveries of its warehouse (batch
  // order), and per district d (index d - 1) the order it is bound to deliver,
  // [delivery_from, delivery_to) (one order, or none), and in bit d - 1 of
  // delivery_open whether it expects the district without an undelivered
  // order (then it reads DISTRICT).
  uint32_t delivery_rank = 0;
  uint32_t delivery_from[tpcc::kDistrictsPerWarehouse] = {};
  uint32_t delivery_to[tpcc::kDistrictsPerWarehouse] = {};
  uint16_t delivery_open = 0;
  uint8_t ol_cnt = 0;      // NewOrder
  uint8_t carrier_id = 0;  // Delivery
  uint8_t threshold = 0;   // StockLevel
  int64_t h_amount = 0;    // Payment, cents
  uint64_t date = 0;       // O_ENTRY_D, H_DATE, OL_DELIVERY_D
  TpccOrderItem items[tpcc::kMaxOrderLines] = {};

  // NewOrder: every order line supplied by the home warehouse (O_ALL_LOCAL).
  bool all_local() const {
    for (uint32_t i = 0; i < ol_cnt; ++i)
      if (items[i].supply_w_id != w_id) return false;
    return true;
  }
  // NewOrder: the spec's 1% rollback (2.4.1.4): the last item id is unused.
  bool rolls_back() const { return ol_cnt > 0 && items[ol_cnt - 1].i_id == tpcc::kUnusedItemId; }
};

class TpccGenerator {
 public:
  using Request = TpccRequest;

  explicit TpccGenerator(const TpccOptions& opt)
      : opt_(opt), uniform_home_(opt.uniform_home()), c_(tpcc::NurandConstants::make(opt.load_seed)) {}
  void prepare() {}  // nothing to build

  std::vector<std::string> txn_types() const { return {tpcc::kTxnTypeNames.begin(), tpcc::kTxnTypeNames.end()}; }
  // Deterministic for a given Random stream and thread.
  void generate(Random& rng, uint32_t thread, TpccRequest& r) const;
  // The access set predicted from the request alone (below).
  static TxnDesc describe(const TpccRequest& r);
  const TpccOptions& options() const { return opt_; }
  const tpcc::NurandConstants& nurand_constants() const { return c_; }

  // Each type with its home warehouse `w` (tests and tools build requests of
  // one type this way).
  void new_order(Random& rng, uint32_t w, TpccRequest& r) const;
  void payment(Random& rng, uint32_t w, TpccRequest& r) const;
  void order_status(Random& rng, uint32_t w, TpccRequest& r) const;
  void delivery(Random& rng, uint32_t w, TpccRequest& r) const;
  void stock_level(Random& rng, uint32_t w, TpccRequest& r) const;

 private:
  uint32_t other_warehouse(Random& rng, uint32_t w) const;
  // Payment/OrderStatus customer selection: 60% by last name (by_last_name_pct).
  void choose_customer(Random& rng, TpccRequest& r) const;

  TpccOptions opt_;
  bool uniform_home_;  // --home_warehouse=uniform (read once: generate() is on every request's path)
  tpcc::NurandConstants c_;
};

// TpccGenerator::describe: what is known from the request (and its OLLP
// predictions, when a reconnaissance made some):
//   NewOrder     reads WAREHOUSE, CUSTOMER and every ITEM; writes DISTRICT,
//                CUSTOMER_LAST_ORDER and the STOCK row of every item. The
//                unused item id of a rolled-back order names no row: left out.
//                The ORDER, NEW-ORDER and ORDER-LINE rows it inserts are keyed
//                by D_NEXT_O_ID: the DISTRICT write is their conflict key
//                (a transaction that could touch them before they exist, a
//                Delivery that may find its district empty, reads DISTRICT).
//   Payment      writes WAREHOUSE and DISTRICT, and CUSTOMER when selected by
//                id or by a predicted customer (by last name the customer is
//                the middle namesake, known from the secondary index:
//                TpccWorkload::reconnoiter). The HISTORY row it inserts is
//                keyed by the attempt's id, which no other transaction
//                touches; the DISTRICT write stands for it.
//   OrderStatus  reads CUSTOMER and CUSTOMER_LAST_ORDER (selected by id, or by
//                the predicted customer); with a predicted last order also
//                that ORDER row, its O_OL_CNT ORDER-LINE rows and, when a
//                Delivery of the batch may deliver it, the district's
//                DELIVERY_CURSOR; when a NewOrder of the batch may give the
//                customer a newer last order, DISTRICT (the conflict key of
//                the batch's inserted orders). By last name without a
//                prediction: nothing.
//   Delivery     writes the 10 DELIVERY_CURSOR rows of its warehouse (the
//                conflict key of the NEW-ORDER, ORDER and ORDER-LINE rows of
//                undelivered orders); reads DISTRICT of the districts its
//                prediction expects empty. The CUSTOMER rows of its predicted
//                orders come from the database (TpccWorkload::describe).
//   StockLevel   with a predicted window: the district's DELIVERY_CURSOR when
//                a Delivery of the batch may reach the window; its ORDER-LINE
//                and STOCK rows come from the database (TpccWorkload::describe).
//                Without one: reads DISTRICT; the lines and stock rows follow
//                from D_NEXT_O_ID: left out.

}  // namespace ccb
