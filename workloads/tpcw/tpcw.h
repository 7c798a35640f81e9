// The TPC-W-like workload of the BCC paper (Yuan et al., PVLDB 9(6) 2016,
// Sec. 5.2): only TPC-W's two update-intensive interactions, modified so that
// one hot item creates contention.
//   DoCart(session, items)   "adds a set of random items to the shopping cart
//                            and displays the cart": reads each item (price),
//                            adds it to the session's private cart and
//                            recomputes the cart subtotal. With probability
//                            --tpcw_hot_prob one of the items is the hot item.
//   OrderProcess(lines)      "processes a set of random orders and updates the
//                            database (e.g., updating the stock numbers of the
//                            ordered items)": for each (item, qty) line,
//                            decrements the stock with TPC-W's Buy Confirm
//                            restock rule (stock < 10 after the order: +21).
//                            The hot item is always one of the lines.
// "we let one database thread execute the OrderProcess transactions, while all
// other threads execute the DoCart transaction": generate() gives workers
// 0..order_threads-1 OrderProcess and the others DoCart, so at one thread only
// OrderProcess runs, as in the paper. Read-only TPC-W interactions are left
// out, as in the paper. Other items are uniform ("the rest tuple accesses in
// both DoCart and OrderProcess are random"); the hot item sits at a random
// position in the transaction [INF].
//
// Schema:
//   item  (table 30, key = item id, item 0 is hot): stock, sold, restocks, price
//   cart  (table 31, key = session = DoCart worker id, kSessions rows): adds,
//         subtotal, lines, evict, line[kCartLines] {item, qty, price}
// Deviation: a cart line stores the item price seen when it was added, and
// the display sums those, so a DoCart's access set is fixed by its request
// (describe() is exact); TPC-W's display re-reads every item of the cart.
// The cart is bounded: a full cart replaces its lines round-robin.
//
// Invariants (what lost updates would break):
//   tpcw_stock_conservation  for every item, stock = initial - sold + 21 * restocks
//   tpcw_units_sold          sum of item.sold = units ordered by committed OrderProcess
//   tpcw_cart_adds           sum of cart.adds = items added by committed DoCart
// With several OrderProcess workers (--tpcw_order_threads > 1) the item rows
// see write-write contention and tpcw_units_sold catches a lost update.
//
// The requests and predicted access sets come from TpcwGenerator
// (tpcw_generator.h).
//
// Thread safety: run() from any number of worker threads after load();
// generate()/describe() are const and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/core/random.h"
#include "engine/core/json.h"
#include "workloads/common/table_util.h"
#include "workloads/tpcw/tpcw_generator.h"
#include "engine/workload.h"

namespace ccb {

struct TpcwItem {
  int64_t stock, sold, restocks, price;
};
struct TpcwCartLine {
  uint32_t item, qty;
  int64_t price;
};
struct TpcwCart {
  static constexpr uint32_t kLines = 16;
  uint64_t adds;  // items ever added (the invariant's counter)
  int64_t subtotal;
  uint32_t lines, evict;
  TpcwCartLine line[kLines];
};

template <class CC>
class TpcwWorkload {
 public:
  static constexpr const char* kName = "tpcw";
  static constexpr uint32_t kItemId = TpcwGenerator::kItemId, kCartId = TpcwGenerator::kCartId;
  static constexpr uint32_t kHotItem = TpcwGenerator::kHotItem;
  static constexpr uint32_t kSessions = TpcwGenerator::kSessions;
  static constexpr int64_t kRestockBelow = 10, kRestockUnits = 21;  // TPC-W Buy Confirm
  using Request = TpcwRequest;
  struct ThreadState {
    uint64_t units_ordered = 0;
    uint64_t cart_adds = 0;
  };

  explicit TpcwWorkload(const TpcwOptions& o) : opt_(o), generator_(o) {}

  std::vector<std::string> txn_types() const { return generator_.txn_types(); }

  MemoryEstimate memory_estimate() const {
    return {Table<CC>::bytes_for(sizeof(TpcwItem), opt_.items, opt_.items) +
                Table<CC>::bytes_for(sizeof(TpcwCart), kSessions, kSessions),
            "tpcw_items"};
  }

  void load(int threads) {
    items_ = std::make_unique<Table<CC>>(kItemId, "item", sizeof(TpcwItem), opt_.items, opt_.items);
    carts_ = std::make_unique<Table<CC>>(kCartId, "cart", sizeof(TpcwCart), kSessions, kSessions);
    parallel_for(threads, opt_.items, [this](uint64_t i) {
      auto* it = reinterpret_cast<TpcwItem*>(items_->load(i, i));
      it->stock = initial_stock(i);
      it->price = 100 + static_cast<int64_t>(mix(i, 1) % 999900);  // TPC-W I_COST in [1.00, 9999.99], in cents
    });
    for (uint32_t s = 0; s < kSessions; ++s) carts_->load(s, s);  // empty carts (zeroed rows)
  }

