// BCC's own flags (--bcc_breakdown), declared by the protocol (Bcc::Options):
// only bin/rundb-bcc defines them (its generated main(), rundb/main.h), so
// every other program refuses them as unknown flags.
//
// Thread safety: plain value type.
#pragma once

#include "engine/core/options.h"

namespace ccb {

struct BccOptions {
  bool breakdown = false;  // --bcc_breakdown (bcc-tab1): time the history's memory management and clock accesses

  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<BccOptions> flags;
  static BccOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
