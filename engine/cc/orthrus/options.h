// Orthrus's own flag (--orthrus_wait), declared by the protocol
// (Orthrus::Options, engine/cc/orthrus/orthrus.h; rows in options.cpp): only
// bin/rundb-orthrus defines it (its generated main(), rundb/main.h), so every
// other program refuses it as an unknown flag.
//
// Thread safety: plain value type.
#pragma once

#include <string>
#include <vector>

#include "engine/core/message_queue.h"
#include "engine/core/options.h"

namespace ccb {

struct OrthrusOptions {
  std::string wait = "poll";  // --orthrus_wait: poll | sleep (ThreadWait)

  static const std::vector<std::string>& waits();  // {"poll", "sleep"}
  ThreadWait thread_wait() const { return wait == "sleep" ? ThreadWait::kSleep : ThreadWait::kPoll; }
  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<OrthrusOptions> flags;
  static OrthrusOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
