// TPC-C random value generation (clauses 2.1.6, 4.3.2): NURand, a-strings,
// n-strings, the C_LAST syllables and the "ORIGINAL" marker.
//
// Thread safety: free functions over a caller-owned Random; NurandConstants is
// an immutable value.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/random.h"

namespace ccb::tpcc {

// The run-time constants C of NURand(A, x, y) (2.1.6). C_LAST uses one value
// while loading and another while running, whose distance must lie in
// [65, 119] and differ from 96 and 112 (2.1.6.1), so the run's names are not
// distributed exactly like the loaded ones.
struct NurandConstants {
  uint32_t c_last_load = 0;  // A = 255
  uint32_t c_last_run = 0;   // A = 255
  uint32_t c_id = 0;         // A = 1023
  uint32_t ol_i_id = 0;      // A = 8191
  static NurandConstants make(uint64_t seed);
};

// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
inline uint32_t nurand(Random& rng, uint32_t a, uint32_t x, uint32_t y, uint32_t c) {
  return static_cast<uint32_t>((((rng.between(0, a) | rng.between(x, y)) + c) % (y - x + 1)) + x);
}

// Uniform integer in [lo, hi] (the spec's random(x, y)).
inline uint32_t uniform(Random& rng, uint32_t lo, uint32_t hi) { return static_cast<uint32_t>(rng.between(lo, hi)); }

// Fills dst[0, len) with random alphanumeric characters (a-string) and
// dst[len, capacity) with NULs, len uniform in [min_len, max_len]. Returns len.
// REQUIRES: min_len <= max_len <= capacity.
size_t random_astring(Random& rng, char* dst, size_t min_len, size_t max_len, size_t capacity);
// Same with decimal digits (n-string).
size_t random_nstring(Random& rng, char* dst, size_t min_len, size_t max_len, size_t capacity);
// Overwrites 8 characters at a random position of dst[0, len) with "ORIGINAL"
// (I_DATA and S_DATA of 10% of the rows, 4.3.3.1). REQUIRES: len >= 8.
void place_original(Random& rng, char* dst, size_t len);
// W_ZIP / D_ZIP / C_ZIP: a random n-string of 4 digits followed by "11111".
void random_zip(Random& rng, char (&zip)[9]);

// C_LAST for the number `n` in [0, 999]: the syllables of its three decimal
// digits (4.3.2.3), e.g. 371 -> "PRICALLYOUGHT". The mapping is one-to-one,
// so the last-name index may be keyed by the number. Writes at most 15
// characters and NUL-pads `out`; returns the length.
size_t last_name(uint32_t n, char (&out)[16]);

}  // namespace ccb::tpcc
