// The threads of one run: ThreadGroup runs the run's bodies as OS threads
// natively and, in the sim build, as fibers on virtual cores (engine/core/sim_hooks.h,
// sim::ThreadGroup); LentThreads are the threads an object built before the
// run (a protocol's own threads, e.g. Orthrus's CC threads) lends to it
// under sim.
//
// Thread safety: filled before the run by one thread.
#pragma once

#include <functional>
#include <vector>

#include "engine/core/sim_hooks.h"

namespace ccb {

using ThreadGroup = sim::ThreadGroup;

// Under sim the executor spawns each body as a fiber beside its own, and
// calls every stop() from its coordinator when the run ends, after which the
// bodies return. Natively the object's threads are running already and lends
// none.
struct LentThreads {
  std::vector<std::function<void()>> bodies;
  std::vector<std::function<void()>> stops;
};

}  // namespace ccb
