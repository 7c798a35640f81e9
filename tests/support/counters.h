// A table of 8-byte counters and the operations the protocol tests apply to
// it inside a transaction: read a counter, increment one (read-modify-write),
// predict a transaction's access set as a workload's describe() would.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "engine/core/table.h"
#include "engine/core/txn_desc.h"

namespace ccb::test_support {

// A table of `rows` 8-byte counters (key k in slot k), all 0.
template <class CC>
struct Counters {
  explicit Counters(uint64_t rows, uint32_t id = 0) : table(id, "t" + std::to_string(id), 8, rows, rows) {
    for (uint64_t k = 0; k < rows; ++k) table.load(k, k);
  }
  uint64_t value(uint64_t key) const {
    uint64_t c;
    std::memcpy(&c, table.lookup(key)->data() + kVersionBytes, 8);
    return c;
  }
  Table<CC> table;
};

// Increments counter `key` in `t`; false if the protocol refused.
template <class TxnT, class TableT>
bool increment(TxnT& t, TableT& table, uint64_t key) {
  uint8_t* p = t.update(table, key);
  if (p == nullptr) return false;
  uint64_t c;
  std::memcpy(&c, p, 8);
  ++c;
  std::memcpy(p, &c, 8);
  return true;
}
template <class TxnT, class TableT>
bool read(TxnT& t, TableT& table, uint64_t key, uint64_t* value = nullptr) {
  const uint8_t* p = t.read(table, key);
  if (p != nullptr && value != nullptr) std::memcpy(value, p, 8);
  return p != nullptr;
}

// The predicted access set of a transaction on table `table` (reads and
// writes, sorted, as the executor hands it to acquire_all()).
inline TxnDesc predict(std::initializer_list<uint64_t> reads, std::initializer_list<uint64_t> writes,
                       uint32_t table = 0) {
  TxnDesc d;
  for (uint64_t k : reads) d.read_set.push_back(make_global_key(table, k));
  for (uint64_t k : writes) d.write_set.push_back(make_global_key(table, k));
  std::sort(d.read_set.begin(), d.read_set.end());
  std::sort(d.write_set.begin(), d.write_set.end());
  return d;
}

}  // namespace ccb::test_support
