// attempt_scratch<Tag, T>(): a per-thread value through which a stored
// procedure hands what its attempt actually did to the on_commit() call that
// follows it.
//
// Why: W::Request is const and pre-generated, and on_commit(ThreadState&,
// const Request&) sees neither the transaction nor the values it read, so an
// effect that depends on data (SmallBank's WriteCheck penalty, the runtime an
// attempt took) cannot be recomputed from the request. The procedure writes
// the effect of every attempt here; only the committed attempt's effect is
// read back, because on_commit runs right after that attempt's commit.
//
// REQUIRES (executor contract, engine/workload.h): on_commit() for a
// request runs on the thread that ran the committed attempt, after that
// attempt's run() and before the thread's next run(). Every executor of the
// engine runs an attempt and its commit on one worker thread.
//
// Under sim (engine/sim/sim.h) the workers are fibers of one OS thread, and
// a fiber may hand it over between run() and on_commit(): each fiber then
// has its own value, by its id.
//
// Thread safety: each thread (fiber) has its own value; `Tag` separates users.
#pragma once

#include <deque>

#include "engine/sim/sim.h"

namespace ccb {

template <class Tag, class T>
T& attempt_scratch() {
  if constexpr (kSimBuild) {
    if (sim::in_fiber()) {
      static std::deque<T> per_fiber;  // a deque: growing it moves no value
      while (per_fiber.size() <= sim::current_id()) per_fiber.emplace_back();
      return per_fiber[sim::current_id()];
    }
  }
  thread_local T value{};
  return value;
}

}  // namespace ccb
