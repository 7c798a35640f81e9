// The TPC-C database of one run (the nine tables, the two auxiliary tables and
// the last-name index) and its parallel loader (clause 4.3.3.1).
//
// Loading: the tables' row slots are allocated (and pre-faulted) up front with
// exact cardinalities, then `threads` loader threads fill them, thread t
// taking warehouses t+1, t+1+threads, ... and every threads-th chunk of ITEM.
// Each warehouse and each item chunk draws from its own random stream derived
// from TpccOptions::load_seed, so the database is the same for any number of
// loader threads. ORDER-LINE slots need the O_OL_CNT of every loaded order in
// advance; they are drawn first (a cheap serial pass) and turned into
// per-warehouse slot offsets.
//
// Thread safety: load() is called once, before any transaction; afterwards the
// tables are accessed through transactions (engine/txn/txn.h) or, when no
// transaction runs, through row() (checks and tests).
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/table.h"
#include "workloads/tpcc/tpcc_name_index.h"
#include "workloads/tpcc/tpcc_options.h"
#include "workloads/tpcc/tpcc_random.h"
#include "workloads/tpcc/tpcc_schema.h"

namespace ccb::tpcc {

// O_OL_CNT of every loaded order, and where each warehouse's ORDER-LINE rows
// start in the table's slots.
struct OrderLinePlan {
  std::vector<uint8_t> ol_cnt;       // [(w-1) * 10 + (d-1)] * 3000 + (o-1)
  std::vector<uint64_t> first_slot;  // [w-1], plus the total at [warehouses]

  OrderLinePlan(uint32_t warehouses, uint64_t load_seed) : first_slot(warehouses + 1, 0) {
    const uint64_t per_warehouse = uint64_t{kDistrictsPerWarehouse} * kOrdersPerDistrict;
    ol_cnt.resize(per_warehouse * warehouses);
    for (uint32_t w = 1; w <= warehouses; ++w) {
      Random rng(seed_for(load_seed ^ kStream, w));
      uint64_t lines = 0;
      for (uint64_t i = (w - 1) * per_warehouse; i < w * per_warehouse; ++i) {
        ol_cnt[i] = static_cast<uint8_t>(uniform(rng, kMinOrderLines, kMaxOrderLines));
        lines += ol_cnt[i];
      }
      first_slot[w] = first_slot[w - 1] + lines;
    }
  }
  uint8_t lines_of(uint32_t w, uint32_t d, uint32_t o) const {
    return ol_cnt[(uint64_t{w - 1} * kDistrictsPerWarehouse + (d - 1)) * kOrdersPerDistrict + (o - 1)];
  }
  uint64_t total() const { return first_slot.back(); }

  static constexpr uint64_t kStream = 0x6f6c5f636e74ull;  // "ol_cnt"
};

template <class CC>
class TpccDatabase {
 public:
  using TableT = Table<CC>;

  // Creates the (empty, pre-faulted) tables. `loaders`: threads load() will use.
  TpccDatabase(const TpccOptions& opt, const NurandConstants& nurand, uint32_t loaders)
      : opt_(opt),
        nurand_(nurand),
        plan_(opt.warehouses, opt.load_seed),
        warehouse(shape(kWarehouseTable)),
        district(shape(kDistrictTable)),
        customer(shape(kCustomerTable)),
        history(shape(kHistoryTable)),
        new_order(shape(kNewOrderTable)),
        order(shape(kOrderTable)),
        order_line(shape(kOrderLineTable)),
        item(shape(kItemTable)),
        stock(shape(kStockTable)),
        customer_last_order(shape(kCustomerLastOrderTable)),
        delivery_cursor(shape(kDeliveryCursorTable)),
        names(opt.warehouses, loaders) {
    if (opt.immutable_reads) {
      warehouse_tax_.resize(opt.warehouses);
      customer_terms_.resize(uint64_t{opt.warehouses} * kDistrictsPerWarehouse * kCustomersPerDistrict);
    }
  }

  // --immutable_reads: the attributes NewOrder reads that no transaction
  // writes, copied at load and read without concurrency control (as the
  // immutable secondary index `names` is). Empty without the option.
  struct CustomerTerms {
    int32_t discount;  // C_DISCOUNT
    char last[16];     // C_LAST
    char credit[2];    // C_CREDIT
  };
  bool immutable_reads() const { return opt_.immutable_reads; }
  int32_t warehouse_tax(uint32_t w) const { return warehouse_tax_[w - 1]; }
  const CustomerTerms& customer_terms(uint32_t w, uint32_t d, uint32_t c) const {
    return customer_terms_[district_slot(w, d) * kCustomersPerDistrict + c - 1];
  }

