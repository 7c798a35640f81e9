// --theta: the Zipf skew of key choice of the workloads that draw keys from a
// Zipf distribution (YCSB, SmallBank, micro). Its own options table
// (key_skew.cpp, kAtStart), which each of those workloads' tables reads as a
// group (CCB_OPTION_GROUP): the flag is checked once, here, and echoed as
// "theta" in the workload's place of the result's "config". A workload flag,
// so it lives on the workloads' side of the engine/workloads line; the engine
// never reads it. The distinct-keys check lives apart (distinct_keys.h), so
// that a program with a --theta flag of its own (bench_fvs, bench_checker)
// can link the generators.
//
// Thread safety: plain value type.
#pragma once

#include "engine/core/options.h"

namespace ccb {

struct KeySkewOptions {
  double theta = 0;  // Zipf skew of key choice (0 = uniform)

  static OptionsTable<KeySkewOptions> flags;  // its row: key_skew.cpp
};

}  // namespace ccb
