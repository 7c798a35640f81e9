// TPC-C requests: the input data of the five transactions (clauses 2.4.1,
// 2.5.1, 2.6.1, 2.7.1, 2.8.1), their generation, and the access set a
// front-end can predict from them before execution (README.md, design property 3).
//
// Terminals are not emulated: worker thread t generates every request of its
// stream with home warehouse W_ID = t mod warehouses + 1 (as DBx1000 does),
// and draws D_ID uniformly also for StockLevel (the spec fixes it per terminal).
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
  // Payment by last name under a front-end (Strife's OLLP, §5.6.4): the customer
  // a reconnaissance read predicted (TpccWorkload::reconnoiter), 0 = none.
  // describe() names it; the procedure checks it (RC::kPredictionMismatch).
  uint32_t predicted_c_id = 0;
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

  explicit TpccGenerator(const TpccOptions& opt) : opt_(opt), c_(tpcc::NurandConstants::make(opt.load_seed)) {}
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
  tpcc::NurandConstants c_;
};

// TpccGenerator::describe: what is known before execution:
//   NewOrder     reads WAREHOUSE, CUSTOMER and every ITEM; writes DISTRICT,
//                CUSTOMER_LAST_ORDER and the STOCK row of every item. The
//                unused item id of a rolled-back order names no row: left out.
//                The ORDER, NEW-ORDER and ORDER-LINE rows it inserts are keyed
//                by D_NEXT_O_ID, read during execution: they are left out (no
//                other predicted set names them; DISTRICT orders the writers).
//   Payment      writes WAREHOUSE and DISTRICT, and CUSTOMER when selected by
//                id. By last name the customer is the middle one of the
//                district's customers with that name, unknown until the
//                secondary index is read: left out (a front-end can resolve
//                it with a reconnaissance lookup, TpccWorkload::
//                customer_by_last_name). The HISTORY insert's key is the
//                attempt's id: left out.
//   OrderStatus  reads CUSTOMER and CUSTOMER_LAST_ORDER when selected by id
//                (nothing when by name); its ORDER and ORDER-LINE rows depend
//                on the last-order id read during execution: left out.
//   Delivery     writes the 10 DELIVERY_CURSOR rows of its warehouse; the
//                NEW-ORDER, ORDER, ORDER-LINE and CUSTOMER rows follow from the
//                cursors: left out.
//   StockLevel   reads DISTRICT; the order lines and stock rows follow from
//                D_NEXT_O_ID: left out.

}  // namespace ccb
