// The local work of a transaction attempt, as the cost model charges it:
// an attempt's begin, commit and abort, each index probe, row read, row
// write, install and insert (Txn, engine/txn/txn.h; a message-passing owner's
// lock-table probe, engine/cc_helpers/message_locks.h). Natively charge_local_work is
// an empty inline function; under the simulation (engine/core/sim_hooks.h) it
// advances the virtual core's clock by the cost table's entry, scaled by the
// transaction type's --sim_work_scale, and an index probe may hand the OS
// thread to another virtual core.
//
// Thread safety: the calling thread's own clock only.
#pragma once

#include <cstdint>

#include "engine/core/sim_hooks.h"

namespace ccb {

// The cost table's operations (sim::Op; the ones before kAtomicRmw are local
// work, the rest are charged by the shared primitives: shared.h, latch.h, spin.h).
using Work = sim::Op;

[[gnu::always_inline]] inline void charge_local_work(Work op) { sim::charge(op); }

// The analysis's cost (a front-end's or planner's work on a batch; docs/sim.md,
// "The analysis's cost"): `probes` index probes of the work type in scope,
// which the caller sets to the analysis's (sim::ScopedWorkType). The one
// per-key charge of the front-ends: each primitive step of an analysis (a key
// looked up, a cost estimate, a planner's cells) is one probe. Natively
// nothing.
inline void charge_analysis_probes(uint64_t probes) {
  if constexpr (kSimBuild)
    for (; probes > 0; --probes) sim::charge(sim::Op::kIndexProbe);
}

}  // namespace ccb
