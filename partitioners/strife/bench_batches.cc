// Access-set models of TPC-C, YCSB and HOT for bench_strife; see bench_batches.h.
#include "partitioners/strife/bench_batches.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/core/zipf.h"

namespace ccb::strife::bench {
namespace {

using Rng = std::mt19937_64;

uint64_t uniform(Rng& rng, uint64_t lo, uint64_t hi) {  // [lo, hi]
  return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
}

// Appends key unless present; returns whether it was appended.
bool push_unique(std::vector<GlobalKey>& keys, GlobalKey key) {
  if (std::find(keys.begin(), keys.end(), key) != keys.end()) return false;
  keys.push_back(key);
  return true;
}

// ---------------------------------------------------------------- TPC-C
namespace tpcc {
enum Table : uint32_t { kWarehouse = 1, kDistrict, kCustomer, kItem, kStock };
constexpr uint64_t kDistricts = 10, kCustomers = 3000, kItems = 100000;
constexpr uint32_t kNewOrder = 0, kPayment = 1;

struct Gen {
  Rng& rng;
  uint64_t warehouses;
  uint64_t c_customer, c_item;  // NURand run-time constants C (TPC-C 2.1.6)

  uint64_t nurand(uint64_t a, uint64_t x, uint64_t y, uint64_t c) {
    return (((uniform(rng, 0, a) | uniform(rng, x, y)) + c) % (y - x + 1)) + x;
  }
  uint64_t other_warehouse(uint64_t w) {  // uniform among the others; REQUIRES warehouses > 1
    const uint64_t o = uniform(rng, 1, warehouses - 1);
    return o >= w ? o + 1 : o;
  }
  static GlobalKey district(uint64_t w, uint64_t d) { return make_global_key(kDistrict, (w - 1) * kDistricts + d - 1); }
  static GlobalKey customer(uint64_t w, uint64_t d, uint64_t c) {
    return make_global_key(kCustomer, ((w - 1) * kDistricts + d - 1) * kCustomers + c - 1);
  }

  void new_order(TxnDesc& t) {
    const uint64_t w = uniform(rng, 1, warehouses), d = uniform(rng, 1, kDistricts);
    t.type = kNewOrder;
    t.read_set = {make_global_key(kWarehouse, w - 1), customer(w, d, nurand(1023, 1, kCustomers, c_customer))};
    t.write_set = {district(w, d)};
    const uint64_t lines = uniform(rng, 5, 15);
    std::vector<GlobalKey> items;
    while (items.size() < lines) {
      const uint64_t i = nurand(8191, 1, kItems, c_item);
      if (!push_unique(items, make_global_key(kItem, i - 1))) continue;
      const bool remote = warehouses > 1 && std::bernoulli_distribution(0.01)(rng);
      const uint64_t supply = remote ? other_warehouse(w) : w;
      t.write_set.push_back(make_global_key(kStock, (supply - 1) * kItems + i - 1));
    }
    t.read_set.insert(t.read_set.end(), items.begin(), items.end());
  }

