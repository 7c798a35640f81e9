// Helpers shared by the TPC-C tests: small options, running one request as
// one transaction, reading rows directly, and the keys a committed
// transaction touched (from the history recorder).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/verify/recorder.h"
#include "tests/support/invariants.h"
#include "workloads/tpcc/tpcc.h"

namespace ccb::tpcc::testing {

// Index headroom for a few thousand inserted orders, not the default's 500k.
inline TpccOptions small_options(uint32_t warehouses) {
  TpccOptions o;
  o.warehouses = warehouses;
  o.expected_new_orders = 20000;
  return o;
}

// A row's payload, read directly (no transaction may be running).
template <class T, class CC>
T* row(Table<CC>& table, uint64_t key) {
  return TpccDatabase<CC>::template row<T>(table, key);
}

// A NewOrder of customer c of warehouse w, district d, with these order lines.
inline TpccRequest new_order_request(uint32_t w, uint32_t d, uint32_t c, const std::vector<TpccOrderItem>& items) {
  TpccRequest r;
  r.type = kNewOrder;
  r.w_id = r.c_w_id = static_cast<uint16_t>(w);
  r.d_id = r.c_d_id = static_cast<uint8_t>(d);
  r.c_id = c;
  r.ol_cnt = static_cast<uint8_t>(items.size());
  std::copy(items.begin(), items.end(), r.items);
  r.date = 1700000000;
  return r;
}

// A Payment of `cents` to warehouse w, district d by a customer of (c_w, c_d);
// the customer (c_id or by last name) is the caller's to set.
inline TpccRequest payment_request(uint32_t w, uint32_t d, uint32_t c_w, uint32_t c_d, int64_t cents) {
  TpccRequest r;
  r.type = kPayment;
  r.w_id = static_cast<uint16_t>(w);
  r.d_id = static_cast<uint8_t>(d);
  r.c_w_id = static_cast<uint16_t>(c_w);
  r.c_d_id = static_cast<uint8_t>(c_d);
  r.h_amount = cents;
  r.date = 1700000001;
  return r;
}

// One attempt of `r`: begin, run, then commit or abort. Returns the outcome.
template <class CC, class W>
RC run_once(W& workload, Txn<CC>& txn, const TpccRequest& r) {
  txn.begin();
  const RC rc = workload.run(txn, r);
  if (rc != RC::kOk) {
    txn.abort();
    return rc;
  }
  return txn.commit();
}

// Keys a committed transaction touched, split by kind.
struct Footprint {
  std::set<GlobalKey> read;     // read, not written
  std::set<GlobalKey> written;  // updated or inserted
};

// The footprint of the last transaction recorded in `log`; empties the log.
inline Footprint last_footprint(verify::HistoryLog& log) {
  std::vector<verify::HistoryLog> logs(1);
  std::swap(logs[0], log);
  const verify::History h = verify::HistoryLog::merge(logs);
  Footprint f;
  if (h.txns.empty()) return f;
  const verify::TxnRecord& t = h.txns.back();
  for (uint64_t i = t.first_access; i < t.first_access + t.n_accesses; ++i) {
    const verify::AccessRecord& a = h.accesses[i];
    (a.wrote() ? f.written : f.read).insert(a.key);
  }
  return f;
}

using ccb::testing::expect_all_hold;

inline const InvariantResult& find_result(const std::vector<InvariantResult>& results, const std::string& name) {
  for (const auto& r : results)
    if (r.name == name) return r;
  ADD_FAILURE() << "no invariant named " << name;
  static const InvariantResult missing{};
  return missing;
}

}  // namespace ccb::tpcc::testing