  // Every table's shape, indexed by TableId - 1. `order_lines`: ORDER-LINE
  // rows loaded (the sum of the drawn O_OL_CNT).
  static std::array<TableShape, kDeliveryCursorTable> table_shapes(const TpccOptions& opt, uint64_t order_lines) {
    const uint64_t districts = uint64_t{opt.warehouses} * kDistrictsPerWarehouse;
    const uint64_t customers = districts * kCustomersPerDistrict;
    const uint64_t stock = uint64_t{opt.warehouses} * kStockPerWarehouse;
    const uint64_t inserts = opt.expected_new_orders;
    return {{
        {kWarehouseTable, "warehouse", sizeof(WarehouseRow), opt.warehouses, opt.warehouses},
        {kDistrictTable, "district", sizeof(DistrictRow), districts, districts},
        {kCustomerTable, "customer", sizeof(CustomerRow), customers, customers},
        {kHistoryTable, "history", sizeof(HistoryRow), customers, customers + inserts},
        {kNewOrderTable, "new_order", sizeof(NewOrderRow), districts * kNewOrdersPerDistrict,
         districts * kNewOrdersPerDistrict + inserts},
        {kOrderTable, "order", sizeof(OrderRow), districts * kOrdersPerDistrict, districts * kOrdersPerDistrict + inserts},
        {kOrderLineTable, "order_line", sizeof(OrderLineRow), order_lines,
         order_lines + inserts * (kMinOrderLines + kMaxOrderLines) / 2},
        {kItemTable, "item", sizeof(ItemRow), kItems, kItems},
        {kStockTable, "stock", sizeof(StockRow), stock, stock},
        {kCustomerLastOrderTable, "customer_last_order", sizeof(CustomerLastOrderRow), customers, customers},
        {kDeliveryCursorTable, "delivery_cursor", sizeof(DeliveryCursorRow), districts, districts},
    }};
  }

  // What constructing and loading the database allocates, before drawing the
  // order lines (their expected count: O_OL_CNT is uniform in [5, 15]).
  static size_t estimated_bytes(const TpccOptions& opt) {
    const uint64_t orders = uint64_t{opt.warehouses} * kDistrictsPerWarehouse * kOrdersPerDistrict;
    size_t bytes = CustomerNameIndex::bytes_for(opt.warehouses);
    for (const TableShape& s : table_shapes(opt, orders * (kMinOrderLines + kMaxOrderLines) / 2))
      bytes += TableT::bytes_for(s);
    if (opt.immutable_reads)
      bytes += opt.warehouses * (sizeof(int32_t) + sizeof(CustomerTerms) * kDistrictsPerWarehouse * kCustomersPerDistrict);
    return bytes;
  }

  // Fills every table per 4.3.3.1 with `threads` loader threads.
  // REQUIRES: threads == the `loaders` given at construction; called once.
  void load(uint32_t threads) {
    load_date_ = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    constexpr uint32_t kItemChunk = 10000;
    std::vector<std::thread> loaders;
    for (uint32_t t = 0; t < threads; ++t) {
      loaders.emplace_back([this, t, threads] {
        for (uint32_t first = 1 + t * kItemChunk; first <= kItems; first += threads * kItemChunk)
          load_items(first, std::min(first + kItemChunk - 1, kItems));
        for (uint32_t w = 1 + t; w <= opt_.warehouses; w += threads) load_warehouse(w, t);
      });
    }
    for (auto& l : loaders) l.join();
  }

  // A row's payload without concurrency control, or nullptr. For loading,
  // post-run checks and tests: REQUIRES no transaction running.
  template <class T>
  static T* row(TableT& table, uint64_t key) {
    Row<CC>* r = table.lookup(key);
    return r ? reinterpret_cast<T*>(r->data() + kVersionBytes) : nullptr;
  }

  size_t memory_bytes() const {
    size_t bytes = names.memory_bytes() + warehouse_tax_.capacity() * sizeof(int32_t) +
                   customer_terms_.capacity() * sizeof(CustomerTerms);
    for (const TableT* t : {&warehouse, &district, &customer, &history, &new_order, &order, &order_line, &item, &stock,
                            &customer_last_order, &delivery_cursor})
      bytes += t->memory_bytes();
    return bytes;
  }

  uint32_t warehouses() const { return opt_.warehouses; }