  void payment(TxnDesc& t) {
    const uint64_t w = uniform(rng, 1, warehouses), d = uniform(rng, 1, kDistricts);
    const bool remote = warehouses > 1 && std::bernoulli_distribution(0.15)(rng);
    const uint64_t c_w = remote ? other_warehouse(w) : w;
    const uint64_t c_d = remote ? uniform(rng, 1, kDistricts) : d;
    t.type = kPayment;
    t.read_set.clear();
    t.write_set = {make_global_key(kWarehouse, w - 1), district(w, d),
                   customer(c_w, c_d, nurand(1023, 1, kCustomers, c_customer))};
  }
};
}  // namespace tpcc

// ---------------------------------------------------------------- YCSB
constexpr uint64_t kYcsbKeys = 20'000'000;
constexpr size_t kYcsbAccesses = 20;

// ---------------------------------------------------------------- HOT
constexpr uint64_t kHotRecords = 50'000'000;
constexpr size_t kHotColdAccesses = 9;
constexpr uint64_t kHotMaxRemote = 3;

}  // namespace

const char* workload_name(Workload w) {
  switch (w) {
    case Workload::kTpcc: return "tpcc";
    case Workload::kYcsb: return "ycsb";
    case Workload::kHot: return "hot";
  }
  return "?";
}

std::optional<Workload> parse_workload(std::string_view name) {
  for (Workload w : {Workload::kTpcc, Workload::kYcsb, Workload::kHot})
    if (name == workload_name(w)) return w;
  return std::nullopt;
}

std::string check_spec(const BatchSpec& s) {
  const bool integral = std::floor(s.param) == s.param;
  switch (s.workload) {
    case Workload::kTpcc:
      if (!(integral && s.param >= 1 && s.param <= 10000)) return "tpcc warehouses must be an integer in [1, 10000]";
      break;
    case Workload::kYcsb:
      if (!(std::isfinite(s.param) && s.param >= 0 && s.param <= 10)) return "ycsb theta must be in [0, 10]";
      break;
    case Workload::kHot:
      if (!(integral && s.param >= 1 && s.param <= 1e6)) return "hot records must be an integer in [1, 1000000]";
      break;
  }
  if (s.partitions < 1 || s.partitions > 10000) return "partitions must be in [1, 10000]";
  return {};
}

std::vector<TxnDesc> make_batch(const BatchSpec& spec, size_t size, uint64_t seed) {
  Rng rng(seed);
  std::vector<TxnDesc> batch(size);
  for (size_t i = 0; i < size; ++i) batch[i].id = i;

  switch (spec.workload) {
    case Workload::kTpcc: {
      tpcc::Gen gen{rng, static_cast<uint64_t>(spec.param), uniform(rng, 0, 1023), uniform(rng, 0, 8191)};
      for (TxnDesc& t : batch) {
        if (std::bernoulli_distribution(0.5)(rng))
          gen.new_order(t);
        else
          gen.payment(t);
      }
      break;
    }
    case Workload::kYcsb: {
      const uint64_t per_partition = kYcsbKeys / spec.partitions;
      ZipfGenerator zipf(per_partition, spec.param, seed ^ 0x5DEECE66DULL);
      for (TxnDesc& t : batch) {
        const uint64_t base = uniform(rng, 0, spec.partitions - 1) * per_partition;
        while (t.write_set.size() < std::min<uint64_t>(kYcsbAccesses, per_partition)) {
          push_unique(t.write_set, make_global_key(0, base + zipf.next()));
        }
      }
      break;
    }
    case Workload::kHot: {
      const uint64_t parts = spec.partitions, hot = static_cast<uint64_t>(spec.param);
      const uint64_t rows_per_partition = kHotRecords / parts;
      const uint64_t hot_rows_per_partition = (hot + parts - 1) / parts;  // cold rows start above these
      std::vector<uint64_t> partitions;
      for (TxnDesc& t : batch) {
        const uint64_t h = uniform(rng, 0, hot - 1);
        t.write_set = {make_global_key(0, h)};
        partitions = {h % parts};
        const uint64_t remote = uniform(rng, 0, std::min(kHotMaxRemote, parts - 1));
        while (partitions.size() < 1 + remote) {
          const uint64_t p = uniform(rng, 0, parts - 1);
          if (std::find(partitions.begin(), partitions.end(), p) == partitions.end()) partitions.push_back(p);
        }
        while (t.write_set.size() < 1 + kHotColdAccesses) {
          const uint64_t p = partitions[uniform(rng, 0, partitions.size() - 1)];
          const uint64_t row = uniform(rng, hot_rows_per_partition, rows_per_partition - 1);
          push_unique(t.write_set, make_global_key(0, row * parts + p));
        }
      }
      break;
    }
  }
  return batch;
}

}  // namespace ccb::strife::bench
