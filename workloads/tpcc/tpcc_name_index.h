// The CUSTOMER secondary index on (C_W_ID, C_D_ID, C_LAST): for each district
// and last name, the ids of the customers with that name sorted by C_FIRST,
// as Payment and OrderStatus need it (2.5.2.2, 2.6.2.2: "the row at position
// n/2 rounded up in the sorted set").
//
// It is built once at load and never changes: TPC-C inserts no customer and
// updates neither C_LAST nor C_FIRST, so reading it outside the transaction's
// concurrency control is safe, and the customer row the procedure then reads
// goes through the protocol as usual. Keyed by the name's number (0..999),
// which is one-to-one with the C_LAST string (tpcc_random.h: last_name).
//
// Thread safety: add_district() may run concurrently for distinct districts,
// each caller with its own arena index; lookups are safe concurrently with
// each other once loading has finished.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/core/hash_index.h"
#include "engine/core/memory.h"

namespace ccb::tpcc {

class CustomerNameIndex {
 public:
  // `loaders`: how many threads will call add_district (one arena each).
  CustomerNameIndex(uint32_t warehouses, uint32_t loaders);

  // Indexes one district. names[c] is customer c's name number and firsts[c]
  // its C_FIRST (16 bytes, NUL-padded), for c in 1..kCustomersPerDistrict
  // (index 0 unused).
  void add_district(uint32_t w, uint32_t d, const uint16_t* names, const char (*firsts)[16], uint32_t loader);

  // The customers of (w, d) named `name`, sorted by C_FIRST (then C_ID).
  std::span<const uint32_t> find(uint32_t w, uint32_t d, uint32_t name) const;
  // The one Payment and OrderStatus select: position ceil(n / 2) (1-based);
  // 0 if no customer has the name.
  uint32_t middle(uint32_t w, uint32_t d, uint32_t name) const {
    const auto ids = find(w, d, name);
    return ids.empty() ? 0 : ids[(ids.size() + 1) / 2 - 1];
  }

  size_t memory_bytes() const;
  // About what an index of `warehouses` holds once loaded: its buckets, one
  // node per (district, name) and the id lists (a count plus one id per customer).
  static size_t bytes_for(uint32_t warehouses);

 private:
  // Each indexed value points at a uint32_t array: the count, then the ids.
  HashIndex index_;
  std::vector<std::unique_ptr<Arena>> arenas_;  // one per loader thread; hold the lists
};

}  // namespace ccb::tpcc