 private:
  TableShape shape(TableId id) const { return table_shapes(opt_, plan_.total())[id - 1]; }
  static uint64_t district_slot(uint32_t w, uint32_t d) { return uint64_t{w - 1} * kDistrictsPerWarehouse + (d - 1); }

  template <class T>
  static T* place(TableT& table, uint64_t slot, uint64_t key) {
    return reinterpret_cast<T*>(table.load(slot, key));
  }

  // Name, street 1 and 2, city, state, zip of WAREHOUSE and DISTRICT.
  template <class Row>
  static void random_address(Random& rng, Row& r) {
    random_astring(rng, r.name, 6, 10, sizeof r.name);
    random_astring(rng, r.street_1, 10, 20, sizeof r.street_1);
    random_astring(rng, r.street_2, 10, 20, sizeof r.street_2);
    random_astring(rng, r.city, 10, 20, sizeof r.city);
    random_astring(rng, r.state, 2, 2, sizeof r.state);
    random_zip(rng, r.zip);
  }

  // I_DATA / S_DATA: a-string [26..50], "ORIGINAL" in 10% of the rows.
  static void random_data(Random& rng, char (&data)[50]) {
    const size_t len = random_astring(rng, data, 26, 50, sizeof data);
    if (rng.below(10) == 0) place_original(rng, data, len);
  }

  void load_items(uint32_t first, uint32_t last) {
    Random rng(seed_for(opt_.load_seed ^ kItemStream, first));
    for (uint32_t i = first; i <= last; ++i) {
      auto* it = place<ItemRow>(item, i - 1, item_key(i));
      it->im_id = uniform(rng, 1, 10000);
      random_astring(rng, it->name, 14, 24, sizeof it->name);
      it->price = uniform(rng, 100, 10000);
      random_data(rng, it->data);
    }
  }

  void load_warehouse(uint32_t w, uint32_t loader) {
    Random rng(seed_for(opt_.load_seed, w));
    auto* wh = place<WarehouseRow>(warehouse, w - 1, warehouse_key(w));
    random_address(rng, *wh);
    wh->tax = static_cast<int32_t>(uniform(rng, 0, 2000));
    wh->ytd = kInitialWarehouseYtd;
    if (opt_.immutable_reads) warehouse_tax_[w - 1] = wh->tax;

    for (uint32_t i = 1; i <= kStockPerWarehouse; ++i) {
      auto* s = place<StockRow>(stock, uint64_t{w - 1} * kStockPerWarehouse + (i - 1), stock_key(w, i));
      s->quantity = static_cast<int32_t>(uniform(rng, 10, 100));
      for (auto& dist : s->dist) random_astring(rng, dist, 24, 24, sizeof dist);
      random_data(rng, s->data);
    }

    uint64_t ol_slot = plan_.first_slot[w - 1];
    for (uint32_t d = 1; d <= kDistrictsPerWarehouse; ++d) {
      auto* dr = place<DistrictRow>(district, district_slot(w, d), district_key(w, d));
      random_address(rng, *dr);
      dr->tax = static_cast<int32_t>(uniform(rng, 0, 2000));
      dr->ytd = kInitialDistrictYtd;
      dr->next_o_id = kOrdersPerDistrict + 1;
      place<DeliveryCursorRow>(delivery_cursor, district_slot(w, d), district_key(w, d))->next_o_id =
          kFirstUndeliveredOrder;
      load_customers(rng, w, d, loader);
      load_orders(rng, w, d, ol_slot);
    }
  }

