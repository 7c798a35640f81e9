// Knobs of the key-value micro benchmark of the batching-and-reordering paper,
// validated from flags (--micro_objects and --theta, workloads/key_skew.h).
#pragma once

#include <cstdint>

#include "engine/core/options.h"
#include "workloads/key_skew.h"

namespace ccb {

struct MicroOptions {
  static constexpr uint32_t kReads = 5, kWrites = 5;  // "reads 5 objects and writes to 5 objects"
  static constexpr uint32_t kKeys = kReads + kWrites - 1;  // one read and one write on the same object
  uint64_t objects = 100000;  // "100K objects"
  KeySkewOptions key_skew;    // --theta: Zipf skew of key choice (the x axis of most ding figures)

  static OptionsTable<MicroOptions> flags;  // its rows: micro_options.cpp
  static MicroOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }
};

}  // namespace ccb
