// Batches for bench_strife, made by the testbed's own workloads: every
// transaction is a request from the workload's generate(), and what the
// clusterer sees is that request's describe() (the predicted access set,
// README.md, design property 3), exactly what a Strife front-end in front of the
// engine would see. Only the request generators are used: describe() of all
// three workloads depends on the request alone, so no table is loaded (the
// paper's 20M-key YCSB and 50M-record HOT cost nothing here).
//
// Settings of the paper's §5.1 (the workloads' READMEs document each knob):
//   tpcc (param = warehouses): TpccOptions with the 50/50 NewOrder/Payment
//     mix ("neworder_payment"), by_last_name_pct = 0 ("all payments accessing
//     customer through primary key lookups") and the spec's remote accesses
//     (cross_pct = -1: 15% of payments remote, 1% of order lines from a
//     remote warehouse). The home warehouse of the executor's worker t is
//     t mod warehouses + 1; a batch collects transactions from every client,
//     so each transaction's client (the generator's `thread`) is drawn
//     uniformly from [0, warehouses) [INF: the paper does not say how a
//     batch's transactions spread over warehouses].
//   ycsb (param = theta): YcsbOptions with 20M keys, 20 requests per
//     transaction, `partitions` contiguous key ranges (each transaction inside
//     one, Zipf(theta) within it: "intra-partition key access is determined by
//     a Zipfian distribution"), payload 128 bytes, read_ratio = 0: every
//     request a read-modify-write [INF: "reads/updates 20 records", strife §5.1;
//     "20 read-write accesses", §5.6.1].
//   hot (param = hot records): HotOptions with 50M records, `partitions` hash
//     partitions, at most 3 remote cold records, fixed placement (hot keys
//     0..H-1, evenly spread over the partitions).
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

// The paper's table sizes (§5.1).
inline constexpr uint64_t kYcsbKeys = 20'000'000;
inline constexpr uint32_t kYcsbRequests = 20;
inline constexpr uint64_t kHotRecords = 50'000'000;

// Where the batches come from, for the result's config.
inline constexpr const char* kBatchSource =
    "workloads/{tpcc,ycsb,hot}: generate() + describe() (tools/bench_batches.h)";

const char* workload_name(Workload w);
std::optional<Workload> parse_workload(std::string_view name);
// Empty if `spec` is valid, else a message naming the problem and the allowed values.
std::string check_spec(const BatchSpec& spec);

// A flag's comma-separated workload:param points, each valid (check_spec)
// with `partitions`; ConfigError naming `flag` otherwise.
std::vector<BatchSpec> parse_points(const std::string& value, const char* flag, uint32_t partitions);

// `size` transaction descriptions with ids 0..size-1.
// REQUIRES: check_spec(spec).empty(). Deterministic for (spec, size, seed).
std::vector<TxnDesc> make_batch(const BatchSpec& spec, size_t size, uint64_t seed);

}  // namespace ccb::strife::bench
