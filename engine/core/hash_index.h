// Concurrent chained hash indexes on 64-bit keys.
//
// ChainedHashIndex<Node> is intrusive: Node carries its own `key` and `next`
// fields. Tables chain their rows through the row header, so a primary-key
// lookup touches one bucket and then the row itself (no separate index node:
// one cache miss less per access). HashIndex is the same structure over
// small key -> pointer nodes, for secondary indexes.
//
// A fixed power-of-two bucket array is sized at creation from the expected
// key count, so chains stay short; they grow gracefully if a table outgrows
// the estimate (as TPC-C's insert tables do). Nodes are never freed.
//
// Thread safety: lookup() and insert() may run concurrently from any threads.
// Inserts are lock-free (CAS on the bucket head); lookups are wait-free.
// INVARIANT: a key appears at most once (insert() is insert-if-absent).
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>

#include "engine/core/memory.h"

namespace ccb {

template <class Node>
class ChainedHashIndex {
 public:
  explicit ChainedHashIndex(uint64_t expected_keys)
      : bits_(bucket_bits(expected_keys)),
        buckets_region_(sizeof(std::atomic<Node*>) << bits_, Placement::kInterleaved),
        buckets_(reinterpret_cast<std::atomic<Node*>*>(buckets_region_.data())) {}

  Node* lookup(uint64_t key) const {
    for (Node* n = buckets_[bucket_of(key)].load(std::memory_order_acquire); n != nullptr; n = n->next)
      if (n->key == key) return n;
    return nullptr;
  }

  // Links `node` (its key set, not yet linked) unless its key is present.
  // Returns false if present.
  bool insert(Node* node) {
    std::atomic<Node*>& head = buckets_[bucket_of(node->key)];
    Node* first = head.load(std::memory_order_acquire);
    for (;;) {
      for (Node* n = first; n != nullptr; n = n->next)
        if (n->key == node->key) return false;
      node->next = first;
      // Only pushes change a head, so on failure rescanning the new prefix
      // would suffice; rescanning the chain is simpler and rare.
      if (head.compare_exchange_weak(first, node, std::memory_order_release, std::memory_order_acquire)) return true;
    }
  }

  // Prefetching ahead of a lookup (Table::prefetch_index/prefetch_row): the
  // key's bucket, and later, once it has arrived, the first node it chains.
  // Neither dereferences a node.
  void prefetch_bucket(uint64_t key) const { __builtin_prefetch(&buckets_[bucket_of(key)]); }
  const Node* first_in_bucket(uint64_t key) const { return buckets_[bucket_of(key)].load(std::memory_order_relaxed); }

  uint64_t bucket_count() const { return uint64_t{1} << bits_; }
  size_t memory_bytes() const { return buckets_region_.size(); }
  // What an index built for `expected_keys` allocates (its bucket array).
  static size_t bytes_for(uint64_t expected_keys) { return sizeof(std::atomic<Node*>) << bucket_bits(expected_keys); }

 private:
  static int bucket_bits(uint64_t expected_keys) {
    return std::bit_width(std::bit_ceil(expected_keys < 16 ? uint64_t{16} : expected_keys) - 1);
  }
  uint64_t bucket_of(uint64_t key) const {
    // Fibonacci hashing: mixes composite keys whose low bits are not random.
    return (key * 0x9E3779B97F4A7C15ull) >> (64 - bits_);
  }
  int bits_;
  Region buckets_region_;
  std::atomic<Node*>* buckets_;
};

struct KeyValueNode {
  uint64_t key;
  void* value;
  KeyValueNode* next;
};

// key -> pointer, nodes from the caller's arena.
class HashIndex {
 public:
  explicit HashIndex(uint64_t expected_keys) : index_(expected_keys) {}
  void* lookup(uint64_t key) const {
    const KeyValueNode* n = index_.lookup(key);
    return n ? n->value : nullptr;
  }
  bool insert(uint64_t key, void* value, Arena& node_arena) {
    auto* node = static_cast<KeyValueNode*>(node_arena.allocate(sizeof(KeyValueNode), alignof(KeyValueNode)));
    node->key = key;
    node->value = value;
    return index_.insert(node);
  }
  size_t memory_bytes() const { return index_.memory_bytes(); }

 private:
  ChainedHashIndex<KeyValueNode> index_;
};

}  // namespace ccb