  void load_customers(Random& rng, uint32_t w, uint32_t d, uint32_t loader) {
    uint16_t name_of[kCustomersPerDistrict + 1];
    char first_of[kCustomersPerDistrict + 1][16];
    const uint64_t base = district_slot(w, d) * kCustomersPerDistrict;
    for (uint32_t c = 1; c <= kCustomersPerDistrict; ++c) {
      auto* cr = place<CustomerRow>(customer, base + c - 1, customer_key(w, d, c));
      // 4.3.3.1: the first 1,000 customers take the names 0..999 in order,
      // the others NURand(255, 0, 999) with the load-time constant.
      name_of[c] =
          static_cast<uint16_t>(c <= kLastNames ? c - 1 : nurand(rng, 255, 0, kLastNames - 1, nurand_.c_last_load));
      last_name(name_of[c], cr->last);
      random_astring(rng, cr->first, 8, 16, sizeof cr->first);
      std::memcpy(first_of[c], cr->first, 16);
      std::memcpy(cr->middle, "OE", 2);
      random_astring(rng, cr->street_1, 10, 20, sizeof cr->street_1);
      random_astring(rng, cr->street_2, 10, 20, sizeof cr->street_2);
      random_astring(rng, cr->city, 10, 20, sizeof cr->city);
      random_astring(rng, cr->state, 2, 2, sizeof cr->state);
      random_zip(rng, cr->zip);
      random_nstring(rng, cr->phone, 16, 16, sizeof cr->phone);
      cr->since = load_date_;
      std::memcpy(cr->credit, rng.below(10) == 0 ? "BC" : "GC", 2);
      cr->credit_lim = kInitialCustomerCreditLimit;
      cr->discount = static_cast<int32_t>(uniform(rng, 0, 5000));
      cr->balance = kInitialCustomerBalance;
      cr->ytd_payment = kInitialCustomerYtdPayment;
      cr->payment_cnt = 1;
      cr->delivery_cnt = 0;
      random_astring(rng, cr->data, 300, 500, sizeof cr->data);
      if (opt_.immutable_reads) {
        CustomerTerms& terms = customer_terms_[base + c - 1];
        terms.discount = cr->discount;
        std::memcpy(terms.last, cr->last, sizeof terms.last);
        std::memcpy(terms.credit, cr->credit, sizeof terms.credit);
      }

      auto* h = place<HistoryRow>(history, base + c - 1, loaded_history_key(w, d, c));
      h->c_id = c;
      h->c_d_id = h->d_id = static_cast<uint8_t>(d);
      h->c_w_id = h->w_id = static_cast<uint16_t>(w);
      h->date = load_date_;
      h->amount = kInitialHistoryAmount;
      random_astring(rng, h->data, 12, 24, sizeof h->data);
    }
    names.add_district(w, d, name_of, first_of, loader);
  }

  void load_orders(Random& rng, uint32_t w, uint32_t d, uint64_t& ol_slot) {
    // O_C_ID follows a random permutation of the customer ids (4.3.3.1), so
    // every customer has exactly one loaded order.
    uint16_t customer_of[kOrdersPerDistrict];
    std::iota(customer_of, customer_of + kOrdersPerDistrict, uint16_t{1});
    for (uint32_t i = kOrdersPerDistrict - 1; i > 0; --i) std::swap(customer_of[i], customer_of[rng.below(i + 1)]);

    const uint64_t base = district_slot(w, d) * kOrdersPerDistrict;
    for (uint32_t o = 1; o <= kOrdersPerDistrict; ++o) {
      const bool delivered = o < kFirstUndeliveredOrder;
      const uint32_t c = customer_of[o - 1];
      auto* od = place<OrderRow>(order, base + o - 1, order_key(w, d, o));
      od->c_id = c;
      od->entry_d = load_date_;
      od->carrier_id = delivered ? static_cast<uint8_t>(uniform(rng, 1, 10)) : 0;
      od->ol_cnt = plan_.lines_of(w, d, o);
      od->all_local = 1;
      place<CustomerLastOrderRow>(customer_last_order, district_slot(w, d) * kCustomersPerDistrict + c - 1,
                                  customer_key(w, d, c))
          ->o_id = o;
      for (uint32_t ol = 1; ol <= od->ol_cnt; ++ol) {
        auto* line = place<OrderLineRow>(order_line, ol_slot++, order_line_key(w, d, o, ol));
        line->i_id = uniform(rng, 1, kItems);
        line->supply_w_id = static_cast<uint16_t>(w);
        line->delivery_d = delivered ? load_date_ : 0;
        line->quantity = 5;
        line->amount = delivered ? 0 : static_cast<int64_t>(uniform(rng, 1, 999999));
        random_astring(rng, line->dist_info, 24, 24, sizeof line->dist_info);
      }
      if (!delivered)
        place<NewOrderRow>(new_order, district_slot(w, d) * kNewOrdersPerDistrict + (o - kFirstUndeliveredOrder),
                           order_key(w, d, o))
            ->delivered = 0;
    }
  }

  static constexpr uint64_t kItemStream = 0x6974656d73ull;  // "items"

  TpccOptions opt_;
  NurandConstants nurand_;  // C_LAST's load-time constant
  OrderLinePlan plan_;
  uint64_t load_date_ = 0;
  std::vector<int32_t> warehouse_tax_;          // [w - 1], --immutable_reads only
  std::vector<CustomerTerms> customer_terms_;  // by customer slot, --immutable_reads only

 public:
  TableT warehouse, district, customer, history, new_order, order, order_line, item, stock;
  TableT customer_last_order, delivery_cursor;
  CustomerNameIndex names;
};

}  // namespace ccb::tpcc
