// DlDetect: two-phase locking with deadlock detection on a waits-for graph, as
// DBx1000's DL_DETECT (Yu et al., "Staring into the Abyss", PVLDB 8(3) 2014,
// section 3.1: the graph is partitioned per thread, a waiting transaction
// searches it for a cycle and the victim is the one holding the fewest locks)
// and the DlDetect baseline of Strife (Prasaad et al., SIGMOD 2020, section
// 5.3: "each thread maintains a local partition of the graph and updates it
// only when waiting").
//
// Row metadata (32 bytes, no central lock table): a spin latch protecting a
// RwLockWord, whose holder bits name the holding threads, and the FIFO queue of
// the requests waiting for the row. A request is granted at once when it is
// compatible with the holders and nobody is queued; otherwise it is queued
// (an upgrade of a shared lock goes to the front) and its thread waits on its
// own status word until a releasing transaction grants it the lock, in queue
// order.
//
// Waits-for graph: one partition per thread (Node), written by that thread
// when it starts to wait: the transactions it waits for (the conflicting
// holders and the conflicting requests queued ahead of it), each with the
// transaction id it had then, so an edge to a thread that has moved on to
// another transaction is ignored. Invariant: while a request is queued, its
// partition names every transaction that blocks it directly (a conflicting
// holder or a conflicting request ahead of it). Of the changes a row's queue
// and holders go through while a request waits, a grant moves a request from
// ahead of it to the holders in a mode that conflicts exactly as before, a
// release or a victim's removal only drops blockers, and a new request joins
// the tail, behind it; only an upgrade adds a blocker: the upgrading shared
// holder, which did not block a queued shared request, now does, whether it
// is granted in place or queued at the front. So the upgrader adds itself to
// the partitions of the shared requests queued on the row (add_blocker), under
// the row latch, before anyone can wait for it. As soon as it waits, and every
// kDetectIntervalNs while it waits, the waiter searches the graph depth-first
// from itself, reading each partition under its latch (the wait that closes a
// cycle finds it at once; the periodic search catches cycles whose partitions
// were published concurrently). On a cycle it picks one
// victim, the transaction of the cycle holding the fewest locks (the least
// work lost; the younger one on a tie), and marks it under the latch of the
// row the victim waits for, taking its request out of that queue. Every search
// that finds the same cycle picks the same victim and a request is marked at
// most once, so one deadlock costs exactly one abort (RC::kDeadlock).
//
// Readers read the row in place under their shared lock; writers modify a
// private copy installed at commit; locks are released when the attempt ends
// (strict 2PL, engine/cc_helpers/two_phase_locking.h), granting waiting requests. At
// most 63 worker threads.
#pragma once

#include <atomic>
#include <bit>
#include <vector>

#include "engine/cc_helpers/common.h"
#include "engine/cc_helpers/two_phase_locking.h"
#include "engine/core/clock.h"
#include "engine/core/json.h"

namespace ccb {

class DlDetect : public TwoPhaseLocking<DlDetect> {
 public:
  static constexpr const char* kName = "dldetect";
  static constexpr int kMaxThreads = RwLockWord::kMaxOwners;
  static constexpr uint64_t kDetectIntervalNs = 10'000;  // a search every 10 us of waiting
  // A wait longer than this aborts the waiter (see wait_for_grant): a safety
  // net for a deadlock the search would miss, not part of the protocol. It is
  // far above the longest wait that ends by itself (engine/cc/dldetect/README.md
  // has the waits measured), so it cuts none of those short, and a
  // missed deadlock shows as a visible stall and in deadlock_timeouts rather
  // than as noise. Tests that hold locks on purpose for longer raise it.
  uint64_t wait_timeout_ns = 1'000'000'000;

  // Waits that ended by the timeout rather than by detection, over the whole
  // run (warm-up included): 0 unless the waits-for graph misses a deadlock
  // or a wait lasts that long without one (engine/cc/dldetect/README.md).
  uint64_t deadlock_timeouts() const { return timeouts_.load(std::memory_order_relaxed); }
  void stats_json(JsonWriter& w) const { w.key("deadlock_timeouts").value(deadlock_timeouts()); }
  void reset_stats(uint32_t) {}

