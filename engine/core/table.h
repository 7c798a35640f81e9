// Tables of fixed-size rows.
//
// Row layout (one contiguous block per row):
//   [ CC::RowMeta ][ key ][ next ][ version : u64 ][ payload : payload_size bytes ]
//                                 \__________ "data", data_size() bytes ____________/
// `key` and `next` chain the row into its table's primary index.
// The protocol's metadata lives in the row header (README.md, design
// property 1). The version word is part of the data a protocol copies, so the
// version a transaction observed is always consistent with the bytes it read;
// it holds the id of the transaction that installed the row image (0 = loader)
// and feeds the serializability checker (engine/verify).
//
// Thread safety: load() may be called concurrently for distinct slots during
// loading; lookup()/insert_row()/publish() are safe at any time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/hash_index.h"
#include "engine/core/memory.h"

namespace ccb {

inline constexpr size_t kVersionBytes = sizeof(uint64_t);

template <class CC>
struct Row {
  typename CC::RowMeta meta;
  uint64_t key;
  Row* next;  // primary index chain
  uint8_t* data() { return reinterpret_cast<uint8_t*>(this) + sizeof(Row); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this) + sizeof(Row); }
};

// A table's constructor arguments: id, name, payload bytes per row, row slots
// reserved (and pre-faulted) for loading, and the keys its index is sized for.
struct TableShape {
  uint32_t id;
  const char* name;
  size_t payload_size;
  uint64_t initial_rows;
  uint64_t expected_rows;
};

template <class CC>
class Table {
 public:
  static constexpr uint32_t kMaxThreads = 1024;  // --threads is at most this
  using RowT = Row<CC>;
  static_assert(sizeof(RowT) % 8 == 0, "CC::RowMeta must be a multiple of 8 bytes");

  // payload_size is rounded up to 8 bytes. `initial_rows` slots are reserved
  // (pre-faulted) for loading; `expected_rows` sizes the index.
  Table(uint32_t id, std::string name, size_t payload_size, uint64_t initial_rows, uint64_t expected_rows)
      : id_(id),
        name_(std::move(name)),
        payload_size_((payload_size + 7) & ~size_t{7}),
        row_stride_(row_stride_for(payload_size)),
        initial_rows_(initial_rows),
        rows_(row_stride_ * initial_rows, Placement::kInterleaved),
        index_(index_keys(initial_rows, expected_rows)) {}
  explicit Table(const TableShape& s) : Table(s.id, s.name, s.payload_size, s.initial_rows, s.expected_rows) {}

  // What the constructor allocates (and pre-faults) for these arguments: the
  // row slots and the index's buckets. Rows inserted later come on top.
  static size_t bytes_for(size_t payload_size, uint64_t initial_rows, uint64_t expected_rows) {
    return row_stride_for(payload_size) * initial_rows +
           ChainedHashIndex<RowT>::bytes_for(index_keys(initial_rows, expected_rows));
  }
  static size_t bytes_for(const TableShape& s) { return bytes_for(s.payload_size, s.initial_rows, s.expected_rows); }

  uint32_t id() const { return id_; }
  const std::string& name() const { return name_; }
  size_t payload_size() const { return payload_size_; }
  size_t data_size() const { return kVersionBytes + payload_size_; }
  size_t row_stride() const { return row_stride_; }

  // Loading: place row `key` in slot `slot` (< initial_rows) with version 0
  // and index it; returns its payload to fill. Not transactional.
  uint8_t* load(uint64_t slot, uint64_t key) {
    RowT* row = slot_row(slot);
    new (&row->meta) typename CC::RowMeta();
    row->key = key;
    if (!index_.insert(row)) throw std::logic_error("table " + name_ + ": duplicate key loaded");
    return row->data() + kVersionBytes;  // version word is already 0 (zeroed region)
  }

  RowT* lookup(uint64_t key) const { return index_.lookup(key); }

  // Prefetching the lookup of `key` and its row ahead of the access
  // (Txn::prefetch): prefetch_index() the bucket, then, once the bucket has
  // had time to arrive, prefetch_row() the first row its chain holds (the
  // row itself: a bucket chains about one row), its first kPrefetchRowLines
  // cache lines (header, version and the start of the payload; the hardware
  // prefetcher streams the rest of a long row).
  static constexpr size_t kPrefetchRowLines = 4;
  void prefetch_index(uint64_t key) const { index_.prefetch_bucket(key); }
  void prefetch_row(uint64_t key) const {
    const auto start = reinterpret_cast<uintptr_t>(index_.first_in_bucket(key));
    if (start == 0) return;
    const uintptr_t end = std::min(start + row_stride_, (start & ~uintptr_t{63}) + kPrefetchRowLines * 64);
    for (uintptr_t line = start & ~uintptr_t{63}; line < end; line += 64)
      __builtin_prefetch(reinterpret_cast<const void*>(line));
  }

  // A fresh, unindexed row for an insert (zeroed data, default metadata),
  // from the calling thread's arena: inserted rows live as long as the table,
  // whichever thread made them. REQUIRES: thread_id < kMaxThreads, and each
  // thread id used by one thread at a time.
  RowT* allocate_row(uint32_t thread_id) {
    auto& arena = insert_arenas_[thread_id];
    if (arena == nullptr) arena = std::make_unique<Arena>(size_t{1} << 20);
    void* mem = arena->allocate(row_stride_, 8);
    std::memset(mem, 0, row_stride_);
    RowT* row = static_cast<RowT*>(mem);
    new (&row->meta) typename CC::RowMeta();
    return row;
  }
  // Makes an inserted row visible. Returns false if the key exists.
  bool publish(uint64_t key, RowT* row) {
    row->key = key;
    return index_.insert(row);
  }

  RowT* slot_row(uint64_t slot) const { return reinterpret_cast<RowT*>(rows_.data() + slot * row_stride_); }
  uint64_t initial_rows() const { return initial_rows_; }
  size_t memory_bytes() const { return rows_.size() + index_.memory_bytes(); }

 private:
  static size_t row_stride_for(size_t payload_size) {
    return sizeof(RowT) + kVersionBytes + ((payload_size + 7) & ~size_t{7});
  }
  static uint64_t index_keys(uint64_t initial_rows, uint64_t expected_rows) {
    return expected_rows > initial_rows ? expected_rows : initial_rows;
  }

  uint32_t id_;
  std::string name_;
  size_t payload_size_, row_stride_;
  uint64_t initial_rows_;
  Region rows_;
  ChainedHashIndex<RowT> index_;
  std::vector<std::unique_ptr<Arena>> insert_arenas_ = std::vector<std::unique_ptr<Arena>>(kMaxThreads);
};

// Reads the version word at the start of a row image.
inline uint64_t image_version(const uint8_t* data) {
  uint64_t v;
  std::memcpy(&v, data, sizeof v);
  return v;
}
inline void set_image_version(uint8_t* data, uint64_t v) { std::memcpy(data, &v, sizeof v); }

}  // namespace ccb
