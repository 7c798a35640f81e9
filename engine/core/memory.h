// Large pre-faulted memory regions and per-thread bump arenas.
//
// Tables are loaded into regions that are faulted in at allocation time
// (MAP_POPULATE, transparent huge pages advised), so no page fault happens on
// the measured path. Arenas serve per-thread, per-transaction scratch memory
// (local row copies) and rows/index nodes inserted during a run; nothing on
// the hot path calls malloc.
//
// Thread safety: Region is immutable after construction. An Arena is owned by
// exactly one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ccb {

// Where a region's pages go on a machine with several NUMA nodes (one node:
// no difference). kLocal: the node of the thread that faults them in (the
// kernel's default), for per-thread arenas. kInterleaved: round-robin over
// all nodes (libnuma), for tables and indexes every worker reads at random:
// spread, no node's memory bandwidth serves them all, and every worker sees
// the same average latency, rather than all pages landing on the loader's
// node.
enum class Placement { kLocal, kInterleaved };

// An anonymous, pre-faulted, zero-filled mapping. Move-only.
class Region {
 public:
  Region() = default;
  explicit Region(size_t bytes, Placement placement = Placement::kLocal);
  ~Region();
  Region(Region&& o) noexcept : base_(o.base_), bytes_(o.bytes_) { o.base_ = nullptr; o.bytes_ = 0; }
  Region& operator=(Region&& o) noexcept;
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  uint8_t* data() const { return static_cast<uint8_t*>(base_); }
  size_t size() const { return bytes_; }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

// Bump allocator over a list of pre-faulted chunks. reset() rewinds to the
// start and keeps the chunks, so a steady-state transaction loop allocates
// nothing from the OS.
class Arena {
 public:
  explicit Arena(size_t chunk_bytes = size_t{1} << 20) : chunk_bytes_(chunk_bytes) {}

  // REQUIRES: align is a power of two <= 4096.
  void* allocate(size_t bytes, size_t align = 16) {
    uintptr_t p = (cursor_ + align - 1) & ~(uintptr_t{align} - 1);
    if (p + bytes > limit_) return allocate_slow(bytes, align);
    cursor_ = p + bytes;
    return reinterpret_cast<void*>(p);
  }
  void reset();
  // Bytes of chunks held (for memory statistics).
  size_t reserved_bytes() const { return reserved_; }

 private:
  void* allocate_slow(size_t bytes, size_t align);
  size_t chunk_bytes_;
  std::vector<Region> chunks_;
  size_t current_ = 0;  // index of the chunk cursor_ points into
  uintptr_t cursor_ = 0, limit_ = 0;
  size_t reserved_ = 0;
};

// Bytes this process can still fault in without swapping: the kernel's
// MemAvailable (/proc/meminfo), lowered to the room left under the cgroup's
// memory limit (cgroup v2 memory.max - memory.current) when one is set.
// 0 if neither can be read.
size_t available_memory_bytes();

// The kernel's transparent-huge-page mode, the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise",
// "never"), or "unknown" where the kernel has no THP.
std::string transparent_hugepage_mode();
// Anonymous memory of this process the kernel backs with huge pages now
// (AnonHugePages of /proc/self/smaps_rollup; 0 if unreadable): whether the
// regions' MADV_HUGEPAGE advice was granted (the run JSON's memory section).
size_t huge_page_bytes();

}  // namespace ccb
