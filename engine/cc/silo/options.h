// Silo's own flag (--silo_validation), declared by the protocol (Silo::Options,
// engine/cc/silo/silo.h; its row in options.cpp): only bin/rundb-silo defines
// it (its generated main(), rundb/main.h), so every other program refuses it
// as an unknown flag (MOCC, built on Silo, has its own Options). How the
// commit locks the write set:
//   wait     in row-address order, waiting on each held lock (Silo's paper,
//            section 4.4; DBx1000's VALIDATION_LOCK "waiting");
//   bounded  DBx1000's validate_silo as the optimised configurations of the
//            28-core reference data build it (VALIDATION_LOCK "no-wait",
//            PRE_ABORT "true", BOUNDED_SPINNING true, bound 15): before
//            locking, every row read or written must still carry the TID the
//            access observed (pre-abort), else abort; the write set, in access
//            order (unsorted), is locked with one try per row and each locked
//            row checked the same way; if a lock is held, the locks taken are
//            released, the pre-abort check repeats, and after a back-off of 1,
//            3, 7, then 15 pause rounds the whole set is tried again; a fifth
//            failure aborts. Validation of the reads and the install are as
//            under wait.
//
// Thread safety: plain value type.
#pragma once

#include <string>
#include <vector>

#include "engine/core/options.h"

namespace ccb {

struct SiloOptions {
  std::string validation = "wait";  // --silo_validation: wait | bounded

  static const std::vector<std::string>& validations();  // {"wait", "bounded"}
  bool bounded() const { return validation == "bounded"; }
  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<SiloOptions> flags;
  static SiloOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
