#include "workloads/tpcc/tpcc_requests.h"

#include <chrono>

namespace ccb {

using namespace tpcc;

namespace {

// Dates of a run's requests: the wall-clock second when the request was made.
uint64_t now_seconds() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

bool percent(Random& rng, uint32_t pct) { return rng.below(100) < pct; }

}  // namespace

void TpccGenerator::generate(Random& rng, uint32_t thread, TpccRequest& r) const {
  const uint32_t w = uniform_home_ ? uniform(rng, 1, opt_.warehouses) : thread % opt_.warehouses + 1;
  uint32_t roll = static_cast<uint32_t>(rng.below(100));
  uint32_t type = 0;
  while (roll >= opt_.mix_pct[type]) roll -= opt_.mix_pct[type++];
  switch (type) {
    case kNewOrder:
      return new_order(rng, w, r);
    case kPayment:
      return payment(rng, w, r);
    case kOrderStatus:
      return order_status(rng, w, r);
    case kDelivery:
      return delivery(rng, w, r);
    default:
      return stock_level(rng, w, r);
  }
}

uint32_t TpccGenerator::other_warehouse(Random& rng, uint32_t w) const {
  const uint32_t other = uniform(rng, 1, opt_.warehouses - 1);
  return other >= w ? other + 1 : other;
}

void TpccGenerator::choose_customer(Random& rng, TpccRequest& r) const {
  r.by_last_name = percent(rng, opt_.by_last_name_pct);
  if (r.by_last_name)
    r.c_last = static_cast<uint16_t>(nurand(rng, 255, 0, kLastNames - 1, c_.c_last_run));
  else
    r.c_id = nurand(rng, 1023, 1, kCustomersPerDistrict, c_.c_id);
}

// 2.4.1: D_ID uniform, C_ID NURand(1023), 5..15 lines, items NURand(8191)
// (distinct within an order, as DBx1000 and Silo do, so no STOCK row is
// updated twice), quantity 1..10, 1% rollback via an unused last item.
// Remote lines: spec mode, each line with 1% (when there is another
// warehouse); --cross_pct mode, c% of the orders get exactly one remote line,
// the typical shape of a remote order in spec mode.
void TpccGenerator::new_order(Random& rng, uint32_t w, TpccRequest& r) const {
  r = TpccRequest{};
  r.type = kNewOrder;
  r.w_id = r.c_w_id = static_cast<uint16_t>(w);
  r.d_id = r.c_d_id = static_cast<uint8_t>(uniform(rng, 1, kDistrictsPerWarehouse));
  r.c_id = nurand(rng, 1023, 1, kCustomersPerDistrict, c_.c_id);
  r.ol_cnt = static_cast<uint8_t>(uniform(rng, kMinOrderLines, kMaxOrderLines));
  r.date = now_seconds();
  const int remote_line = !opt_.standard_remote() && percent(rng, static_cast<uint32_t>(opt_.cross_pct))
                              ? static_cast<int>(rng.below(r.ol_cnt))
                              : -1;
  for (uint32_t i = 0; i < r.ol_cnt; ++i) {
    TpccOrderItem& item = r.items[i];
    bool distinct;
    do {
      item.i_id = nurand(rng, 8191, 1, kItems, c_.ol_i_id);
      distinct = true;
      for (uint32_t j = 0; j < i; ++j) distinct &= r.items[j].i_id != item.i_id;
    } while (!distinct);
    const bool remote =
        opt_.standard_remote() ? opt_.warehouses > 1 && percent(rng, 1) : static_cast<int>(i) == remote_line;
    item.supply_w_id = static_cast<uint16_t>(remote ? other_warehouse(rng, w) : w);
    item.quantity = static_cast<uint8_t>(uniform(rng, 1, 10));
  }
  if (percent(rng, 1)) r.items[r.ol_cnt - 1].i_id = kUnusedItemId;
}

// 2.5.1: D_ID uniform; the customer's warehouse is the home one with 85%
// (spec mode, when there is another warehouse) or 100 - c% (cross mode), else
// another warehouse with a uniform district; H_AMOUNT uniform 1.00..5,000.00.
void TpccGenerator::payment(Random& rng, uint32_t w, TpccRequest& r) const {
  r = TpccRequest{};
  r.type = kPayment;
  r.w_id = static_cast<uint16_t>(w);
  r.d_id = static_cast<uint8_t>(uniform(rng, 1, kDistrictsPerWarehouse));
  const bool remote = opt_.standard_remote() ? opt_.warehouses > 1 && !percent(rng, 85)
                                             : percent(rng, static_cast<uint32_t>(opt_.cross_pct));
  if (remote) {
    r.c_w_id = static_cast<uint16_t>(other_warehouse(rng, w));
    r.c_d_id = static_cast<uint8_t>(uniform(rng, 1, kDistrictsPerWarehouse));
  } else {
    r.c_w_id = r.w_id;
    r.c_d_id = r.d_id;
  }
  choose_customer(rng, r);
  r.h_amount = static_cast<int64_t>(uniform(rng, 100, 500000));
  r.date = now_seconds();
}

// 2.6.1: D_ID uniform, customer by last name (60%) or id.
void TpccGenerator::order_status(Random& rng, uint32_t w, TpccRequest& r) const {
  r = TpccRequest{};
  r.type = kOrderStatus;
  r.w_id = r.c_w_id = static_cast<uint16_t>(w);
  r.d_id = r.c_d_id = static_cast<uint8_t>(uniform(rng, 1, kDistrictsPerWarehouse));
  choose_customer(rng, r);
}

// 2.7.1: O_CARRIER_ID uniform 1..10, OL_DELIVERY_D = now.
void TpccGenerator::delivery(Random& rng, uint32_t w, TpccRequest& r) const {
  r = TpccRequest{};
  r.type = kDelivery;
  r.w_id = static_cast<uint16_t>(w);
  r.carrier_id = static_cast<uint8_t>(uniform(rng, 1, 10));
  r.date = now_seconds();
}

// 2.8.1: threshold uniform 10..20.
void TpccGenerator::stock_level(Random& rng, uint32_t w, TpccRequest& r) const {
  r = TpccRequest{};
  r.type = kStockLevel;
  r.w_id = static_cast<uint16_t>(w);
  r.d_id = static_cast<uint8_t>(uniform(rng, 1, kDistrictsPerWarehouse));
  r.threshold = static_cast<uint8_t>(uniform(rng, 10, 20));
}

TxnDesc TpccGenerator::describe(const TpccRequest& r) {
  TxnDesc d;
  d.type = r.type;
  auto read = [&](uint32_t table, uint64_t key) { d.read_set.push_back(make_global_key(table, key)); };
  auto write = [&](uint32_t table, uint64_t key) { d.write_set.push_back(make_global_key(table, key)); };
  switch (r.type) {
    case kNewOrder:
      read(kWarehouseTable, warehouse_key(r.w_id));
      write(kDistrictTable, district_key(r.w_id, r.d_id));
      read(kCustomerTable, customer_key(r.w_id, r.d_id, r.c_id));
      write(kCustomerLastOrderTable, customer_key(r.w_id, r.d_id, r.c_id));
      for (uint32_t i = 0; i < r.ol_cnt; ++i) {
        if (r.items[i].i_id == kUnusedItemId) continue;
        read(kItemTable, item_key(r.items[i].i_id));
        write(kStockTable, stock_key(r.items[i].supply_w_id, r.items[i].i_id));
      }
      break;
    case kPayment:
      write(kWarehouseTable, warehouse_key(r.w_id));
      write(kDistrictTable, district_key(r.w_id, r.d_id));
      if (!r.by_last_name) write(kCustomerTable, customer_key(r.c_w_id, r.c_d_id, r.c_id));
      else if (r.predicted_c_id != 0) write(kCustomerTable, customer_key(r.c_w_id, r.c_d_id, r.predicted_c_id));  // OLLP
      else d.partition_keys.push_back(make_global_key(kCustomerTable, customer_key(r.c_w_id, r.c_d_id, 0)));
      break;
    case kOrderStatus: {
      const uint32_t c = r.by_last_name ? r.predicted_c_id : r.c_id;
      if (c == 0) {  // by last name, no prediction: only its district is known
        d.partition_keys.push_back(make_global_key(kCustomerTable, customer_key(r.w_id, r.d_id, 0)));
        break;
      }
      read(kCustomerTable, customer_key(r.w_id, r.d_id, c));
      read(kCustomerLastOrderTable, customer_key(r.w_id, r.d_id, c));
      if (r.predicted_o_id == 0) break;
      read(kOrderTable, order_key(r.w_id, r.d_id, r.predicted_o_id));
      for (uint32_t ol = 1; ol <= r.predicted_ol_cnt; ++ol)
        read(kOrderLineTable, order_line_key(r.w_id, r.d_id, r.predicted_o_id, ol));
      if (r.predicted_cursor_read) read(kDeliveryCursorTable, district_key(r.w_id, r.d_id));
      if (r.predicted_new_order) read(kDistrictTable, district_key(r.w_id, r.d_id));
      break;
    }
    case kDelivery:
      for (uint32_t dist = 1; dist <= kDistrictsPerWarehouse; ++dist) {
        write(kDeliveryCursorTable, district_key(r.w_id, dist));
        if (r.delivery_open >> (dist - 1) & 1) read(kDistrictTable, district_key(r.w_id, dist));
      }
      break;
    case kStockLevel:
      if (r.predicted_o_id == 0) read(kDistrictTable, district_key(r.w_id, r.d_id));
      else if (r.predicted_cursor_read) read(kDeliveryCursorTable, district_key(r.w_id, r.d_id));
      break;
  }
  return d;
}

}  // namespace ccb
