// Horticulture-like partitioner (TSKD §6.1: HORTICULTURE, "extracted ... from
// H-Store", "hard-coded for TPC-C and YCSB workloads"; Pavlo et al., SIGMOD
// 2012): a static, schema-based partitioning. Every partitioned table is
// split on one attribute (TPC-C: the warehouse id; YCSB: the key), read-only
// tables (TPC-C ITEM) are replicated, and a transaction runs at the partition
// most of its records live in. What is kept and dropped: README.md.
//
// The design (how attribute values map to the k partitions) is chosen once,
// on the first bundle, which serves as Horticulture's sample workload trace,
// and then stays fixed for the run ("static"): among the candidate designs
// (hash: value mod k, H-Store's default hasher on an integer; range: k equal
// ranges of the values the trace shows), the one of least skew-aware cost
// (Horticulture §4):
//   cost = (alpha * coordination + beta * skew) / (alpha + beta), where
//   coordination = sum over transactions of (partitions touched - 1),
//                  divided by |trace| * (k - 1)          (distributed txns)
//   skew         = 1 - H(accesses per partition) / log k (0 = uniform).
// Then per bundle: each transaction to the partition of the majority of its
// records (MajorityRouter). No residual: the k partitions cover the bundle
// and may conflict (TSKD §6.1: HORTICULTURE does not produce one; TSKD
// extracts it itself, extract_residual in residual.h; the HORTICULTURE
// baseline runs the partitions with CC, partitioners/partitioner_frontend.h).
//
// Thread safety: one caller at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "partitioners/partitioning.h"

namespace ccb::horticulture {

// The partitioning attribute of a record, or nullopt for a replicated table.
using Attribute = std::optional<uint64_t> (*)(GlobalKey);

std::optional<uint64_t> tpcc_warehouse(GlobalKey key);  // workloads/tpcc: warehouse_of_key
std::optional<uint64_t> ycsb_key(GlobalKey key);        // YCSB's one table, by key
// The hard-coded attribute of `workload` ("tpcc", "ycsb"), nullptr for others.
Attribute attribute_for(std::string_view workload);

enum class Mapping { kHash, kRange };
const char* mapping_name(Mapping m);

struct Options {
  Attribute attribute = nullptr;
  double alpha = 1.0;  // weight of the coordination cost [INF: equal weights]
  double beta = 1.0;   // weight of the skew cost
};

// The static design and its cost terms on the trace it was chosen on.
struct Design {
  Mapping mapping = Mapping::kHash;
  unsigned parts = 0;
  uint64_t lo = 0, hi = 0;  // attribute range of the trace (kRange)
  double coordination = 0, skew = 0, cost = 0;
  uint32_t part_of(uint64_t value) const;
};

class HorticulturePartitioner final : public Partitioner {
 public:
  // REQUIRES: options.attribute != nullptr.
  explicit HorticulturePartitioner(const Options& options) : options_(options) {}
  void partition(std::span<const TxnDesc> bundle, unsigned parts, Partitioning& out) override;
  const char* name() const override { return "horticulture"; }
  bool gives_residual() const override { return false; }
  // Empty until the first partition().
  const std::optional<Design>& design() const { return design_; }
  // The cost terms of `mapping` on `trace` (exposed for tests).
  Design evaluate(std::span<const TxnDesc> trace, unsigned parts, Mapping mapping) const;

 private:
  Options options_;
  std::optional<Design> design_;
};

inline std::unique_ptr<Partitioner> make_horticulture(const Options& options) {
  return std::make_unique<HorticulturePartitioner>(options);
}

}  // namespace ccb::horticulture
