// The TPC-W-like workload's request generator, without tables or protocol
// (the tables and procedures are TpcwWorkload<CC>, tpcw.h): workers
// 0..order_threads-1 make OrderProcess requests (the hot item always among
// their lines, quantities in [1, kMaxQty]), the others DoCart requests on
// their own cart (with probability --tpcw_hot_prob one item is the hot one);
// the other items are distinct and uniform, never the hot one.
//
// Distinct items are drawn again on a repeat: --tpcw_items >= lines + 1
// (tpcw_options.cpp), so the worst case, every one of 32 items, is a coupon
// collector's 32 x H(32) ~ 130 draws. No set-up beyond the constructor.
//
// Thread safety: generate() and describe() are const and may run
// concurrently, each caller with its own Random.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "workloads/tpcw/tpcw_options.h"

namespace ccb {

enum class TpcwTxn : uint32_t { kDoCart, kOrderProcess };

struct TpcwRequest {
  uint32_t type = 0;     // TpcwTxn
  uint32_t session = 0;  // DoCart: the cart (the generating worker's id)
  uint32_t n = 0;        // lines
  uint32_t item[TpcwOptions::kMaxLines];
  uint8_t qty[TpcwOptions::kMaxLines];  // OrderProcess: units per line
  TpcwTxn txn() const { return static_cast<TpcwTxn>(type); }
  uint64_t units() const {
    uint64_t u = 0;
    for (uint32_t i = 0; i < n; ++i) u += qty[i];
    return u;
  }
};

class TpcwGenerator {
 public:
  using Request = TpcwRequest;
  static constexpr uint32_t kItemId = 30, kCartId = 31;
  static constexpr uint32_t kHotItem = 0;
  static constexpr uint32_t kSessions = 1024;  // one cart per possible worker (--threads <= 1024)
  static constexpr uint32_t kMaxQty = 5;       // [INF]

  explicit TpcwGenerator(const TpcwOptions& o) : opt_(o) {}
  void prepare() {}  // nothing to build

  std::vector<std::string> txn_types() const { return {"DoCart", "OrderProcess"}; }
  void generate(Random& rng, uint32_t thread, Request& r) const;
  TxnDesc describe(const Request& r) const;
  const TpcwOptions& options() const { return opt_; }

 private:
  TpcwOptions opt_;
};

}  // namespace ccb
