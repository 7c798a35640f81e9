// A short, high-contention YCSB run under protocol CC with history recording
// (tests/support/verified_run.h), for the engine's stress and mutation tests.
#pragma once

#include "tests/support/verified_run.h"

namespace ccb::testing_support {

template <class CC>
test_support::VerifiedRun run_contended_ycsb(double seconds, uint64_t seed) {
  YcsbWorkload<CC> workload(test_support::contended_ycsb());
  workload.load(2);
  CC cc;
  return test_support::run_verified(cc, workload, {.threads = 4, .seconds = seconds, .seed = seed});
}

}  // namespace ccb::testing_support
