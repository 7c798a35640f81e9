// Batch generators for bench_strife: the predicted access sets (read keys,
// write keys) of the three workloads of the Strife paper's evaluation (§5.1),
// at the paper's settings. These are *access-set models*, not the testbed's
// workload generators: they produce only what a front-end sees (a batch of
// ccb::TxnDesc), so the clustering can be benchmarked before workloads/ is
// ready. When the real generators land, make_batch() is the one function to
// replace. Table ids are local to these models.
//
// tpcc (param = warehouses): 50/50 NewOrder / Payment, payments by customer
//   id ("all payments accessing customer through primary key lookups"),
//   15% of payments remote, 1% of order lines from a remote warehouse, 10
//   districts, 3000 customers per district, 100,000 items, NURand customer
//   and item ids (TPC-C 2.1.6). Inserted rows (orders, new-orders, order
//   lines, history) have fresh keys that no other transaction touches, so
//   they are left out.
//     NewOrder reads WAREHOUSE(w), CUSTOMER(w,d,c) and ITEM(i) for 5-15
//       distinct items; writes DISTRICT(w,d) and STOCK(supply_w, i).
//     Payment writes WAREHOUSE(w), DISTRICT(w,d), CUSTOMER(c_w,c_d,c).
// ycsb (param = theta): 20M keys in `partitions` contiguous ranges; a
//   transaction picks a partition uniformly and read-modify-writes 20
//   distinct keys of it, Zipfian(theta) within the partition (§5.1:
//   "statically partitionable", "intra-partition key access is determined
//   by a Zipfian distribution").
// hot (param = hot records): 50M records, hash-partitioned (key mod
//   `partitions`); hot records are keys 0..H-1, so evenly spread over the
//   partitions. A transaction updates one uniformly chosen hot record and 9
//   distinct cold records; the hot record's partition is its home, it picks
//   0-3 distinct remote partitions uniformly ("limiting remote partition
//   accesses to at most 3") and each cold record lies in the home or one of
//   those, uniformly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/txn_desc.h"

namespace ccb::strife::bench {

enum class Workload { kTpcc, kYcsb, kHot };

struct BatchSpec {
  Workload workload = Workload::kTpcc;
  double param = 4;          // tpcc: warehouses; ycsb: theta; hot: hot records
  uint32_t partitions = 30;  // ycsb and hot
};

const char* workload_name(Workload w);
std::optional<Workload> parse_workload(std::string_view name);
// Empty if `spec` is valid, else a message naming the problem and the allowed values.
std::string check_spec(const BatchSpec& spec);

// REQUIRES: check_spec(spec).empty(). Deterministic for (spec, size, seed).
std::vector<TxnDesc> make_batch(const BatchSpec& spec, size_t size, uint64_t seed);

}  // namespace ccb::strife::bench