  struct Node;
  struct RowMeta {
    SpinLatch latch;  // protects the rest
    RwLockWord lock;
    Node* head = nullptr;  // waiting requests, FIFO
    Node* tail = nullptr;
  };
  struct TxnMeta {};

  enum class Mode : uint8_t { kShared, kExclusive, kUpgrade };
  // A request's state, in the low bits of Node::status; the high bits count
  // the waits of the thread, so a status names one wait.
  enum State : uint64_t { kWaiting = 1, kGranted = 2, kVictim = 3 };
  static constexpr uint64_t status_of(uint64_t wait, State s) { return wait << 2 | s; }

  // A thread's lock request and its partition of the waits-for graph.
  struct alignas(64) Node {
    // Written under the latch of the row the thread waits for (by the thread,
    // a granting releaser or a deadlock search); the thread spins on it. Not
    // a line of the model: the row latch's charges and the wait's spin
    // rounds stand for its transfers.
    Shared<uint64_t, Modelled::kNo> status{0};
    Node* next = nullptr;  // queue link, under the row latch
    Mode mode = Mode::kShared;
    uint32_t thread = 0;
    // The thread's current transaction, for edges drawn to it as a holder
    // (by a waiter, under the row latch: not a line of the model).
    Shared<uint64_t, Modelled::kNo> running{0};
    uint64_t waits = 0;  // owner only: waits so far
    // The partition: what the thread's current wait depends on.
    SpinLatch graph_latch;
    struct Partition {
      uint64_t wait = 0;       // status_of(wait, kWaiting) while this is current
      uint64_t txn = 0;        // the waiting transaction
      uint64_t locks = 0;      // locks it holds (victim choice)
      RowMeta* row = nullptr;  // the row it waits for
      uint64_t edge_mask = 0;  // threads it waits for...
      uint64_t edge_txn[kMaxThreads];  // ...and the transaction each ran then
    } graph;
    std::vector<Partition> search_views;  // owner only: scratch of its searches
  };

  DlDetect() {
    for (int t = 0; t < kMaxThreads; ++t) nodes_[t].thread = static_cast<uint32_t>(t);
  }

  void begin(auto& txn) { nodes_[txn.thread_id()].running.store(txn.id(), std::memory_order_relaxed); }

 private:
  friend TwoPhaseLocking<DlDetect>;
  using Partition = Node::Partition;

  static bool conflicts(Mode a, Mode b) { return a != Mode::kShared || b != Mode::kShared; }
  static bool try_take(RwLockWord& l, Mode m, uint64_t bit) {
    switch (m) {
      case Mode::kShared: return l.try_lock_shared(bit);
      case Mode::kExclusive: return l.try_lock_exclusive(bit);
      case Mode::kUpgrade: return l.try_upgrade(bit);
    }
    return false;
  }

  // The conflict rule: granted at once if compatible and nobody is queued,
  // else queued and waiting, with deadlock detection.
  RC lock(auto& txn, auto& a, LockHeld want) {
    const Mode mode = want == LockHeld::kShared          ? Mode::kShared
                      : a.meta.held == LockHeld::kShared ? Mode::kUpgrade
                                                         : Mode::kExclusive;
    Node& me = nodes_[txn.thread_id()];
    RowMeta& m = a.row->meta;
    const uint64_t bit = RwLockWord::owner_bit(me.thread);
    m.latch.lock();
    if ((m.head == nullptr || mode == Mode::kUpgrade) && try_take(m.lock, mode, bit)) {
      // Granted in place while requests wait: they now wait for this
      // exclusive holder.
      if (mode == Mode::kUpgrade) add_blocker(m.head, me.thread);
      m.latch.unlock();
      return RC::kOk;
    }
    note_contended_latch();  // queued behind a holder or earlier requests
    // Queue the request, then record what it waits for.
    me.mode = mode;
    me.next = nullptr;
    if (mode == Mode::kUpgrade) {
      add_blocker(m.head, me.thread);  // everyone queued is now behind it
      me.next = m.head;
      m.head = &me;
      if (m.tail == nullptr) m.tail = &me;
    } else {
      (m.tail ? m.tail->next : m.head) = &me;
      m.tail = &me;
    }
    const uint64_t wait = ++me.waits;
    me.graph_latch.lock();
    Partition& g = me.graph;
    g.wait = status_of(wait, kWaiting);
    g.txn = txn.id();
    g.locks = txn.accesses().size();
    g.row = &m;
    g.edge_mask = 0;
    const uint64_t word = m.lock.word.unmodelled().load(std::memory_order_relaxed);
    const Mode held = word & RwLockWord::kExclusive ? Mode::kExclusive : Mode::kShared;
    if (conflicts(mode, held))
      for (uint64_t h = RwLockWord::holders(word) & ~bit; h != 0; h &= h - 1) draw_edge(g, std::countr_zero(h));
    for (Node* w = m.head; w != &me; w = w->next)
      if (conflicts(mode, w->mode)) draw_edge(g, w->thread);
    me.graph_latch.unlock();
    me.status.store(g.wait, std::memory_order_release);
    m.latch.unlock();

    return wait_for_grant(me, wait);
  }

