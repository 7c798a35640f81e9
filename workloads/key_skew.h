// --theta: the Zipf skew of key choice shared by the workloads that draw keys
// from a Zipf distribution (YCSB, SmallBank, micro). A workload flag, so it
// lives on the workloads' side of the engine/workloads line; the engine never
// reads it. (Its own file, apart from distinct_keys.h, so that a program
// with a --theta flag of its own can use the generators.)
#pragma once

namespace ccb {

// The validated --theta (exit 2 naming the flag when out of [0, 10]).
double theta_flag();

}  // namespace ccb
