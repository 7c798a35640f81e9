// Version storage of the multi-version protocols (Cicada, ERMIA, SI:
// engine/cc/cicada/cicada.h, ermia.h, si.h): per-row version chains, their memory,
// and their garbage collection.
//
// Layout. A multi-version protocol's RowMeta is a RowVersions, so only its
// rows carry it (Row<CC> embeds CC::RowMeta: the row layout follows the
// protocol, and single-version protocols pay nothing). The row's own data is
// the *inlined* newest committed version (Cicada's inlining, Lim et al.,
// SIGMOD 2017, section 3.2, which Cicada does best-effort; here the newest
// version is always inline): the common read of the latest version touches
// the row and nothing else, and everything that reads a table outside a
// transaction (loaders, invariants, the CC-free mode) sees the newest image.
// Older versions hang off the row in a chain, newest first; a writer, holding
// the row's lock, copies the inline image into a chain Version before it
// overwrites it. Every version carries its write stamp (wts: Cicada's
// timestamp, or SI's commit stamp); the inline one also a read stamp (rts:
// Cicada's read timestamp, ERMIA's pstamp), the chain ones the successor
// stamp sstamp (ERMIA) that their overwriter set.
//
// Visibility. A transaction reads at `read_ts`: it sees the newest version
// with wts < read_ts. A chain is ordered by wts (writers install only above
// the newest version), so a reader stops at the first visible version.
//
// Garbage collection (Cicada section 3.8, "rapid garbage collection", with
// quiescent-state reclamation). A version overwritten by a version of stamp
// s is needed only by readers with read_ts <= s. Every worker publishes a
// *bound*, a lower bound of every read_ts it will still use (its current
// read_ts: read stamps only grow per thread); M, the minimum of the published
// bounds, is recomputed every kCollectEvery commits of a thread. A version
// whose overwriter's stamp is below M is unreachable: every reader stops at
// its overwriter or earlier. Each thread allocates the versions it saves in
// chunks, in the order of its own commits (so of growing overwriter stamps),
// and recycles a chunk once the stamp of its last overwriter is below M.
// Pointers into a recycled chunk may remain in a chain below a version no
// reader passes; no reader follows them.
//
// Thread safety: a VersionStore belongs to one thread. GcBounds is shared:
// publish() by the owner, the minimum under a latch (register_thread too, so
// a thread that joins late cannot publish a bound below a minimum already
// used).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/core/memory.h"
#include "engine/core/shared.h"
#include "engine/core/sim_hooks.h"
#include "engine/core/spin.h"

namespace ccb::mv {

// Bit 63 of RowVersions::word: the row is locked by a committing writer.
inline constexpr uint64_t kLockBit = uint64_t{1} << 63;
inline constexpr uint64_t kStampMask = kLockBit - 1;
// A stamp above every stamp in use: ERMIA's sstamp of a version nobody
// overwrote, an unset bound.
inline constexpr uint64_t kInfinity = kStampMask;
// read_visible()'s answer when no version is visible (the row was inserted
// after the reader's timestamp).
inline constexpr uint64_t kNoVersion = ~uint64_t{0};

struct RowVersions;

// An older version of a row, in a chain. Immutable once linked, except
// sstamp, which its overwriter sets before it unlocks the row.
struct Version {
  uint64_t wts;                 // write stamp of this image
  Shared<uint64_t, Modelled::kNo> sstamp;  // ERMIA: the overwriter's successor stamp (the version's line charged as a whole)
  Version* older;               // the next older version
  RowVersions* row;             // the row (its chain count drops at reclamation)
  uint64_t bytes;               // this record's size, header included
  uint8_t* data() { return reinterpret_cast<uint8_t*>(this + 1); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this + 1); }
};
static_assert(sizeof(Version) % 8 == 0);

