#include "engine/core/memory.h"

#include <glog/logging.h>
#include <numa.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

namespace ccb {

Region::Region(size_t bytes, Placement placement) : bytes_(bytes) {
  if (bytes == 0) return;
  base_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base_ == MAP_FAILED) {
    base_ = nullptr;
    throw std::runtime_error("out of memory: cannot map " + std::to_string(bytes >> 20) +
                             " MiB (" + std::strerror(errno) + ")");
  }
  // Transparent huge pages cut TLB misses on large tables. The advice must
  // come before the pages are faulted in, so populate only afterwards:
  // MADV_POPULATE_WRITE (Linux 5.14) or, failing that, one write per page.
  // Where the kernel has no THP (CONFIG_TRANSPARENT_HUGEPAGE off, or the
  // mode "never"), the tables use base pages: correct, only slower on large
  // tables, so a warning (once per process) rather than an error.
  if (madvise(base_, bytes, MADV_HUGEPAGE) != 0) {
    static std::once_flag warned;
    const int err = errno;
    std::call_once(warned, [err] {
      LOG(WARNING) << "madvise(MADV_HUGEPAGE) failed (" << std::strerror(err)
                   << "): tables and indexes use base pages (no transparent huge pages)";
    });
  }
  // Before the pages are faulted in, like the advice.
  if (placement == Placement::kInterleaved && numa_available() != -1 && numa_num_configured_nodes() > 1)
    numa_interleave_memory(base_, bytes, numa_all_nodes_ptr);
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  if (madvise(base_, bytes, MADV_POPULATE_WRITE) != 0) {
    volatile uint8_t* p = static_cast<uint8_t*>(base_);
    for (size_t off = 0; off < bytes; off += 4096) p[off] = 0;
  }
}

Region::~Region() {
  if (base_ != nullptr) munmap(base_, bytes_);
}

Region& Region::operator=(Region&& o) noexcept {
  if (this != &o) {
    if (base_ != nullptr) munmap(base_, bytes_);
    base_ = o.base_;
    bytes_ = o.bytes_;
    o.base_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

void Arena::reset() {
  current_ = 0;
  if (chunks_.empty()) {
    cursor_ = limit_ = 0;
    return;
  }
  cursor_ = reinterpret_cast<uintptr_t>(chunks_[0].data());
  limit_ = cursor_ + chunks_[0].size();
}

void* Arena::allocate_slow(size_t bytes, size_t align) {
  // Move to the next kept chunk, or map a new one big enough.
  for (;;) {
    if (!chunks_.empty() && current_ + 1 < chunks_.size()) {
      ++current_;
    } else {
      size_t size = chunk_bytes_;
      while (size < bytes + align) size *= 2;
      chunks_.emplace_back(size);
      reserved_ += size;
      current_ = chunks_.size() - 1;
    }
    cursor_ = reinterpret_cast<uintptr_t>(chunks_[current_].data());
    limit_ = cursor_ + chunks_[current_].size();
    uintptr_t p = (cursor_ + align - 1) & ~(uintptr_t{align} - 1);
    if (p + bytes <= limit_) {
      cursor_ = p + bytes;
      return reinterpret_cast<void*>(p);
    }
  }
}

static bool read_number(const char* path, size_t& out) {
  std::ifstream f(path);
  std::string word;
  if (!(f >> word) || word == "max") return false;
  out = std::stoull(word);
  return true;
}

size_t available_memory_bytes() {
  size_t available = 0;
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  size_t kib = 0;
  while (meminfo >> name >> kib) {
    if (name == "MemAvailable:") {
      available = kib << 10;
      break;
    }
    meminfo.ignore(64, '\n');
  }
  size_t limit = 0, used = 0;
  if (read_number("/sys/fs/cgroup/memory.max", limit) && read_number("/sys/fs/cgroup/memory.current", used)) {
    const size_t room = limit > used ? limit - used : 0;
    if (available == 0 || room < available) available = room;
  }
  return available;
}

std::string transparent_hugepage_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return "unknown";
  const size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "unknown";
  return line.substr(open + 1, close - open - 1);
}

size_t huge_page_bytes() {
  std::ifstream smaps("/proc/self/smaps_rollup");
  std::string name;
  size_t kib = 0;
  while (smaps >> name) {
    if (name == "AnonHugePages:" && smaps >> kib) return kib << 10;
    smaps.ignore(1 << 12, '\n');
  }
  return 0;
}

}  // namespace ccb
