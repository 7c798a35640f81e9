// WaitDie's own flags (--waitdie_read_then_upgrade, --waitdie_latched_reads),
// declared by the protocol (WaitDie::Options, engine/cc/waitdie/waitdie.h;
// rows in options.cpp): only bin/rundb-waitdie defines them (its generated
// main(), rundb/main.h), so every other program refuses them as unknown flags.
// Both make WaitDie the 2PL baseline as the BCC paper built it (§5.2, §6):
//   read_then_upgrade  a read-modify-write takes the row's read lock first and
//                      then upgrades it, as Silo's TPC-C (a get, then a put)
//                      runs under 2PL (§6.2: "they need to acquire both read
//                      lock and write lock on the contended tuple ... only one
//                      thread can wait for the write lock while the rest are
//                      aborted"); off, the exclusive lock is taken at once;
//   latched_reads      a read lock is taken and released under the lock word's
//                      latch (§6.1: "Each read operation needs to acquire and
//                      release a latch-protected read lock"): a
//                      compare-and-swap sets the latch, a store clears it,
//                      readers serialize on it; off, one compare-and-swap.
//
// Thread safety: plain value type.
#pragma once

#include "engine/core/options.h"

namespace ccb {

struct WaitDieOptions {
  bool read_then_upgrade = false;  // --waitdie_read_then_upgrade
  bool latched_reads = false;      // --waitdie_latched_reads

  // Its rows (options.cpp), defined by the program (kByProgram).
  static OptionsTable<WaitDieOptions> flags;
  static WaitDieOptions from_flags() { return flags.read(); }
  void to_json(JsonWriter& w) const { flags.write(*this, w); }  // members of "config"
};

}  // namespace ccb
