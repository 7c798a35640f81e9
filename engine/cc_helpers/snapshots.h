// Read-only snapshot transactions over saved row versions, shared by Silo
// (Tu et al., SOSP 2013, section 4.9) and BCC (Yuan et al., PVLDB 2016,
// section 3).
//
// A snapshot is named by its floor, a TID: it holds, of every row, the newest
// version whose TID is below the floor. The protocol draws floors so that
// every transaction committing a TID below a floor has installed its writes
// before the floor is published, and every later commit takes a TID at or
// above it; its serial order follows TIDs across the floor, so the snapshot is
// the state after a prefix of the serial order and a transaction reading it
// alone is serializable (placed at the floor), is never validated and never
// aborts. Silo draws floors from its epochs (engine/cc/silo/silo.h), BCC at its
// synchronization points (engine/cc/bcc/bcc.h).
//
// Writers keep the versions: before overwriting a row, a committing writer
// that holds the row's lock saves the image a snapshot may still need in the
// row's version chain, newest first. Saved versions live in per-thread chunks,
// each tagged with a floor g such that only snapshots of floors <= g can read
// the versions in it; a chunk is reused once no such snapshot runs or can
// start, i.e. g is below the latest floor and below the floor of every
// running snapshot transaction.
//
// The protocol's RowMeta must have `Shared<uint64_t> tid` (the TID of the
// row's image, bit 0 its lock bit) and `snapshot::Chain old` (the chain).
//
// Under sim no access here is a line of the cost model: a snapshot
// transaction's reads (of the protocol's words through uncharged()), the
// version chains and the floor slots (Shared<T, Modelled::kNo>) cost only
// their local work (docs/sim.md, "Limits").
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "engine/cc_helpers/common.h"
#include "engine/core/memory.h"
#include "engine/core/shared.h"
#include "engine/core/json.h"

namespace ccb {
namespace snapshot {

inline constexpr uint64_t kNoFloor = ~uint64_t{0};

// An overwritten row image kept for snapshot transactions.
struct Version {
  uint64_t tid;    // TID of the image
  Version* older;  // the next older saved image of the row
  uint8_t* data() { return reinterpret_cast<uint8_t*>(this + 1); }
};

// A row's chain of saved images (its RowMeta's `old`), newest first, and a
// protocol's latest snapshot floor: not lines of the model (the file comment).
using Chain = Shared<Version*, Modelled::kNo>;
using Floor = Shared<uint64_t, Modelled::kNo>;


// One thread's saved versions, in chunks tagged with a floor (see the file
// comment). Owner thread only.
class VersionStore {
 public:
  static constexpr size_t kChunkBytes = size_t{256} << 10;
  // The common case is a bump of the newest chunk's cursor.
  Version* allocate(size_t bytes, uint64_t tag) {
    bytes = (bytes + 63) & ~size_t{63};
    if (tag != tag_ || bytes > static_cast<size_t>(limit_ - cursor_)) [[unlikely]]
      start_chunk(bytes, tag);
    auto* v = reinterpret_cast<Version*>(cursor_);
    cursor_ += bytes;
    return v;
  }
  uint64_t oldest_tag() const { return chunks_.empty() ? kNoFloor : chunks_.front().tag; }
  void release_below(uint64_t floor) {
    while (!chunks_.empty() && chunks_.front().tag < floor) {
      free_.push_back(std::move(chunks_.front().mem));
      chunks_.pop_front();
    }
    if (chunks_.empty()) {
      cursor_ = limit_ = nullptr;
      tag_ = kNoFloor;
    }
  }

 private:
  struct Chunk {
    uint64_t tag;
    Region mem;
  };
  void start_chunk(size_t bytes, uint64_t tag) {
    Region mem;
    if (!free_.empty() && free_.back().size() >= bytes) {
      mem = std::move(free_.back());
      free_.pop_back();
    } else {
      mem = Region(std::max(bytes, kChunkBytes));
    }
    cursor_ = mem.data();
    limit_ = mem.data() + mem.size();
    tag_ = tag;
    chunks_.push_back({tag, std::move(mem)});
  }
  std::deque<Chunk> chunks_;
  std::vector<Region> free_;
  uint8_t* cursor_ = nullptr;  // free space of the newest chunk
  uint8_t* limit_ = nullptr;
  uint64_t tag_ = kNoFloor;    // its tag
};

// The snapshot state of all worker threads: what each one reads at and the
// versions it saved. One per protocol instance.
class Snapshots {
 public:
  static constexpr uint32_t kMaxThreads = 1024;  // the engine's --threads limit

  struct Stats {
    uint64_t snapshot_txns = 0;   // read-only transactions run on a snapshot
    uint64_t versions_saved = 0;  // row images saved for them
  };

  // A snapshot transaction of thread t starts: `choose()` returns the floor
  // to read at (the protocol's latest, drawing a new one if it wants), which
  // is published before it is used; `latest` is the protocol's latest floor.
  // Returns the floor.
  template <class ChooseFloor>
  uint64_t begin_read(uint32_t t, const auto& latest, ChooseFloor choose) {
    Slot& s = slot(t);
    for (;;) {
      const uint64_t floor = choose();
      s.reading.store(floor, std::memory_order_seq_cst);
      // Chunks are reused below the latest floor and every published one: if
      // the latest moved before ours was published, a collector may have
      // missed ours, so pick again.
      if (uncharged(latest).load(std::memory_order_seq_cst) == floor) {
        ++s.stats.snapshot_txns;
        return floor;
      }
    }
  }
  void end_read(uint32_t t) { slot(t).reading.store(kNoFloor, std::memory_order_release); }

