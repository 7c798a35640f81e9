// Assertions on a workload's post-run invariants (Workload::check_invariants),
// shared by every workload's tests.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "engine/workload.h"

namespace ccb::testing {

// Every invariant holds, and there is at least one (a workload that checks
// nothing must not pass silently).
inline void expect_all_hold(const std::vector<InvariantResult>& results) {
  EXPECT_FALSE(results.empty()) << "the workload checked no invariant";
  for (const auto& r : results) EXPECT_TRUE(r.ok) << r.name << ": " << r.detail;
}

inline bool all_hold(const std::vector<InvariantResult>& results) {
  if (results.empty()) return false;
  for (const auto& r : results)
    if (!r.ok) return false;
  return true;
}

}  // namespace ccb::testing