  void generate(Random& rng, uint32_t thread, Request& r) const { generator_.generate(rng, thread, r); }

  template <class TxnT>
  RC run(TxnT& txn, const Request& r) {
    return r.txn() == TpcwTxn::kOrderProcess ? order_process(txn, r) : do_cart(txn, r);
  }

  TxnDesc describe(const Request& r) const { return generator_.describe(r); }

  void on_commit(ThreadState& s, const Request& r) const {
    if (r.txn() == TpcwTxn::kOrderProcess) s.units_ordered += r.units();
    else s.cart_adds += r.n;
  }

  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& states) {
    uint64_t bad = 0;
    for (uint64_t i = 0; i < opt_.items; ++i) {
      const auto* it = reinterpret_cast<const TpcwItem*>(slot_payload(*items_, i));
      bad += it->stock != initial_stock(i) - it->sold + kRestockUnits * it->restocks;
    }
    return {
        equality_invariant<uint64_t>("tpcw_stock_conservation", "items where stock != initial - sold + 21 * restocks",
                                     bad, "expected", 0),
        equality_invariant("tpcw_units_sold", "sum of item.sold", sum_field<int64_t>(*items_, offsetof(TpcwItem, sold)),
                           "units ordered by committed OrderProcess",
                           static_cast<int64_t>(sum_states(states, &ThreadState::units_ordered))),
        equality_invariant("tpcw_cart_adds", "sum of cart.adds", sum_field<uint64_t>(*carts_, offsetof(TpcwCart, adds)),
                           "items added by committed DoCart", sum_states(states, &ThreadState::cart_adds)),
    };
  }

  // For protocols that lock the predicted access set (engine/txn/protocol.h).
  Table<CC>* table_by_id(uint32_t id) const {
    return id == kItemId ? items_.get() : id == kCartId ? carts_.get() : nullptr;
  }

  void options_json(JsonWriter& w) const { opt_.to_json(w); }
  size_t memory_bytes() const { return items_ ? items_->memory_bytes() + carts_->memory_bytes() : 0; }

  // For tests and tools.
  Table<CC>& items() { return *items_; }
  Table<CC>& carts() { return *carts_; }
  const TpcwGenerator& generator() const { return generator_; }
  // TPC-W: I_STOCK uniform in [10, 30].
  static int64_t initial_stock(uint64_t item) { return 10 + static_cast<int64_t>(mix(item, 0) % 21); }

 private:
  static uint64_t mix(uint64_t item, uint64_t field) {
    uint64_t s = item * 2 + field;
    return splitmix64(s);
  }

  template <class TxnT>
  RC do_cart(TxnT& txn, const Request& r) {
    int64_t price[TpcwOptions::kMaxLines];
    for (uint32_t i = 0; i < r.n; ++i) {
      const TpcwItem* it = txn.template read_as<TpcwItem>(*items_, r.item[i]);
      if (it == nullptr) return txn.failure();
      price[i] = it->price;
    }
    TpcwCart* cart = txn.template update_as<TpcwCart>(*carts_, r.session);
    if (cart == nullptr) return txn.failure();
    for (uint32_t i = 0; i < r.n; ++i) add_line(*cart, r.item[i], price[i]);
    cart->adds += r.n;
    int64_t subtotal = 0;  // "displays the cart"
    for (uint32_t l = 0; l < cart->lines; ++l) subtotal += cart->line[l].qty * cart->line[l].price;
    cart->subtotal = subtotal;
    return RC::kOk;
  }

  static void add_line(TpcwCart& cart, uint32_t item, int64_t price) {
    for (uint32_t l = 0; l < cart.lines; ++l) {
      if (cart.line[l].item == item) {
        ++cart.line[l].qty;
        cart.line[l].price = price;
        return;
      }
    }
    uint32_t slot = cart.lines;
    if (slot < TpcwCart::kLines) {
      ++cart.lines;
    } else {  // full: replace the oldest line
      slot = cart.evict;
      cart.evict = (cart.evict + 1) % TpcwCart::kLines;
    }
    cart.line[slot] = TpcwCartLine{item, 1, price};
  }

  template <class TxnT>
  RC order_process(TxnT& txn, const Request& r) {
    for (uint32_t i = 0; i < r.n; ++i) {
      TpcwItem* it = txn.template update_as<TpcwItem>(*items_, r.item[i]);
      if (it == nullptr) return txn.failure();
      const int64_t q = r.qty[i];
      if (it->stock - q < kRestockBelow) {
        it->stock += kRestockUnits;
        ++it->restocks;
      }
      it->stock -= q;
      it->sold += q;
    }
    return RC::kOk;
  }

  TpcwOptions opt_;
  TpcwGenerator generator_;
  std::unique_ptr<Table<CC>> items_, carts_;
};

}  // namespace ccb
