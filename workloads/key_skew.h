// --theta: the Zipf skew of key choice shared by the workloads that draw keys
// from a Zipf distribution (YCSB, SmallBank, micro). A workload flag, so it
// lives on the workloads' side of the engine/workloads line; the engine never
// reads it. YCSB's table defines it (ycsb_options.cpp); SmallBank's and
// micro's share it (CCB_SHARED_OPTION), each with this check.
// The distinct-keys check lives apart (distinct_keys.h), so that a program
// with a --theta flag of its own can link the generators.
#pragma once

#include "engine/core/options.h"

namespace ccb {

inline Accepts theta_accepts() { return range(0, 10, "a number"); }

}  // namespace ccb
