// BCC's own flags (--bcc_breakdown, --bcc_fence), declared by the protocol
// (Bcc::Options): only bin/rundb-bcc defines them (its generated main(),
// rundb/main.h), so every other program refuses them as unknown flags.
//
// Thread safety: plain value type.
#pragma once

#include <string>
#include <vector>

#include "engine/core/options.h"

namespace ccb {
namespace bcc {

// How a reader's read-set insert is ordered before its re-check of the row
// (Algorithm 2) against a writer that locks the row and then searches the
// reader's table (engine/cc/bcc/bcc.h has the happens-before argument):
//   kPerRead     every insert is followed by a full fence (portable; the
//                C++ memory model proves it);
//   kAsymmetric  inserts are plain release stores and a searching writer
//                makes every running thread execute a full barrier
//                (membarrier, Linux): no fence per read, a system call and
//                an interrupt of every other worker per search.
enum class Fence { kPerRead, kAsymmetric };

}  // namespace bcc

struct BccOptions {
  bool breakdown = false;  // --bcc_breakdown (bcc-tab1): time the history's memory management and clock accesses
  std::string fence = "per_read";  // --bcc_fence: per_read | asymmetric (bcc::Fence)

  static const std::vector<std::string>& fences();  // {"per_read", "asymmetric"}, in bcc::Fence's order
  bcc::Fence fence_kind() const { return fence == "asymmetric" ? bcc::Fence::kAsymmetric : bcc::Fence::kPerRead; }
  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<BccOptions> flags;
  static BccOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
