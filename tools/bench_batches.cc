// bench_strife's batches from the real workload generators; see bench_batches.h.
#include "tools/bench_batches.h"

#include <cmath>
#include <iterator>

#include "engine/core/cli.h"
#include "engine/core/random.h"
#include "workloads/hot/hot_generator.h"
#include "workloads/distinct_keys.h"
#include "workloads/tpcc/tpcc_requests.h"
#include "workloads/ycsb/ycsb_generator.h"

namespace ccb::strife::bench {
namespace {

// Requests drawn from one stream, as one worker of the engine draws them;
// transaction i comes from a client drawn uniformly from [0, clients) (the
// generator's `thread`, which only TPC-C uses: its home warehouse).
template <class G>
std::vector<TxnDesc> describe_requests(G generator, uint32_t clients, size_t size, uint64_t seed) {
  generator.prepare();
  Random rng(seed);
  std::vector<TxnDesc> batch;
  batch.reserve(size);
  typename G::Request request{};
  for (size_t i = 0; i < size; ++i) {
    const uint32_t client = clients > 1 ? static_cast<uint32_t>(rng.below(clients)) : 0;
    generator.generate(rng, client, request);
    batch.push_back(generator.describe(request));
    batch.back().id = i;
  }
  return batch;
}

TpccOptions tpcc_options(const BatchSpec& s) {
  TpccOptions o;
  o.warehouses = static_cast<uint32_t>(s.param);
  o.mix = "neworder_payment";
  o.mix_pct = {50, 50, 0, 0, 0};
  o.cross_pct = -1;  // the spec's remote payments (15%) and order lines (1%)
  o.by_last_name_pct = 0;
  return o;
}

YcsbOptions ycsb_options(const BatchSpec& s) {
  YcsbOptions o;
  o.table_size = kYcsbKeys;
  o.payload_size = 128;
  o.req_per_txn = kYcsbRequests;
  o.read_ratio = 0;
  o.key_skew.theta = s.param;
  o.partitions = s.partitions;
  return o;
}

HotOptions hot_options(const BatchSpec& s) {
  HotOptions o;
  o.table_size = kHotRecords;
  o.hot_records = static_cast<uint32_t>(s.param);
  o.partitions = s.partitions;
  o.remote_max = 3;
  o.shift_s = 0;
  return o;
}

}  // namespace

// Indexed by Workload.
constexpr const char* kWorkloadNames[] = {"tpcc", "ycsb", "hot"};

const char* workload_name(Workload w) { return kWorkloadNames[static_cast<size_t>(w)]; }

std::optional<Workload> parse_workload(std::string_view name) {
  for (size_t i = 0; i < std::size(kWorkloadNames); ++i)
    if (name == kWorkloadNames[i]) return static_cast<Workload>(i);
  return std::nullopt;
}

// The ranges the workloads' own option checks (from_flags) enforce.
std::string check_spec(const BatchSpec& s) {
  const bool integral = std::floor(s.param) == s.param;
  if (s.partitions < 1 || s.partitions > 10000) return "partitions must be in [1, 10000]";
  switch (s.workload) {
    case Workload::kTpcc:
      if (!(integral && s.param >= 1 && s.param <= tpcc::kMaxWarehouses))
        return "tpcc warehouses must be an integer in [1, " + std::to_string(tpcc::kMaxWarehouses) + "]";
      break;
    case Workload::kYcsb:
      if (!(std::isfinite(s.param) && s.param >= 0 && s.param <= 10)) return "ycsb theta must be in [0, 10]";
      if (const YcsbOptions o = ycsb_options(s); worst_case_draws(o.keys_per_partition(), o.key_skew.theta, o.req_per_txn) >
                                                  kMaxDrawsPerTxn)  // YcsbGenerator's own check (distinct_keys.h)
        return "ycsb theta " + std::to_string(s.param) + " is too skewed for " + std::to_string(o.req_per_txn) +
               " distinct keys per transaction among " + std::to_string(o.keys_per_partition()) +
               " keys per partition: finding them would take over " + std::to_string(int(kMaxDrawsPerTxn)) +
               " Zipf draws per transaction (lower the theta)";
      break;
    case Workload::kHot: {
      // HOT: every partition holds the H hot pool keys and the 9 cold records of a transaction.
      const uint64_t max_hot = kHotRecords / s.partitions - HotOptions::kCold;
      if (!(integral && s.param >= 1 && s.param <= static_cast<double>(max_hot)))
        return "hot records must be an integer in [1, " + std::to_string(max_hot) + "] (" +
               std::to_string(kHotRecords) + " records / partitions - 9)";
      break;
    }
  }
  return {};
}

std::vector<TxnDesc> make_batch(const BatchSpec& spec, size_t size, uint64_t seed) {
  switch (spec.workload) {
    case Workload::kTpcc:
      return describe_requests(TpccGenerator(tpcc_options(spec)), static_cast<uint32_t>(spec.param), size, seed);
    case Workload::kYcsb:
      return describe_requests(YcsbGenerator(ycsb_options(spec)), 1, size, seed);
    case Workload::kHot:
      return describe_requests(HotGenerator(hot_options(spec)), 1, size, seed);
  }
  return {};
}

// A list of workload:param points, each valid for the workload's options
// (check_spec) with `partitions`.
std::vector<BatchSpec> parse_points(const std::string& value, const char* flag, uint32_t partitions) {
  const std::string allowed = "comma-separated workload:param points, workload one of tpcc, ycsb, hot";
  std::vector<BatchSpec> points;
  for (const std::string& item : list_items(value, flag, allowed)) {
    const size_t colon = item.find(':');
    const auto workload = colon == std::string::npos ? std::nullopt : parse_workload(item.substr(0, colon));
    double param = 0;
    require(workload && parse_number(item.substr(colon + 1), param), flag, allowed);
    points.push_back({*workload, param, partitions});
    if (const std::string err = check_spec(points.back()); !err.empty())
      throw ConfigError(flag, "'" + item + "': " + err);
  }
  return points;
}

}  // namespace ccb::strife::bench
