// BCC's chase-tail circular buffers (Yuan et al., PVLDB 9(6) 2016, section
// 5.1): the memory of a thread's read-set tables (engine/cc/bcc/history.h).
// Blocks are released in the order they were allocated, so a release moves
// the tail to a mark taken when the released blocks were the newest; nothing
// is freed one block at a time.
//
// Invariants: tail <= head, head - tail <= capacity; a block lies in one
// piece (it never wraps around the end of the memory); a mark older than the
// tail releases nothing.
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
  // An empty buffer has room for any n <= its size.
  uint8_t* allocate(size_t n) {
    const uint64_t at = place(n);
    if (at + n - tail_after(at) > size_) return nullptr;
    tail_ = tail_after(at);
    head_ = at + n;
    return mem_.data() + (at & (size_ - 1));
  }
  // Whether allocate(n) would succeed now.
  bool fits(size_t n) const {
    const uint64_t at = place(n);
    return at + n - tail_after(at) <= size_;
  }
  uint64_t mark() const { return head_; }
  // Releases every block allocated before mark() returned `mark`.
  // REQUIRES: marks are released in the order they were taken.
  void release_to(uint64_t mark) { tail_ = std::max(tail_, mark); }
  size_t used() const { return head_ - tail_; }
  // Zeroes every byte ever handed out and starts over. REQUIRES: nothing is
  // allocated (every block was released).
  void wipe() {
    assert(tail_ == head_);
    std::memset(mem_.data(), 0, std::min<uint64_t>(head_, size_));
    head_ = tail_ = 0;
  }

 private:
  // Where a block of n bytes would start: at the head, or at the start of the
  // memory if it would otherwise wrap (a block never wraps).
  uint64_t place(size_t n) const {
    const uint64_t offset = head_ & (size_ - 1);
    return offset + n > size_ ? head_ + (size_ - offset) : head_;
  }
  // The tail once a block is placed at `at`: with nothing allocated, the
  // bytes skipped to get there are free too (else an empty buffer could not
  // take a block longer than the room left before its end). release_to keeps
  // the tail from moving back to an older mark.
  uint64_t tail_after(uint64_t at) const { return head_ == tail_ ? at : tail_; }

  Region mem_;
  size_t size_;
  uint64_t head_ = 0, tail_ = 0;
};

}  // namespace ccb::bcc
