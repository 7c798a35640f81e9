// Fast deterministic pseudo-random numbers for workload generation.
//
// Every worker thread owns one Random seeded from (--seed, thread id) through
// seed_for(), so a run is reproducible for a given seed and thread count.
// Thread safety: a Random is not shared; each thread has its own.
#pragma once

#include <cstdint>

namespace ccb {

// SplitMix64 (Steele et al.): used to expand one seed into independent streams.
constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Seed of stream `stream` (e.g. a thread id) derived from a run's global seed.
constexpr uint64_t seed_for(uint64_t global_seed, uint64_t stream) {
  uint64_t s = global_seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
  return splitmix64(s);
}

// xoshiro256** (Blackman & Vigna): small state, fast, good statistical quality.
class Random {
 public:
  explicit Random(uint64_t seed = 1) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 bits of precision.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n). REQUIRES: n > 0. (Lemire's multiply-shift.)
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // Uniform integer in [lo, hi]. REQUIRES: lo <= hi.
  uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
  // True with probability p.
  bool chance(double p) { return uniform() < p; }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace ccb