// The row header of a multi-version protocol (its CC::RowMeta).
// Default-constructed: unlocked, the loader's version (wts 0), no chain.
struct RowVersions {
  // kLockBit | a stamp. Unlocked: the inline version's wts. Locked: the
  // protocol's (Cicada: the pending version's timestamp; SI and ERMIA: the
  // inline wts, kept).
  Shared<uint64_t> word{0};
  // The words after `word`, on its line, are not charged one by one: a
  // reader's line was charged by its load of `word`, a writer charges the
  // row's line once for a group (write_line) or its read-modify-write
  // (charge_line_rmw); reclamation's count is not a line of the model.
  Shared<uint64_t, Modelled::kNo> wts{0};  // the inline version's wts, also while locked
  Shared<uint64_t, Modelled::kNo> rts{0};  // the inline version's read stamp
  Shared<Version*, Modelled::kNo> older{nullptr};
  Shared<uint32_t, Modelled::kNo> chain{0};  // chain versions not yet reclaimed
  uint32_t unused = 0;
};
static_assert(sizeof(RowVersions) % 8 == 0);

// Counters of one thread; summed after the run (the protocols' cc_stats).
struct VersionStats {
  static constexpr size_t kChainBuckets = 64;  // chain lengths 0..62, and 63 or more
  uint64_t created = 0;                        // versions saved into chains
  uint64_t reclaimed = 0;                      // versions recycled by the GC
  std::array<uint64_t, kChainBuckets> chain_length{};  // a row's chain length after each save

  void note_chain(uint32_t length) { ++chain_length[std::min<size_t>(length, kChainBuckets - 1)]; }
  void add(const VersionStats& o) {
    created += o.created;
    reclaimed += o.reclaimed;
    for (size_t i = 0; i < kChainBuckets; ++i) chain_length[i] += o.chain_length[i];
  }
  // The smallest length L with at least q of the saves at chains <= L (0 with
  // no saves); the last bucket means "63 or more".
  uint64_t chain_quantile(double q) const {
    uint64_t total = 0;
    for (uint64_t c : chain_length) total += c;
    if (total == 0) return 0;
    uint64_t seen = 0;
    for (size_t i = 0; i < kChainBuckets; ++i) {
      seen += chain_length[i];
      if (static_cast<double>(seen) >= q * static_cast<double>(total)) return i;
    }
    return kChainBuckets - 1;
  }
};

// One thread's saved versions, in chunks in commit order. Owner thread only,
// except bytes_held(), read after the run.
class VersionStore {
 public:
  static constexpr size_t kChunkBytes = size_t{256} << 10;
  static constexpr size_t kKeptFreeChunks = 4;  // recycled chunks kept; more go back to the OS

  // Room for a version of `data_bytes` that a commit of stamp `stamp`
  // overwrites. REQUIRES: stamps passed by one thread never decrease.
  Version* allocate(size_t data_bytes, uint64_t stamp, VersionStats& stats) {
    const size_t bytes = (sizeof(Version) + data_bytes + 7) & ~size_t{7};
    if (chunks_.empty() || bytes > chunks_.back().mem.size() - chunks_.back().used) [[unlikely]]
      start_chunk(bytes);
    Chunk& c = chunks_.back();
    auto* v = reinterpret_cast<Version*>(c.mem.data() + c.used);
    c.used += bytes;
    c.last_stamp = stamp;
    v->bytes = bytes;
    ++stats.created;
    return v;
  }

  // Recycles every chunk whose versions were all overwritten below `min_bound`
  // (GcBounds::minimum): no reader can reach them.
  void collect(uint64_t min_bound, VersionStats& stats) {
    while (!chunks_.empty() && chunks_.front().last_stamp < min_bound) {
      Chunk& c = chunks_.front();
      for (size_t off = 0; off < c.used;) {
        auto* v = reinterpret_cast<Version*>(c.mem.data() + off);
        v->row->chain.fetch_sub(1, std::memory_order_relaxed);
        ++stats.reclaimed;
        off += v->bytes;
      }
      if (free_.size() < kKeptFreeChunks && c.mem.size() == kChunkBytes) {
        free_.push_back(std::move(c.mem));
      } else {
        held_.fetch_sub(c.mem.size(), std::memory_order_relaxed);
      }
      chunks_.pop_front();
    }
  }

