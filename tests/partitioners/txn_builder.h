// Tiny transaction descriptions for the partitioner tests.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <vector>

#include "engine/core/txn_desc.h"

namespace ccb::test {

// Keys of table 0; key sets sorted, ids = position in the bundle.
inline TxnDesc txn(std::initializer_list<uint64_t> reads, std::initializer_list<uint64_t> writes) {
  TxnDesc d;
  for (uint64_t k : reads) d.read_set.push_back(make_global_key(0, k));
  for (uint64_t k : writes) d.write_set.push_back(make_global_key(0, k));
  std::sort(d.read_set.begin(), d.read_set.end());
  std::sort(d.write_set.begin(), d.write_set.end());
  return d;
}
inline void number(std::vector<TxnDesc>& bundle) {
  for (size_t i = 0; i < bundle.size(); ++i) bundle[i].id = i;
}

}  // namespace ccb::test
