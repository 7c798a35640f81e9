// Concurrent hash index from 64-bit keys to row pointers.
//
// Separate chaining over a fixed power-of-two bucket array (sized at creation
// from the expected key count, so chains stay short; they grow gracefully if
// a table outgrows the estimate, as TPC-C's insert tables do). Nodes are never
// freed during a run.
//
// Thread safety: lookup() and insert() may run concurrently from any threads.
// Inserts are lock-free (CAS on the bucket head); lookups are wait-free reads.
// INVARIANT: a key appears at most once (insert() is insert-if-absent).
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>

#include "engine/core/memory.h"

namespace ccb {

class HashIndex {
 public:
  struct Node {
    uint64_t key;
    void* value;
    Node* next;
  };

  explicit HashIndex(uint64_t expected_keys)
      : bits_(std::bit_width(std::bit_ceil(expected_keys < 16 ? uint64_t{16} : expected_keys) - 1)),
        buckets_region_(sizeof(std::atomic<Node*>) << bits_),
        buckets_(reinterpret_cast<std::atomic<Node*>*>(buckets_region_.data())) {}

  void* lookup(uint64_t key) const {
    for (Node* n = buckets_[bucket_of(key)].load(std::memory_order_acquire); n != nullptr; n = n->next)
      if (n->key == key) return n->value;
    return nullptr;
  }

  // Inserts key -> value unless the key is present. `node_arena` supplies the
  // node memory (the calling thread's arena). Returns false if present.
  bool insert(uint64_t key, void* value, Arena& node_arena) {
    Node* node = static_cast<Node*>(node_arena.allocate(sizeof(Node), alignof(Node)));
    node->key = key;
    node->value = value;
    return insert_node(node);
  }

  // As insert(), with caller-provided node storage (bulk loading).
  bool insert_node(Node* node) {
    std::atomic<Node*>& head = buckets_[bucket_of(node->key)];
    Node* first = head.load(std::memory_order_acquire);
    for (;;) {
      for (Node* n = first; n != nullptr; n = n->next)
        if (n->key == node->key) return false;
      node->next = first;
      // On failure `first` is reloaded; only pushes change a head, so the keys
      // already scanned need no second look, but rescanning is simpler and rare.
      if (head.compare_exchange_weak(first, node, std::memory_order_release, std::memory_order_acquire))
        return true;
    }
  }

  uint64_t bucket_count() const { return uint64_t{1} << bits_; }
  size_t memory_bytes() const { return buckets_region_.size(); }

 private:
  uint64_t bucket_of(uint64_t key) const {
    // Fibonacci hashing: mixes composite keys whose low bits are not random.
    return (key * 0x9E3779B97F4A7C15ull) >> (64 - bits_);
  }
  int bits_;
  Region buckets_region_;
  std::atomic<Node*>* buckets_;
};

}  // namespace ccb
