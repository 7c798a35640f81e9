// The memory-latency bound of this machine, measured on the machine itself
// (`--memory_bound`; `make bench` prints it beside every YCSB point).
//
// An engine access that misses the caches costs about two dependent memory
// latencies: the index bucket, then the row it points to. So the figure of
// merit of the hot path is its cost per access divided by 2 x the latency
// measured here (`access_bound_ns`). Independent accesses can overlap
// (memory-level parallelism): `mlp` reports the cost per access with k
// independent pointer chases in flight, the bound a transaction that
// prefetches its declared accesses could approach.
//
// The buffer is a Region (engine/core/memory.h), mapped, advised and faulted
// in exactly as the tables are, and as large as the caller asks (the run's
// table estimate), so TLB and cache effects match the engine's own.
//
// Thread safety: measure_memory_bound runs on the calling thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ccb {

class JsonWriter;

struct MemoryBound {
  size_t buffer_bytes = 0;
  std::string transparent_hugepages;  // the kernel's THP mode ("always", "madvise", "never", "unknown")
  double latency_ns = 0;              // one dependent load over the buffer (pointer chase)
  struct Mlp {
    int chains = 0;                   // independent chases interleaved
    double ns_per_access = 0;
  };
  std::vector<Mlp> mlp;
  double access_bound_ns() const { return 2 * latency_ns; }  // index bucket + row
  double best_mlp_ns_per_access() const;
};

// Links the buffer's cache lines into one cycle in a random order and chases
// it for about `seconds` per measurement, best of three (the least disturbed
// by other processes). REQUIRES: buffer_bytes >= 64 KiB.
MemoryBound measure_memory_bound(size_t buffer_bytes, double seconds, uint64_t seed);

// Links the `lines` 64-byte lines at `base` into one cycle in a random order:
// the first 8 bytes of each line point to the next line. Returns the order
// (order[i] is the i-th line of the cycle). REQUIRES: lines >= 1, lines < 2^32.
std::vector<uint32_t> link_random_cycle(uint8_t* base, size_t lines, uint64_t seed);

void write_memory_bound(JsonWriter& w, const MemoryBound& bound);  // members of an open object

}  // namespace ccb