  // An edge of partition g to thread u's current transaction (a thread that
  // blocks a queued request keeps its transaction while it does). REQUIRES:
  // the latch of the row g's wait is for, and g's graph_latch.
  void draw_edge(Partition& g, uint32_t u) {
    g.edge_mask |= RwLockWord::owner_bit(u);
    g.edge_txn[u] = nodes_[u].running.load(std::memory_order_relaxed);
  }

  // Thread u, a shared holder of the row, is upgrading (in place or queued at
  // the front): the shared requests queued from `first` on, which it did not
  // block, wait for it from now on. The other modes conflict with every
  // holder, so their partitions already name u. A queued request's partition
  // describes its current wait: the request is queued and its partition
  // written in one critical section of the row latch, and it leaves the queue
  // (under that latch) when its wait ends. REQUIRES: the row latch.
  void add_blocker(Node* first, uint32_t u) {
    for (Node* w = first; w != nullptr; w = w->next) {
      if (w->mode != Mode::kShared) continue;
      w->graph_latch.lock();
      draw_edge(w->graph, u);
      w->graph_latch.unlock();
    }
  }

  // The engine's clock (now_ns(), engine/core/clock.h): under sim the
  // fiber's virtual time, so the searches and the timeout follow the
  // simulated wait (the steady clock here made a simulated run depend on the
  // host's speed: not deterministic).
  RC wait_for_grant(Node& me, uint64_t wait) {
    const uint64_t give_up = now_ns() + wait_timeout_ns;
    uint64_t next_search = now_ns();
    for (SpinWait w;; w.pause()) {
      const uint64_t s = me.status.load(std::memory_order_acquire);
      if (s == status_of(wait, kGranted)) return RC::kOk;
      if (s == status_of(wait, kVictim)) return RC::kDeadlock;
      if (w.rounds() % 16 == 0 && now_ns() >= next_search) {
        search(me.thread);
        const uint64_t now = now_ns();
        next_search = now + kDetectIntervalNs;
        // Safety net (DBx1000's DL_DETECT has one too, TIMEOUT = 1 ms): a
        // wait this long is treated as a deadlock and the waiter aborts itself
        // (under the row latch, so a grant racing with it wins). Counted in
        // deadlock_timeouts.
        if (now >= give_up) {
          mark_victim(me.thread, me.graph);
          if (me.status.load(std::memory_order_acquire) == status_of(wait, kVictim))
            timeouts_.fetch_add(1, std::memory_order_relaxed);
        }
      }
    }
  }

  // Grants queued requests in order while they are compatible with the
  // holders. REQUIRES: m.latch held.
  void grant(RowMeta& m) {
    while (Node* w = m.head) {
      if (!try_take(m.lock, w->mode, RwLockWord::owner_bit(w->thread))) return;
      m.head = w->next;
      if (m.tail == w) m.tail = nullptr;
      w->status.store((w->status.load(std::memory_order_relaxed) & ~uint64_t{3}) | kGranted, std::memory_order_release);
    }
  }

