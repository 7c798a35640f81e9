// TPC-C (TPC Benchmark C, standard specification 5.11): all nine tables and
// the five transactions, as a Workload (engine/workload.h). README.md next
// to this file documents the schema, key packing, knobs and deviations.
//
// Pieces:
//   tpcc_schema.h      cardinalities, table ids, key packing, row payloads
//   tpcc_options.h     the flags (--warehouses, --mix, --cross_pct, ...)
//   tpcc_requests.h    transaction inputs, TpccGenerator (generation, describe())
//   tpcc_database.h    the tables and the parallel loader
//   tpcc_procedures.h  the five stored procedures (templates over Txn)
//   tpcc_reconnaissance.h  OLLP reconnaissance: predicted rows for the bundle executor
//   tpcc_invariants.h  post-run consistency checks
//
// Thread safety: load() and check_invariants() run alone; generate(), run(),
// describe() and on_commit() run concurrently from the workers;
// begin_reconnaissance() alone and reconnoiter() concurrently, then the queue
// binding alone, while no transaction runs (the bundle executor's analysis).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/core/json.h"
#include "workloads/tpcc/tpcc_database.h"
#include "workloads/tpcc/tpcc_invariants.h"
#include "workloads/tpcc/tpcc_procedures.h"
#include "workloads/tpcc/tpcc_reconnaissance.h"
#include "workloads/tpcc/tpcc_requests.h"
#include "engine/workload.h"

namespace ccb {

template <class CC>
class TpccWorkload {
 public:
  static constexpr const char* kName = "tpcc";
  using Request = TpccRequest;
  using Database = tpcc::TpccDatabase<CC>;
  // Committed work, for the conservation checks.
  struct ThreadState {
    uint64_t new_orders = 0;
    uint64_t payments = 0;
    int64_t payment_cents = 0;
  };

  explicit TpccWorkload(const TpccOptions& o) : opt_(o), generator_(o), recon_(o.warehouses) {}

  std::vector<std::string> txn_types() const { return generator_.txn_types(); }

  void load(int threads) {
    const uint32_t loaders = threads < 1 ? 1u : static_cast<uint32_t>(threads);
    db_ = std::make_unique<Database>(opt_, generator_.nurand_constants(), loaders);
    db_->load(loaders);
  }

  void generate(Random& rng, uint32_t thread, Request& r) const { generator_.generate(rng, thread, r); }

  template <class TxnT>
  RC run(TxnT& txn, const Request& r) {
    return tpcc::run_tpcc(txn, *db_, r);
  }

  // The predicted access set (tpcc_requests.h); with OLLP predictions also
  // the rows they imply that only the database knows (tpcc_reconnaissance.h).
  // A request carries predictions only under the bundle executor, which
  // describes it in its analysis, when no transaction runs.
  TxnDesc describe(const Request& r) const {
    TxnDesc d = generator_.describe(r);
    if (db_) tpcc::Reconnaissance::describe_rows(*db_, r, d);
    return d;
  }

  // OLLP reconnaissance (Strife §5.6.4; tpcc_reconnaissance.h), the bundle
  // executor's hooks (engine/exec/bundle_batches.h): begin_reconnaissance()
  // once per batch with all its requests (proj: element -> TpccRequest; it
  // ranks the Deliveries), then
  // reconnoiter() on each, concurrently, predicting the rows each touches
  // from the database now; describe() then names them. The procedures check
  // the predictions in CC-free queues and return RC::kPredictionMismatch if
  // they no longer hold; the
  // executor then re-plans the transaction in the next batch, whose analysis
  // reconnoiters again. reconnoiter() returns whether r's prediction changed
  // (its description must be redone).
  // REQUIRES: load() has run; no transaction runs meanwhile.
  template <class R, class Proj = std::identity>
  void begin_reconnaissance(std::span<R> batch, Proj proj = {}) {
    recon_.begin(batch, proj);
  }
  bool reconnoiter(Request& r) const { return recon_.reconnoiter(*db_, r); }
  // Queue binding (engine/exec/queue_binding.h), after the plan: a Delivery
  // in a CC-free queue is bound to its position among the queue's Deliveries
  // of its warehouse (tpcc_reconnaissance.h).
  // REQUIRES: as reconnoiter(); the coordinator alone.
  void begin_queue_binding() { recon_.begin_queue(); }
  bool bind_in_queue(Request& r) const { return recon_.bind_in_queue(*db_, r); }
  void accept_binding(const Request& r) { recon_.accept_binding(r); }

