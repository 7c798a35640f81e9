// The memory-latency bound's measurement (engine/stats/memory_bound.h).
#include "engine/stats/memory_bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "engine/core/json.h"

namespace ccb {
namespace {

// The chase must visit every line once per lap: a permutation that fell
// apart into several cycles would measure a smaller (cached) buffer.
TEST(MemoryBound, LinesFormOneCycleThroughEveryLine) {
  for (size_t lines : {1, 2, 3, 64, 1000, 4099}) {
    std::vector<uint8_t> buffer(lines * 64 + 64);
    uint8_t* base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(buffer.data()) + 63) & ~uintptr_t{63});
    link_random_cycle(base, lines, 7);
    std::vector<int> visits(lines, 0);
    void* p = base;
    for (size_t step = 0; step < lines; ++step) {
      const size_t line = (static_cast<uint8_t*>(p) - base) / 64;
      ASSERT_LT(line, lines);
      ++visits[line];
      p = *static_cast<void**>(p);
    }
    EXPECT_EQ(p, base) << lines << " lines: the chase does not come back after one lap";
    for (size_t i = 0; i < lines; ++i) EXPECT_EQ(visits[i], 1) << "line " << i << " of " << lines;
  }
}

TEST(MemoryBound, OrderIsRandomAndSeeded) {
  std::vector<uint8_t> a(64 * 512), b(64 * 512);
  const auto first = link_random_cycle(a.data(), 512, 1);
  EXPECT_EQ(first, link_random_cycle(b.data(), 512, 1));
  EXPECT_NE(first, link_random_cycle(b.data(), 512, 2));
  size_t in_place = 0;
  for (uint32_t i = 0; i < first.size(); ++i) in_place += first[i] == i;
  EXPECT_LT(in_place, 20u);  // a shuffle leaves about one line in place
}

TEST(MemoryBound, MeasuresLatencyAndParallelism) {
  const MemoryBound b = measure_memory_bound(size_t{1} << 20, 0.005, 3);
  EXPECT_EQ(b.buffer_bytes, size_t{1} << 20);
  EXPECT_TRUE(std::isfinite(b.latency_ns));
  EXPECT_GT(b.latency_ns, 0.0);
  ASSERT_EQ(b.mlp.size(), 4u);
  int chains = 1;
  for (const auto& m : b.mlp) {
    EXPECT_EQ(m.chains, chains *= 2);
    EXPECT_GT(m.ns_per_access, 0.0);
  }
  EXPECT_DOUBLE_EQ(b.access_bound_ns(), 2 * b.latency_ns);
  JsonWriter w;
  w.begin_object();
  write_memory_bound(w, b);
  w.end_object();
  for (const char* key : {"\"latency_ns\"", "\"access_bound_ns\"", "\"mlp_ns_per_access\"", "\"16\"",
                          "\"transparent_hugepages\"", "\"buffer_bytes\""})
    EXPECT_NE(w.str().find(key), std::string::npos) << key;
}

TEST(MemoryBound, RefusesATinyBuffer) {
  EXPECT_THROW(measure_memory_bound(4096, 0.001, 1), std::invalid_argument);
}

}  // namespace
}  // namespace ccb
