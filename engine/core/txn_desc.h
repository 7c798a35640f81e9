// Transaction description: what a front-end can know about a transaction
// before it runs (README.md, design property 3). Every front-end (Strife, Schism,
// Horticulture, TsPAR, TsDEFER, validator reordering) consumes this one type.
//
// Keys are "global keys": the table id in the top 8 bits, the table's own
// 56-bit primary key below (see make_global_key). Two descriptions conflict
// when one's write set intersects the other's read or write set.
//
// Thread safety: plain value type; no internal synchronization.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace ccb {

using GlobalKey = uint64_t;

inline constexpr int kTableIdBits = 8;
inline constexpr int kLocalKeyBits = 64 - kTableIdBits;
inline constexpr uint64_t kLocalKeyMask = (uint64_t{1} << kLocalKeyBits) - 1;

// REQUIRES: table_id < 256, local_key < 2^56.
constexpr GlobalKey make_global_key(uint32_t table_id, uint64_t local_key) {
  return (uint64_t{table_id} << kLocalKeyBits) | (local_key & kLocalKeyMask);
}
constexpr uint32_t table_of(GlobalKey k) { return static_cast<uint32_t>(k >> kLocalKeyBits); }
constexpr uint64_t local_key_of(GlobalKey k) { return k & kLocalKeyMask; }

struct TxnDesc {
  uint64_t id = 0;                    // unique within a batch / run
  uint32_t type = 0;                  // workload-specific transaction type
  std::vector<GlobalKey> read_set;    // keys read but not written
  std::vector<GlobalKey> write_set;   // keys written (read-modify-write included)
  // Keys standing for rows the request reaches but cannot name from its
  // inputs (TPC-C: a customer chosen by last name, named by its district's
  // customer key with id 0). Not accesses: row-level protocols and the
  // front-ends ignore them; partition-level locking (PartCC) locks their
  // partitions up front, as DBx1000's HSTORE takes every partition its query
  // names (the customer's warehouse) before the transaction runs.
  std::vector<GlobalKey> partition_keys;
  uint32_t restarts = 0;              // times this transaction was aborted so far
  double priority = 0.0;              // transaction value (higher = more valuable)
  // Parameters of the instantiation, beyond its access set, that its cost
  // depends on (TSKD §3's cost history matches a transaction "instantiated
  // with the same parameters"): Extended<W> (workloads/extensions) sets the
  // runtime-skew rank r_T and the I/O-latency rank r_IO; 0 = none.
  std::array<uint32_t, 2> cost_params{};
};

}  // namespace ccb
