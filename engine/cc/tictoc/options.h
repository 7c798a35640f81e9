// TicToc's own flag (--tictoc_validation), declared by the protocol
// (TicToc::Options, engine/cc/tictoc/tictoc.h; its row in options.cpp): only
// bin/rundb-tictoc defines it (its generated main(), rundb/main.h), so every
// other program refuses it as an unknown flag. How the commit locks the write
// set:
//   wait     in row-address order, waiting on each held lock (the TicToc
//            paper's Algorithm 2);
//   bounded  DBx1000's validate_tictoc as the optimised configurations of the
//            28-core reference data build it (VALIDATION_LOCK "no-wait",
//            PRE_ABORT "true", BOUNDED_SPINNING true, bound 15): before
//            locking, every row written must still carry the wts its access
//            read and no row read may have been overwritten with an rts below
//            the estimated commit timestamp (pre-abort); the write set, in
//            access order, is locked with one try per row, each locked row's
//            wts checked; a held lock releases the locks taken, repeats the
//            pre-abort check and retries after 1, 3, 7, then 15 pause rounds;
//            the fifth failure aborts. The read-set validation and the install
//            are as under wait.
//
// Thread safety: plain value type.
#pragma once

#include <string>
#include <vector>

#include "engine/core/options.h"

namespace ccb {

struct TicTocOptions {
  std::string validation = "wait";  // --tictoc_validation: wait | bounded

  static const std::vector<std::string>& validations();  // {"wait", "bounded"}
  bool bounded() const { return validation == "bounded"; }
  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<TicTocOptions> flags;
  static TicTocOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
