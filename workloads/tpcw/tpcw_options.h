// Knobs of the TPC-W-like workload of the BCC paper, validated from flags
// (--tpcw_*).
#pragma once

#include <cstdint>

#include "engine/core/options.h"

namespace ccb {

struct TpcwOptions {
  static constexpr uint32_t kMaxLines = 32;  // items per DoCart / lines per OrderProcess
  uint64_t items = 10000;      // ITEM rows; BCC states no scale [INF: TPC-W's 10K-item scale]
  double hot_prob = 1.0;       // probability that a DoCart reads the hot item (BCC Fig. 5: 100%, Fig. 6 sweeps it)
  uint32_t cart_items = 5;     // items one DoCart adds to its cart [INF]
  uint32_t order_lines = 10;   // items one OrderProcess orders, the hot one included [INF]
  uint32_t order_threads = 1;  // workers 0..order_threads-1 run OrderProcess (BCC Sec. 5.2: one)

  static OptionsTable<TpcwOptions> flags;  // its rows: tpcw_options.cpp
  static TpcwOptions from_flags();
  void to_json(JsonWriter& w) const;
};

}  // namespace ccb
