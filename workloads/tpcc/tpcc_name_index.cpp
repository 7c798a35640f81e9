#include "workloads/tpcc/tpcc_name_index.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "workloads/tpcc/tpcc_schema.h"

namespace ccb::tpcc {

CustomerNameIndex::CustomerNameIndex(uint32_t warehouses, uint32_t loaders)
    : index_(uint64_t{warehouses} * kDistrictsPerWarehouse * kLastNames) {
  for (uint32_t i = 0; i < std::max(loaders, 1u); ++i) arenas_.push_back(std::make_unique<Arena>());
}

void CustomerNameIndex::add_district(uint32_t w, uint32_t d, const uint16_t* names, const char (*firsts)[16],
                                     uint32_t loader) {
  // Counting sort of the customer ids by name number, then each name's ids by
  // C_FIRST.
  std::array<uint32_t, kLastNames + 1> start{};
  for (uint32_t c = 1; c <= kCustomersPerDistrict; ++c) ++start[names[c] + 1];
  for (uint32_t n = 0; n < kLastNames; ++n) start[n + 1] += start[n];
  std::array<uint32_t, kCustomersPerDistrict> ids;
  std::array<uint32_t, kLastNames> fill = {};
  for (uint32_t c = 1; c <= kCustomersPerDistrict; ++c) ids[start[names[c]] + fill[names[c]]++] = c;

  Arena& arena = *arenas_[loader];
  for (uint32_t n = 0; n < kLastNames; ++n) {
    const uint32_t count = start[n + 1] - start[n];
    if (count == 0) continue;
    uint32_t* first = ids.data() + start[n];
    std::sort(first, first + count, [firsts](uint32_t a, uint32_t b) {
      const int cmp = std::memcmp(firsts[a], firsts[b], 16);
      return cmp != 0 ? cmp < 0 : a < b;
    });
    auto* list = static_cast<uint32_t*>(arena.allocate(sizeof(uint32_t) * (count + 1), alignof(uint32_t)));
    list[0] = count;
    std::copy(first, first + count, list + 1);
    index_.insert(customer_name_key(w, d, n), list, arena);
  }
}

std::span<const uint32_t> CustomerNameIndex::find(uint32_t w, uint32_t d, uint32_t name) const {
  const auto* list = static_cast<const uint32_t*>(index_.lookup(customer_name_key(w, d, name)));
  if (list == nullptr) return {};
  return {list + 1, list[0]};
}

size_t CustomerNameIndex::bytes_for(uint32_t warehouses) {
  const uint64_t districts = uint64_t{warehouses} * kDistrictsPerWarehouse;
  const uint64_t names = districts * kLastNames;
  return ChainedHashIndex<KeyValueNode>::bytes_for(names) + names * (sizeof(KeyValueNode) + sizeof(uint32_t)) +
         districts * kCustomersPerDistrict * sizeof(uint32_t);
}

size_t CustomerNameIndex::memory_bytes() const {
  size_t bytes = index_.memory_bytes();
  for (const auto& a : arenas_) bytes += a->reserved_bytes();
  return bytes;
}

}  // namespace ccb::tpcc
