#include "engine/stats/memory_bound.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "engine/core/memory.h"
#include "engine/core/random.h"
#include "engine/core/json.h"

namespace ccb {
namespace {

constexpr size_t kLine = 64;
volatile uintptr_t observed_sink;  // the chases' results go here, so the loads stay
using Clock = std::chrono::steady_clock;

// `hops` steps of K interleaved chases; returns nanoseconds per load. The
// chases' end points are summed into `sink` so the loads cannot be elided.
template <int K>
double chase(void* const* starts, uint64_t hops, uintptr_t& sink) {
  void* p[K];
  for (int j = 0; j < K; ++j) p[j] = starts[j];
  const auto t0 = Clock::now();
  for (uint64_t i = 0; i < hops; ++i)
    for (int j = 0; j < K; ++j) p[j] = *static_cast<void**>(p[j]);
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  for (int j = 0; j < K; ++j) sink += reinterpret_cast<uintptr_t>(p[j]);
  return ns / static_cast<double>(hops * K);
}

template <int K>
double best_of_three(void* const* starts, double seconds, double guess_ns, uintptr_t& sink) {
  const uint64_t hops = std::max<uint64_t>(1000, static_cast<uint64_t>(seconds * 1e9 / guess_ns / K));
  double best = chase<K>(starts, hops, sink);
  for (int rep = 0; rep < 2; ++rep) best = std::min(best, chase<K>(starts, hops, sink));
  return best;
}

}  // namespace

std::vector<uint32_t> link_random_cycle(uint8_t* base, size_t lines, uint64_t seed) {
  // A random order of every line (Fisher-Yates), linked into one cycle: each
  // load's address depends on the previous load, and no prefetcher can guess
  // the next line.
  std::vector<uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  Random rng(seed);
  for (size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  for (size_t i = 0; i < lines; ++i)
    *reinterpret_cast<void**>(base + size_t{order[i]} * kLine) = base + size_t{order[(i + 1) % lines]} * kLine;
  return order;
}

double MemoryBound::best_mlp_ns_per_access() const {
  double best = latency_ns;
  for (const Mlp& m : mlp) best = std::min(best, m.ns_per_access);
  return best;
}

MemoryBound measure_memory_bound(size_t buffer_bytes, double seconds, uint64_t seed) {
  if (buffer_bytes < (size_t{64} << 10)) throw std::invalid_argument("memory bound: buffer under 64 KiB");
  const size_t lines = buffer_bytes / kLine;
  Region buffer(lines * kLine);
  uint8_t* base = buffer.data();
  const std::vector<uint32_t> order = link_random_cycle(base, lines, seed);

  // K chases start at K points spread evenly along the cycle, so they never
  // share lines within a measurement.
  constexpr int kMaxChains = 16;
  void* starts[kMaxChains];
  auto spread = [&](int k) {
    for (int j = 0; j < k; ++j) starts[j] = base + size_t{order[lines / k * j]} * kLine;
  };

  MemoryBound out;
  out.buffer_bytes = lines * kLine;
  out.transparent_hugepages = transparent_hugepage_mode();
  uintptr_t sink = 0;
  spread(1);
  const double guess = chase<1>(starts, 100'000, sink);  // warms the TLB and calibrates
  out.latency_ns = best_of_three<1>(starts, seconds, guess, sink);
  spread(2);
  out.mlp.push_back({2, best_of_three<2>(starts, seconds, guess, sink)});
  spread(4);
  out.mlp.push_back({4, best_of_three<4>(starts, seconds, guess, sink)});
  spread(8);
  out.mlp.push_back({8, best_of_three<8>(starts, seconds, guess, sink)});
  spread(16);
  out.mlp.push_back({16, best_of_three<16>(starts, seconds, guess, sink)});
  observed_sink = sink;
  return out;
}

void write_memory_bound(JsonWriter& w, const MemoryBound& b) {
  w.key("buffer_bytes").value(static_cast<uint64_t>(b.buffer_bytes));
  w.key("transparent_hugepages").value(b.transparent_hugepages);
  w.key("latency_ns").value(b.latency_ns);
  w.key("access_bound_ns").value(b.access_bound_ns());
  w.key("mlp_ns_per_access").begin_object();
  for (const auto& m : b.mlp) w.key(std::to_string(m.chains)).value(m.ns_per_access);
  w.end_object();
  w.key("best_mlp_ns_per_access").value(b.best_mlp_ns_per_access());
}

}  // namespace ccb
