// TPC-C schema: cardinalities, table ids, composite-key packing and the row
// payloads of the nine tables (TPC-C standard specification 5.11, clause 1.3),
// plus the two auxiliary tables this implementation adds (README.md,
// "Deviations").
//
// Representation choices (apply to every row):
//   * Keys are not repeated in the payload: a row's ids are its primary key
//     (packed below), so W_ID, D_ID, C_ID, O_ID, ... columns are implicit.
//   * Money is int64 cents and rates (W_TAX, D_TAX, C_DISCOUNT) are int32
//     ten-thousandths: the spec's numeric(n,2) / numeric(4,4) columns exactly,
//     so the consistency conditions compare integers, never rounded floats.
//   * Dates are uint64 seconds since the Unix epoch; 0 is the spec's null
//     (O_CARRIER_ID 0 and OL_DELIVERY_D 0 likewise mean "not delivered").
//   * Text columns are fixed-width char arrays; a variable-length value
//     (a-string [x..y]) is NUL-padded and is NOT NUL-terminated when full.
//   Row sizes stay close to the spec's (e.g. CUSTOMER 672 B vs 655 B, STOCK
//   304 B vs 306 B), so protocols that copy rows pay what they would pay on
//   the real schema.
//
// Key packing (each table's local key must fit the 56 bits below the table id
// of a GlobalKey, engine/core/txn_desc.h):
//   WAREHOUSE            w                                 w < 2^16
//   DISTRICT             w << 4 | d                        d in 1..10 < 2^4
//   CUSTOMER             district << 12 | c                c in 1..3000 < 2^12
//   ORDER, NEW-ORDER     district << 32 | o                o < 2^32 (grows during a run)
//   ORDER-LINE           order << 4 | ol                   ol in 1..15 < 2^4: 16+4+32+4 = 56 bits
//   ITEM                 i                                 i in 1..100000 (100001 = the unused id)
//   STOCK                w << 17 | i                       i < 2^17
//   HISTORY              origin << 40 | sequence           origin 0: loaded row, sequence = its
//                                                          customer key; otherwise the inserting
//                                                          attempt's Txn::id() ((thread+1) << 40 | n)
//   CUSTOMER_LAST_ORDER  = CUSTOMER key
//   DELIVERY_CURSOR      = DISTRICT key
//   last-name index      district << 10 | name number      name number in 0..999 (see tpcc_random.h)
//
// Thread safety: plain types and constexpr functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ccb::tpcc {

// ---- Cardinalities (clauses 1.2.1 and 4.3.3.1) -------------------------------
inline constexpr uint32_t kItems = 100000;
inline constexpr uint32_t kUnusedItemId = kItems + 1;  // NewOrder's 1% rollback (2.4.1.4)
inline constexpr uint32_t kStockPerWarehouse = kItems;
inline constexpr uint32_t kDistrictsPerWarehouse = 10;
inline constexpr uint32_t kCustomersPerDistrict = 3000;
inline constexpr uint32_t kOrdersPerDistrict = 3000;      // loaded; more are inserted
inline constexpr uint32_t kFirstUndeliveredOrder = 2101;  // orders 2101..3000 sit in NEW-ORDER
inline constexpr uint32_t kNewOrdersPerDistrict = kOrdersPerDistrict - kFirstUndeliveredOrder + 1;  // 900
inline constexpr uint32_t kMinOrderLines = 5, kMaxOrderLines = 15;
inline constexpr uint32_t kLastNames = 1000;  // C_LAST from the numbers 0..999 (4.3.2.3)
inline constexpr uint32_t kMaxWarehouses = (1u << 16) - 1;
inline constexpr uint32_t kStockLevelOrders = 20;  // StockLevel looks at the last 20 orders (2.8.2.2)

// Initial balances (4.3.3.1), in cents.
inline constexpr int64_t kInitialWarehouseYtd = 30000000;  // 300,000.00
inline constexpr int64_t kInitialDistrictYtd = 3000000;    // 30,000.00
inline constexpr int64_t kInitialCustomerBalance = -1000;  // -10.00
inline constexpr int64_t kInitialCustomerYtdPayment = 1000;
inline constexpr int64_t kInitialCustomerCreditLimit = 5000000;
inline constexpr int64_t kInitialHistoryAmount = 1000;

