// YCSB knobs (DBx1000-compatible names), validated from flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/options.h"
#include "workloads/key_skew.h"

namespace ccb {

struct YcsbOptions {
  uint64_t table_size = 0;    // rows, keys 0..table_size-1
  uint32_t payload_size = 0;  // bytes per row besides the version word (>= 8: the counter)
  uint32_t req_per_txn = 0;   // distinct keys per transaction
  double read_ratio = 0;      // probability that a request is a read; the rest are read-modify-writes
  KeySkewOptions key_skew;    // --theta: Zipf skew of key choice
  uint32_t partitions = 0;    // 0: off; N: each transaction stays within one of N key ranges
  std::string home_partition = "uniform";  // with partitions: which range a transaction stays in

  static constexpr uint32_t kMaxRequests = 64;
  static OptionsTable<YcsbOptions> flags;  // its rows: ycsb_options.cpp
  static YcsbOptions from_flags();
  void to_json(JsonWriter& w) const;
  bool worker_home() const { return home_partition == "worker"; }
  static const std::vector<std::string>& home_partitions();  // {"uniform", "worker"}
  uint64_t keys_per_partition() const { return partitions ? table_size / partitions : table_size; }
};

}  // namespace ccb
