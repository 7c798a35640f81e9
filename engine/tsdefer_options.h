// Knobs of TsDEFER (TSKD §5, Table 1 "gray" parameters; engine/exec/tsdefer.h),
// built from the --tsdefer_* and --access_set_accuracy flags (its table, tsdefer_options.cpp).
//
// TsDEFER runs with --frontend=tsdefer (series TSKD[CC]) and the TSKD bundle
// instances (tskd-s, tskd-o, tsdefer-s; partitioners/tspar); the knobs are
// accepted with any front-end and then have no effect, so a figure can sweep
// them with a DbCC baseline series (--frontend=none) at every point.
//
// Thread safety: plain value type.
#pragma once

#include <cstdint>

#include "engine/core/options.h"

namespace ccb {

struct TsDeferOptions {
  static constexpr uint32_t kMaxLookups = 64;
  static constexpr uint32_t kMaxLookahead = 1024;

  uint32_t lookups = 2;       // #lookups per candidate; 0 disables TsDEFER
  double deferp = 0.6;        // deferp%: probability to defer a candidate that hit
  uint32_t threshold = 1;     // hits needed to consider a candidate conflicting
  uint32_t lookahead = 0;     // look up to this many transactions beyond another thread's headp
  double accuracy = 1.0;      // α: the fraction of each predicted access set TsDEFER sees

  // --tsdefer_lookups, ... (tsdefer_options.cpp), read and echoed inside
  // EngineConfig's ("config": tsdefer_lookups, ...).
  static OptionsTable<TsDeferOptions> flags;
};

}  // namespace ccb