// ---- Table ids: global keys of the predicted access sets ----------------------
// The nine spec tables use 1..9; the auxiliary tables follow.
enum TableId : uint32_t {
  kWarehouseTable = 1,
  kDistrictTable = 2,
  kCustomerTable = 3,
  kHistoryTable = 4,
  kNewOrderTable = 5,
  kOrderTable = 6,
  kOrderLineTable = 7,
  kItemTable = 8,
  kStockTable = 9,
  kCustomerLastOrderTable = 10,
  kDeliveryCursorTable = 11,
};

// ---- Key packing (see the table above) ---------------------------------------
constexpr uint64_t warehouse_key(uint32_t w) { return w; }
constexpr uint64_t district_key(uint32_t w, uint32_t d) { return uint64_t{w} << 4 | d; }
constexpr uint64_t customer_key(uint32_t w, uint32_t d, uint32_t c) { return district_key(w, d) << 12 | c; }
constexpr uint64_t order_key(uint32_t w, uint32_t d, uint32_t o) { return district_key(w, d) << 32 | o; }
constexpr uint64_t order_line_key(uint32_t w, uint32_t d, uint32_t o, uint32_t ol) {
  return order_key(w, d, o) << 4 | ol;
}
constexpr uint64_t item_key(uint32_t i) { return i; }
constexpr uint64_t stock_key(uint32_t w, uint32_t i) { return uint64_t{w} << 17 | i; }
constexpr uint64_t loaded_history_key(uint32_t w, uint32_t d, uint32_t c) { return customer_key(w, d, c); }
constexpr uint64_t customer_name_key(uint32_t w, uint32_t d, uint32_t name) { return district_key(w, d) << 10 | name; }

static_assert(order_line_key(kMaxWarehouses, kDistrictsPerWarehouse, 0xFFFFFFFFu, kMaxOrderLines) <
              (uint64_t{1} << 56));
static_assert(customer_key(kMaxWarehouses, kDistrictsPerWarehouse, kCustomersPerDistrict) < (uint64_t{1} << 40),
              "loaded HISTORY keys must stay below the inserted ones (origin >= 1 << 40)");
static_assert(kUnusedItemId < (1u << 17));

// The warehouse a row belongs to, from its table id and packed key (the
// inverse of the packing above), or 0 for the tables that have none (ITEM,
// HISTORY). Horticulture's partitioning attribute (partitioners/horticulture).
constexpr uint32_t warehouse_of_key(uint32_t table, uint64_t key) {
  switch (table) {
    case kWarehouseTable: return static_cast<uint32_t>(key);
    case kDistrictTable:
    case kDeliveryCursorTable: return static_cast<uint32_t>(key >> 4);
    case kCustomerTable:
    case kCustomerLastOrderTable: return static_cast<uint32_t>(key >> 16);
    case kOrderTable:
    case kNewOrderTable: return static_cast<uint32_t>(key >> 36);
    case kOrderLineTable: return static_cast<uint32_t>(key >> 40);
    case kStockTable: return static_cast<uint32_t>(key >> 17);
    default: return 0;
  }
}
static_assert(warehouse_of_key(kWarehouseTable, warehouse_key(kMaxWarehouses)) == kMaxWarehouses);
static_assert(warehouse_of_key(kDistrictTable, district_key(7, kDistrictsPerWarehouse)) == 7);
static_assert(warehouse_of_key(kDeliveryCursorTable, district_key(kMaxWarehouses, 1)) == kMaxWarehouses);
static_assert(warehouse_of_key(kCustomerTable, customer_key(kMaxWarehouses, 10, kCustomersPerDistrict)) ==
              kMaxWarehouses);