  // Thread t reads row a.row as of `floor`: the row itself if its TID is
  // below the floor, else the newest saved image below it; kNotFound if the
  // row was created after the snapshot. Out of line, so that the protocols'
  // ordinary reads, which test for a snapshot first, stay small enough to be
  // inlined.
  template <class TxnT, class AccessT>
  [[gnu::noinline]] static RC read(TxnT& txn, AccessT& a, uint64_t floor) {
    uint8_t* dst = a.local ? a.local : txn.make_local(a);
    const size_t n = a.table->data_size();
    auto& meta = a.row->meta;
    const auto& tid_word = uncharged(meta.tid);
    for (SpinWait w;; w.pause()) {
      const uint64_t tid = tid_word.load(std::memory_order_acquire);
      if (tid & 1) continue;  // a writer installs: its chain is complete once it unlocks
      if (tid < floor) {
        racy_copy(dst, a.row->data(), n);
        std::atomic_thread_fence(std::memory_order_acquire);
        if (tid_word.load(std::memory_order_relaxed) != tid) continue;
      } else {
        const Version* v = meta.old.load(std::memory_order_acquire);
        while (v != nullptr && v->tid >= floor) v = v->older;
        if (v == nullptr) return RC::kNotFound;
        std::memcpy(dst, const_cast<Version*>(v)->data(), n);
      }
      a.data = dst;
      return RC::kOk;
    }
  }

  // Thread t, committing, saves the current image of a.row (TID `current`)
  // before overwriting it; `tag`: only snapshots of floors <= tag can need
  // it. REQUIRES: t holds the row's lock.
  template <class AccessT>
  void save(uint32_t t, AccessT& a, uint64_t current, uint64_t tag) {
    Slot& s = slot(t);
    const size_t n = a.table->data_size();
    Version* v = s.store.allocate(sizeof(Version) + n, tag);
    v->tid = current;
    v->older = a.row->meta.old.load(std::memory_order_relaxed);
    racy_copy(v->data(), a.row->data(), n);
    a.row->meta.old.store(v, std::memory_order_release);
    ++s.stats.versions_saved;
  }

  // Thread t reuses its chunks that no snapshot can read any more: tagged
  // below `latest` (the protocol's latest floor) and below every running
  // snapshot transaction's floor. Cheap when there is nothing to reuse.
  void collect(uint32_t t, uint64_t latest) {
    Slot& s = slot(t);
    if (s.store.oldest_tag() >= latest) return;
    const uint32_t n = n_threads_.load(std::memory_order_acquire);
    for (uint32_t u = 0; u < n; ++u)
      if (const Slot* o = slots_[u].load(std::memory_order_acquire))
        latest = std::min(latest, o->reading.load(std::memory_order_seq_cst));
    s.store.release_below(latest);
  }

  // After the workers have stopped.
  Stats total_stats() const {
    Stats total;
    const uint32_t n = n_threads_.load(std::memory_order_acquire);
    for (uint32_t t = 0; t < n; ++t)
      if (const Slot* s = owned_[t].get()) {
        total.snapshot_txns += s->stats.snapshot_txns;
        total.versions_saved += s->stats.versions_saved;
      }
    return total;
  }
  void reset_stats(uint32_t t) { slot(t).stats = Stats{}; }
  void stats_json(JsonWriter& w) const {
    const Stats s = total_stats();
    w.key("snapshot_txns").value(s.snapshot_txns);
    w.key("versions_saved").value(s.versions_saved);
  }

  [[noreturn, gnu::cold, gnu::noinline]] static void declared_read_only_but_writes(const char* protocol, const std::string& table) {
    std::fprintf(stderr, "fatal: %s: a request declared read-only writes table %s\n", protocol, table.c_str());
    std::abort();
  }

 private:
  // The protocol's words read here (a row's TID, its latest floor), without
  // the model (the file comment).
  static const auto& uncharged(const auto& word) { return word.unmodelled(); }

  struct alignas(64) Slot {
    Shared<uint64_t, Modelled::kNo> reading{kNoFloor};  // floor of its running snapshot transaction
    VersionStore store;
    Stats stats;
  };
  // Thread t's slot, made on its first use (by t itself).
  Slot& slot(uint32_t t) {
    assert(t < kMaxThreads);
    if (Slot* s = owned_[t].get()) [[likely]]
      return *s;
    owned_[t] = std::make_unique<Slot>();
    slots_[t].store(owned_[t].get(), std::memory_order_release);
    register_in_count(n_threads_, t);
    return *owned_[t];
  }

  ThreadCount n_threads_{0};
  std::unique_ptr<Shared<Slot*, Modelled::kNo>[]> slots_{new Shared<Slot*, Modelled::kNo>[kMaxThreads]()};
  std::unique_ptr<std::unique_ptr<Slot>[]> owned_{new std::unique_ptr<Slot>[kMaxThreads]};
};

}  // namespace snapshot
}  // namespace ccb