  // OrderStatus and StockLevel never write (protocols may run them as
  // snapshot transactions; engine/txn/protocol.h, txn.read_only()).
  bool read_only(const Request& r) const { return r.type == tpcc::kOrderStatus || r.type == tpcc::kStockLevel; }

  // The table with global-key id `id` (tpcc_schema.h TableId), or nullptr:
  // protocols that lock the predicted access set resolve keys through it.
  // Partitioning for partition-level locking (engine/cc/partcc/partcc.h): by
  // warehouse, one partition per warehouse (n = --warehouses; the warehouse
  // sits at a fixed bit offset in each table's key, tpcc_schema.h). ITEM is
  // read-only and HISTORY insert-only under unique keys (txn ids): no
  // partition.
  uint32_t partition_count(uint32_t /*threads*/) const { return opt_.warehouses; }
  uint32_t partition_of(GlobalKey k, uint32_t n) const {
    const uint64_t key = local_key_of(k);
    uint64_t w = 0;
    switch (table_of(k)) {
      case tpcc::kWarehouseTable: w = key; break;
      case tpcc::kDistrictTable: case tpcc::kDeliveryCursorTable: w = key >> 4; break;
      case tpcc::kCustomerTable: case tpcc::kCustomerLastOrderTable: w = key >> 16; break;
      case tpcc::kNewOrderTable: case tpcc::kOrderTable: w = key >> 36; break;
      case tpcc::kOrderLineTable: w = key >> 40; break;
      case tpcc::kStockTable: w = key >> 17; break;
      default: return ~uint32_t{0};  // ITEM, HISTORY
    }
    return static_cast<uint32_t>((w - 1) % n);
  }

  Table<CC>* table_by_id(uint32_t id) const {
    if (!db_) return nullptr;
    Database& d = *db_;
    switch (id) {
      case tpcc::kWarehouseTable:
        return &d.warehouse;
      case tpcc::kDistrictTable:
        return &d.district;
      case tpcc::kCustomerTable:
        return &d.customer;
      case tpcc::kHistoryTable:
        return &d.history;
      case tpcc::kNewOrderTable:
        return &d.new_order;
      case tpcc::kOrderTable:
        return &d.order;
      case tpcc::kOrderLineTable:
        return &d.order_line;
      case tpcc::kItemTable:
        return &d.item;
      case tpcc::kStockTable:
        return &d.stock;
      case tpcc::kCustomerLastOrderTable:
        return &d.customer_last_order;
      case tpcc::kDeliveryCursorTable:
        return &d.delivery_cursor;
      default:
        return nullptr;
    }
  }

  void on_commit(ThreadState& s, const Request& r) const {
    if (r.type == tpcc::kNewOrder) {
      ++s.new_orders;
    } else if (r.type == tpcc::kPayment) {
      ++s.payments;
      s.payment_cents += r.h_amount;
    }
  }

  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& states) {
    tpcc::CommittedTotals committed;
    for (const auto& s : states) {
      committed.new_orders += s.new_orders;
      committed.payments += s.payments;
      committed.payment_cents += s.payment_cents;
    }
    return tpcc::check_tpcc_invariants(*db_, committed);
  }

  void options_json(JsonWriter& w) const { opt_.to_json(w); }
  size_t memory_bytes() const { return db_ ? db_->memory_bytes() : 0; }
  MemoryEstimate memory_estimate() const { return {Database::estimated_bytes(opt_), "warehouses"}; }

  const TpccOptions& options() const { return opt_; }
  const TpccGenerator& generator() const { return generator_; }
  // REQUIRES: load() has run.
  Database& db() { return *db_; }

 private:
  TpccOptions opt_;
  TpccGenerator generator_;
  tpcc::Reconnaissance recon_;  // the batch being reconnoitered (its Deliveries per warehouse)
  std::unique_ptr<Database> db_;
};

}  // namespace ccb
