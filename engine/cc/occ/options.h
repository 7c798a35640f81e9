// OCC's own flags (--occ_validation, --occ_read_abort), declared by the
// protocol (Occ::Options, engine/cc/occ/occ.h; rows in options.cpp): only
// bin/rundb-occ defines them (its generated main(), rundb/main.h), so every
// other program refuses them as unknown flags. --occ_validation: how a
// committing transaction takes the latches of the rows it accessed:
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
// --occ_read_abort: a read (or a first write) that copies a row written after
// the transaction started aborts it at once, as DBx1000's Row_occ::access does
// (start_ts < wts under the row latch); off, such a transaction runs on and
// fails its validation at commit.
//
// Thread safety: plain value type.
#pragma once

#include <string>
#include <vector>

#include "engine/core/options.h"

namespace ccb {

struct OccOptions {
  std::string validation = "wait";  // --occ_validation: wait | bounded
  bool read_abort = false;          // --occ_read_abort

  static const std::vector<std::string>& validations();  // {"wait", "bounded"}
  bool bounded() const { return validation == "bounded"; }
  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<OccOptions> flags;
  static OccOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