static_assert(warehouse_of_key(kCustomerLastOrderTable, customer_key(3, 1, 1)) == 3);
static_assert(warehouse_of_key(kOrderTable, order_key(kMaxWarehouses, 10, 0xFFFFFFFFu)) == kMaxWarehouses);
static_assert(warehouse_of_key(kNewOrderTable, order_key(2, 1, 1)) == 2);
static_assert(warehouse_of_key(kOrderLineTable, order_line_key(kMaxWarehouses, 10, 0xFFFFFFFFu, 15)) ==
              kMaxWarehouses);
static_assert(warehouse_of_key(kStockTable, stock_key(kMaxWarehouses, kUnusedItemId)) == kMaxWarehouses);
static_assert(warehouse_of_key(kItemTable, item_key(kItems)) == 0);

// ---- Row payloads ---------------------------------------------------------------
struct WarehouseRow {  // spec 89 bytes
  int64_t ytd;         // W_YTD
  int32_t tax;         // W_TAX
  char name[10];
  char street_1[20];
  char street_2[20];
  char city[20];
  char state[2];
  char zip[9];
};

struct DistrictRow {   // spec 95 bytes
  int64_t ytd;         // D_YTD
  int32_t tax;         // D_TAX
  uint32_t next_o_id;  // D_NEXT_O_ID
  char name[10];
  char street_1[20];
  char street_2[20];
  char city[20];
  char state[2];
  char zip[9];
};

struct CustomerRow {    // spec 655 bytes
  int64_t balance;      // C_BALANCE
  int64_t ytd_payment;  // C_YTD_PAYMENT
  int64_t credit_lim;   // C_CREDIT_LIM
  uint64_t since;       // C_SINCE
  uint32_t payment_cnt;
  uint32_t delivery_cnt;
  int32_t discount;  // C_DISCOUNT
  char first[16];
  char middle[2];
  char last[16];
  char street_1[20];
  char street_2[20];
  char city[20];
  char state[2];
  char zip[9];
  char phone[16];
  char credit[2];  // "GC" or "BC"
  char data[500];
};

struct HistoryRow {  // spec 46 bytes
  uint64_t date;
  int64_t amount;
  uint32_t c_id;
  uint16_t c_w_id;
  uint16_t w_id;
  uint8_t c_d_id;
  uint8_t d_id;
  char data[24];
};

// A NEW-ORDER row is "deleted" by Delivery by setting `delivered` inside the
// transaction (the engine has no physical delete; README "Deviations").
struct NewOrderRow {  // spec 8 bytes
  uint8_t delivered;
};

struct OrderRow {  // spec 24 bytes
  uint64_t entry_d;
  uint32_t c_id;
  uint8_t carrier_id;  // 0 = null (undelivered)
  uint8_t ol_cnt;
  uint8_t all_local;
};

struct OrderLineRow {   // spec 54 bytes
  uint64_t delivery_d;  // 0 = null (undelivered)
  int64_t amount;       // OL_AMOUNT
  uint32_t i_id;
  uint16_t supply_w_id;
  uint8_t quantity;
  char dist_info[24];
};

struct ItemRow {  // spec 82 bytes
  int64_t price;  // I_PRICE
  uint32_t im_id;
  char name[24];
  char data[50];
};

struct StockRow {  // spec 306 bytes
  int32_t quantity;
  uint32_t ytd;
  uint16_t order_cnt;
  uint16_t remote_cnt;
  char dist[kDistrictsPerWarehouse][24];  // S_DIST_01 .. S_DIST_10
  char data[50];
};

// Auxiliary: the O_ID of a customer's most recent order, written by NewOrder
// and read by OrderStatus (README "Deviations").
struct CustomerLastOrderRow {
  uint32_t o_id;
};

// Auxiliary: the oldest undelivered O_ID of a district (= min live NO_O_ID),
// advanced by Delivery (README "Deviations").
struct DeliveryCursorRow {
  uint32_t next_o_id;
};

// The text of a fixed-width column, up to its first NUL.
template <size_t N>
std::string_view text(const char (&field)[N]) {
  const void* nul = std::memchr(field, 0, N);
  return {field, nul ? static_cast<size_t>(static_cast<const char*>(nul) - field) : N};
}

}  // namespace ccb::tpcc