  // Releases the row's lock and grants the requests it was blocking.
  void unlock(auto& txn, auto& a) {
    RowMeta& m = a.row->meta;
    m.latch.lock();
    if (a.meta.held == LockHeld::kExclusive) m.lock.unlock_exclusive();
    else m.lock.unlock_shared(RwLockWord::owner_bit(txn.thread_id()));
    grant(m);
    m.latch.unlock();
  }

  // ---- Deadlock detection ---------------------------------------------------

  // Copies thread u's partition; true if it still describes a wait in progress.
  bool read_partition(uint32_t u, Partition& p) {
    Node& n = nodes_[u];
    n.graph_latch.lock();
    p.wait = n.graph.wait;
    p.txn = n.graph.txn;
    p.locks = n.graph.locks;
    p.row = n.graph.row;
    p.edge_mask = n.graph.edge_mask;
    for (uint64_t e = p.edge_mask; e != 0; e &= e - 1) p.edge_txn[std::countr_zero(e)] = n.graph.edge_txn[std::countr_zero(e)];
    n.graph_latch.unlock();
    return p.wait != 0 && n.status.load(std::memory_order_acquire) == p.wait;
  }

  // A depth-first search of the waits-for graph from thread `self`, which is
  // waiting; marks one victim per cycle found.
  void search(uint32_t self) {
    std::vector<Partition>& views = nodes_[self].search_views;
    if (views.empty()) views.resize(kMaxThreads);
    uint64_t loaded = 0, waiting = 0, visited = 0, on_path = 0;
    uint32_t path[kMaxThreads];
    int depth = 0;
    auto is_waiting = [&](uint32_t u) {
      const uint64_t b = RwLockWord::owner_bit(u);
      if (!(loaded & b)) {
        loaded |= b;
        if (read_partition(u, views[u])) waiting |= b;
      }
      return (waiting & b) != 0;
    };
    // Returns the position in `path` where a cycle starts, or -1.
    auto visit = [&](auto& self_ref, uint32_t u) -> int {
      visited |= RwLockWord::owner_bit(u);
      on_path |= RwLockWord::owner_bit(u);
      path[depth++] = u;
      const Partition& p = views[u];
      for (uint64_t e = p.edge_mask; e != 0; e &= e - 1) {
        const uint32_t v = std::countr_zero(e);
        // Only a waiting transaction, the one the edge was drawn to, can close a cycle.
        if (!is_waiting(v) || views[v].txn != p.edge_txn[v]) continue;
        if (on_path & RwLockWord::owner_bit(v)) {
          int start = 0;
          while (path[start] != v) ++start;
          return start;
        }
        if (!(visited & RwLockWord::owner_bit(v))) {
          const int start = self_ref(self_ref, v);
          if (start >= 0) return start;
        }
      }
      on_path &= ~RwLockWord::owner_bit(u);
      --depth;
      return -1;
    };
    if (!is_waiting(self)) return;
    const int start = visit(visit, self);
    if (start < 0) return;
    uint32_t victim = path[start];
    for (int i = start + 1; i < depth; ++i) {
      const Partition &c = views[path[i]], &best = views[victim];
      if (c.locks < best.locks || (c.locks == best.locks && c.txn > best.txn)) victim = path[i];
    }
    mark_victim(victim, views[victim]);
  }

  // Aborts the wait `p` of thread u, if it is still in progress.
  void mark_victim(uint32_t u, const Partition& p) {
    RowMeta& m = *p.row;
    Node& n = nodes_[u];
    m.latch.lock();
    if (n.status.load(std::memory_order_relaxed) == p.wait) {
      Node* prev = nullptr;
      for (Node* w = m.head; w != &n; w = w->next) prev = w;
      (prev ? prev->next : m.head) = n.next;
      if (m.tail == &n) m.tail = prev;
      n.status.store((p.wait & ~uint64_t{3}) | kVictim, std::memory_order_release);
      grant(m);  // requests queued behind the victim may be compatible now
    }
    m.latch.unlock();
  }

  Node nodes_[kMaxThreads];
  Shared<uint64_t, Modelled::kNo> timeouts_{0};  // a statistic
};

}  // namespace ccb
