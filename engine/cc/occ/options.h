// OCC's own flag (--occ_validation), declared by the protocol (Occ::Options,
// engine/cc/occ/occ.h; its row in options.cpp): only bin/rundb-occ defines it
// (its generated main(), rundb/main.h), so every other program refuses it as
// an unknown flag. How a committing transaction takes the latches of the rows
// it accessed:
//   wait     in row-address order, waiting on each held latch; all rows are
//            latched first, then validated (DBx1000's per-row validation built
//            without BOUNDED_SPINNING);
//   bounded  in access order, unsorted; a held latch is retried with DBx1000's
//            bounded exponential back-off (bounded_backoff_function: 1, 3, 7,
//            15 pause rounds between 5 tries, bound 15) and, still held, the
//            transaction aborts (a presumed deadlock); each row is validated
//            as soon as it is latched and the first stale row aborts
//            (occ.cpp's per_row_validate with BOUNDED_SPINNING, as the
//            optimised configurations of the 28-core reference data build it).
//
// Thread safety: plain value type.
#pragma once

#include <string>
#include <vector>

#include "engine/core/options.h"

namespace ccb {

struct OccOptions {
  std::string validation = "wait";  // --occ_validation: wait | bounded

  static const std::vector<std::string>& validations();  // {"wait", "bounded"}
  bool bounded() const { return validation == "bounded"; }
  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<OccOptions> flags;
  static OccOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
