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
// Thread safety: each thread has its own value; `Tag` separates users.
#pragma once

namespace ccb {

template <class Tag, class T>
T& attempt_scratch() {
  thread_local T value{};
  return value;
}

}  // namespace ccb
