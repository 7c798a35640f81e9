// Knobs of the HOT benchmark of the Strife paper, validated from flags
// (--hot_* and the shared --partitions).
#pragma once

#include <cstdint>

#include "engine/core/options.h"

namespace ccb {

struct HotOptions {
  static constexpr uint32_t kCold = 9;  // "one hot record and 9 cold records" (Strife Sec. 5.1)
  static constexpr uint32_t kFields = 20;
  static constexpr double kMinShiftS = 0.001;  // --hot_shift_s: shorter periods would be mostly transition
  uint64_t table_size = 1000000;  // Strife: 50M records; scaled down by default (profiles set it)
  uint32_t hot_records = 100;     // "some records (default: 100) as hot"
  uint32_t partitions = 0;        // 0 or 1: one partition; N: hash (modulo) partitioning into N
  uint32_t remote_max = 3;        // "limiting remote partition accesses to at most 3"
  double shift_s = 0;             // 0: hot records fixed; >= kMinShiftS: re-placed every shift_s s (Fig. 8d: ~30)
  uint64_t shift_seed = 1;        // seeds the placement of every epoch (from --seed)

  static OptionsTable<HotOptions> flags;  // its rows: hot_options.cpp
  static HotOptions from_flags();
  void to_json(JsonWriter& w) const;
  uint32_t parts() const { return partitions == 0 ? 1 : partitions; }
  uint64_t rows_per_partition() const { return table_size / parts(); }
};

}  // namespace ccb