  // Bytes of chunks held, in use or kept for reuse; and the most ever held.
  size_t bytes_held() const { return held_.load(std::memory_order_relaxed); }
  size_t peak_bytes() const { return peak_.load(std::memory_order_relaxed); }

 private:
  struct Chunk {
    Region mem;
    size_t used = 0;
    uint64_t last_stamp = 0;  // the stamp of the newest overwriter in it
  };
  void start_chunk(size_t bytes) {
    Chunk c;
    if (!free_.empty() && bytes <= kChunkBytes) {
      c.mem = std::move(free_.back());
      free_.pop_back();
    } else {
      c.mem = Region(std::max(bytes, kChunkBytes));
      const size_t now = held_.fetch_add(c.mem.size(), std::memory_order_relaxed) + c.mem.size();
      if (now > peak_.load(std::memory_order_relaxed)) peak_.store(now, std::memory_order_relaxed);
    }
    chunks_.push_back(std::move(c));
  }

  std::deque<Chunk> chunks_;
  std::vector<Region> free_;
  std::atomic<size_t> held_{0}, peak_{0};
};

// The published bounds of the worker threads and their minimum M (see the
// file comment).
class GcBounds {
 public:
  static constexpr uint32_t kMaxThreads = 1024;  // the engine's --threads limit

  // Thread t joins with a first read stamp `candidate`; returns the stamp it
  // must use instead (at least the minimum already used to recycle).
  uint64_t register_thread(uint32_t t, uint64_t candidate) {
    assert(t < kMaxThreads);
    std::lock_guard g(latch_);
    const uint64_t bound = std::max(candidate, minimum_.load(std::memory_order_relaxed));
    bounds_[t].value.store(bound, std::memory_order_seq_cst);
    registered_[t] = true;
    if (t + 1 > n_) n_ = t + 1;
    return bound;
  }
  // Thread t's next read stamps are all at least `bound`. REQUIRES: t is
  // registered, and bounds published by t never decrease.
  void publish(uint32_t t, uint64_t bound) {
    sim::touch(&bounds_[t], true);  // under sim: the bound's line, read by every refresh
    bounds_[t].value.store(bound, std::memory_order_seq_cst);
  }
  uint64_t bound_of(uint32_t t) const { return bounds_[t].value.load(std::memory_order_relaxed); }

  // Recomputes M if no other thread is at it, and returns the latest M.
  uint64_t refresh() {
    if (latch_.try_lock()) {
      uint64_t m = kInfinity;
      for (uint32_t u = 0; u < n_; ++u)
        if (registered_[u]) {
          sim::touch(&bounds_[u], false);
          m = std::min(m, bounds_[u].value.load(std::memory_order_seq_cst));
        }
      if (m != kInfinity && m > minimum_.load(std::memory_order_relaxed)) {
        sim::touch(&minimum_, true);
        minimum_.store(m, std::memory_order_release);
      }
      latch_.unlock();
    }
    sim::touch(&minimum_, false);
    return minimum_.load(std::memory_order_acquire);
  }
  uint64_t minimum() const { return minimum_.load(std::memory_order_acquire); }
  uint32_t threads() const { return n_.load(std::memory_order_acquire); }

 private:
  struct alignas(64) Bound {
    std::atomic<uint64_t> value{kInfinity};
  };

  SpinLatch latch_;
  std::atomic<uint32_t> n_{0};  // registered slots are below it (written under the latch)
  std::unique_ptr<bool[]> registered_{new bool[kMaxThreads]()};
  std::unique_ptr<Bound[]> bounds_{new Bound[kMaxThreads]};
  std::atomic<uint64_t> minimum_{0};
};

}  // namespace ccb::mv
