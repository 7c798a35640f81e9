// The local work of a transaction attempt, as the cost model charges it:
// an attempt's begin, commit and abort, each index probe, row read, row
// write, install and insert (Txn, engine/cc/txn.h; a message-passing owner's
// lock-table probe, engine/cc/message_locks.h). Natively charge_local_work is
// an empty inline function; under the simulation (engine/core/sim_hooks.h) it
// advances the virtual core's clock by the cost table's entry, scaled by the
// transaction type's --sim_work_scale, and an index probe may hand the OS
// thread to another virtual core.
//
// Thread safety: the calling thread's own clock only.
#pragma once

#include "engine/core/sim_hooks.h"

namespace ccb {

// The cost table's operations (sim::Op; the ones before kAtomicRmw are local
// work, the rest are charged by the shared primitives: shared.h, latch.h, spin.h).
using Work = sim::Op;

[[gnu::always_inline]] inline void charge_local_work(Work op) { sim::charge(op); }

}  // namespace ccb
