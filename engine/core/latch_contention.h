// Contended latch acquisitions: the testbed's substitute for the mutrace count
// "#contended_mutex" of TSKD §6.3 ("the total number of times that a mutex was
// contended (already locked when a lock request was made)"; the
// paper counts it with mutrace). A protocol notes an acquisition of a row latch or lock
// whose first try failed: the word was held, or the compare-and-swap lost.
// Each acquisition counts at most once, however long it then spins or waits.
//
// The count lives in a thread-local counter, so the uncontended path costs
// nothing and the contended path one thread-local increment; the executor
// reads each worker's counter at the start and end of the measured interval
// (result field contended_latch_acquisitions, docs/results.md).
//
// Thread safety: each thread touches only its own counter.
#pragma once

#include <cstdint>

namespace ccb {

inline thread_local uint64_t tls_contended_latch_acquisitions = 0;

// One failed try of an acquisition that does not retry (NoWait: the attempt
// aborts) or that the caller counts itself.
inline void note_contended_latch() { ++tls_contended_latch_acquisitions; }

// One acquisition that retries until it succeeds: construct it with the
// loop, call note() after every failed try; only the first one counts.
class LatchAcquisition {
 public:
  void note() {
    if (!contended_) {
      contended_ = true;
      note_contended_latch();
    }
  }

 private:
  bool contended_ = false;
};

}  // namespace ccb
