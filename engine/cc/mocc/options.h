// MOCC's own flags (--mocc_temperature_threshold, --mocc_decay_ms), declared
// by the protocol (Mocc::Options, engine/cc/mocc/mocc.h; rows in options.cpp):
// only bin/rundb-mocc defines them (its generated main(), rundb/main.h), so
// every other program refuses them as unknown flags.
//
// Thread safety: plain value type.
#pragma once

#include <cstdint>

#include "engine/core/options.h"

namespace ccb {

struct MoccOptions {
  uint32_t temperature_threshold = 10;  // --mocc_temperature_threshold: hot from this many validation failures
  uint32_t decay_ms = 1000;             // --mocc_decay_ms: the temperature halves every period

  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<MoccOptions> flags;
  static MoccOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
