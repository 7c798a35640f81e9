// keep_alive(v): makes the compiler believe v is used, so benchmark-style
// reads are not optimized away (like Google Benchmark's DoNotOptimize).
#pragma once

#include <cstdint>

namespace ccb {
inline void keep_alive(uint64_t v) { asm volatile("" : : "r"(v) : "memory"); }
}  // namespace ccb
