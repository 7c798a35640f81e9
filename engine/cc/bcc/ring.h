// BCC's chase-tail circular buffers (Yuan et al., PVLDB 9(6) 2016, section
// 5.1): the memory of a thread's read-set tables (engine/cc/bcc/history.h).
// Blocks are released in the order they were allocated, so a release moves
// the tail to a mark taken when the released blocks were the newest; nothing
// is freed one block at a time.
//
// Invariants: tail <= head, head - tail <= capacity; a block lies in one
// piece (it never wraps around the end of the memory).
// Thread safety: owner thread only (the blocks themselves may be read by
// other threads; the bookkeeping is the owner's).
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "engine/core/memory.h"

namespace ccb::bcc {

class Ring {
 public:
  // REQUIRES: `bytes` is a power of two (offsets are masked, not divided).
  explicit Ring(size_t bytes) : mem_(bytes), size_(bytes) { assert(std::has_single_bit(bytes)); }
  // `n` contiguous bytes (n a multiple of 64, 64-byte aligned), or nullptr.
  uint8_t* allocate(size_t n) {
    uint64_t at = head_;
    const uint64_t offset = at & (size_ - 1);
    if (offset + n > size_) at += size_ - offset;  // a block never wraps
    if (at + n - tail_ > size_) return nullptr;
    head_ = at + n;
    return mem_.data() + (at & (size_ - 1));
  }
  uint64_t mark() const { return head_; }
  // Releases every block allocated before mark() returned `mark`.
  // REQUIRES: marks are released in the order they were taken.
  void release_to(uint64_t mark) { tail_ = mark; }
  size_t used() const { return head_ - tail_; }
  // Zeroes every byte ever handed out and starts over. REQUIRES: nothing is
  // allocated (every block was released).
  void wipe() {
    assert(tail_ == head_);
    std::memset(mem_.data(), 0, std::min<uint64_t>(head_, size_));
    head_ = tail_ = 0;
  }

 private:
  Region mem_;
  size_t size_;
  uint64_t head_ = 0, tail_ = 0;
};

}  // namespace ccb::bcc
