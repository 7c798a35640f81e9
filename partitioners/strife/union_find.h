// Concurrent union-find with "special" clusters: Strife, SIGMOD 2020, §4 and
// Figure 4 (Prasaad, Cheung, Suciu).
//
// Nodes are dense indices. The paper orders clusters by record address and
// calls a cluster special when its root address is greater than a constant M;
// here the index plays the role of the address: nodes >= special_threshold()
// are special. Consequences used throughout (Fig. 4):
//   * Union makes the larger root the parent, so a special root always wins
//     over a non-special one and a special root never gets a parent in
//     unite(); unite() refuses (returns false) to join two special clusters.
//   * Every parent pointer only ever grows (a root gets a larger root as its
//     parent; path compression replaces a parent by a larger ancestor), so the
//     forest never has a cycle and concurrent compression is safe.
//
// Thread safety: find() and unite() may run concurrently from any number of
// threads (lock-free; one CAS per link, Fig. 4 line 20 "LP1").
// unite_specials() (the merge step, §3.1.4, which the paper runs on one
// thread) and make_singleton() must not race with operations on the same
// nodes; in Strife they run in the sequential steps or before a join.
// Invariant: parent(x) >= x for every node x.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace ccb::strife {

class ConcurrentUnionFind {
 public:
  using Node = uint32_t;

  // Makes room for `num_nodes` nodes (contents undefined until
  // make_singleton / make_all_singletons); nodes >= special_threshold are
  // special. REQUIRES: num_nodes < 2^32, no concurrent use.
  void resize(size_t num_nodes, Node special_threshold) {
    if (num_nodes > capacity_) {
      parent_ = std::make_unique<std::atomic<Node>[]>(num_nodes);
      capacity_ = num_nodes;
    }
    size_ = num_nodes;
    special_threshold_ = special_threshold;
  }
  size_t size() const { return size_; }
  Node special_threshold() const { return special_threshold_; }
  bool is_special(Node x) const { return x >= special_threshold_; }

  // The current parent of x (x itself for a root); for tests and invariant checks.
  Node parent(Node x) const { return load(x); }

  // REQUIRES: x < size(); no concurrent operation reaches x.
  void make_singleton(Node x) { parent_[x].store(x, std::memory_order_relaxed); }
  void make_all_singletons() {
    for (size_t x = 0; x < size_; ++x) make_singleton(static_cast<Node>(x));
  }

  // Fig. 4 Find: first pass walks to the root; second pass compresses the
  // path, but only toward larger nodes (CompressPath, lines 37-45): a node's
  // parent is replaced by `root` only while it is smaller than root, so a
  // concurrent link that made root a child of an even larger root is never
  // undone. Unlike the figure (which re-reads rec->parent after its CAS and
  // therefore stops after the first node), we continue along the original
  // path so that every node on it is compressed.
  Node find(Node x) {
    Node root = x;
    for (Node p = load(root); p != root; p = load(root)) root = p;
    for (Node rec = x; rec < root;) {
      Node parent = load(rec);
      if (parent < root) parent_[rec].compare_exchange_strong(parent, root, std::memory_order_acq_rel);
      rec = parent;
    }
    return root;
  }

  // Fig. 4 Union. Returns true when a and b end up in one cluster, false
  // (and changes nothing) when their roots are two different special
  // clusters. Lock-free: retries when a concurrent link moved a root.
  bool unite(Node a, Node b) { return link(a, b, /*allow_two_special=*/false); }

  // Merge step (§3.1.4, Alg. 1 line 33): joins two clusters even if both are
  // special. Returns true if they were different clusters before the call.
  bool unite_specials(Node a, Node b) {
    const bool separate = find(a) != find(b);
    link(a, b, /*allow_two_special=*/true);
    return separate;
  }

 private:
  Node load(Node x) const { return parent_[x].load(std::memory_order_acquire); }

  bool link(Node a, Node b, bool allow_two_special) {
    while (true) {
      Node parent = find(a);
      Node child = find(b);
      if (parent == child) return true;
      if (!allow_two_special && is_special(parent) && is_special(child)) return false;
      if (parent < child) std::swap(parent, child);
      // Invariant: parent > child. The CAS succeeds only while child is still
      // a root (LP1); otherwise someone linked it meanwhile and we retry.
      Node expected = child;
      if (parent_[child].compare_exchange_strong(expected, parent, std::memory_order_acq_rel)) return true;
    }
  }

  std::unique_ptr<std::atomic<Node>[]> parent_;
  size_t capacity_ = 0;
  size_t size_ = 0;
  Node special_threshold_ = 0;
};

}  // namespace ccb::strife
