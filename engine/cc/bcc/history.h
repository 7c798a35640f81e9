// One worker's history list in BCC (Yuan et al., PVLDB 9(6) 2016, section
// 4.2): the read-set tables (engine/cc/bcc/read_set.h) of its recent
// transactions, which other threads search for rw dependencies, the memory
// they live in and when it is reused.
//
// Entry i (the i-th transaction of the thread) is ring[i % kHistoryEntries];
// `head` entries were published so far. An entry holds the transaction's
// start TID and its table, and is written as a seqlock on start_tid (0 while
// it changes). Table memory comes from three chase-tail circular buffers of
// 16 KiB, 256 KiB and 4 MiB (engine/cc/bcc/ring.h), tried in that order
// (section 5.1), and nowhere else: section 6.3 sets "the total size of memory
// for storing history hash tables to 4MB" per thread, so the tables never
// hold more than kTableMemoryBytes (the three buffers). A new table waits for
// room (has_room_for, before it is published) and a table that cannot grow
// fails (grow_table returns 0). The list has 16K entries (section 6.3).
// Entries are released in order from `tail`: "Allocation and release" of
// section 4.2, with the Release of each entry recorded at its thread's next
// start (release()).
//
// Invariants: tail <= head <= tail + kHistoryEntries; every entry in
// [tail, head) has its table's memory allocated; table_bytes() <=
// kTableMemoryBytes; a table's stamp is unique among the tables allocated
// since the buffers were last wiped.
// Thread safety: the owner thread writes everything; other threads only read
// `head` and the ring's entries (through Entry::read), with atomics.
#pragma once

#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/cc/bcc/read_set.h"
#include "engine/cc/bcc/ring.h"
#include "engine/cc/bcc/stats.h"
#include "engine/core/shared.h"

namespace ccb::bcc {

inline constexpr size_t kHistoryEntries = size_t{16} << 10;  // section 6.3
inline constexpr size_t kLevelBytes[3] = {size_t{16} << 10, size_t{256} << 10, size_t{4} << 20};  // section 5.1
// All the memory a thread's read-set tables may hold.
inline constexpr size_t kTableMemoryBytes = kLevelBytes[0] + kLevelBytes[1] + kLevelBytes[2];
// The largest table (2^kMaxTableLog2 slots): one that fills the largest buffer.
inline constexpr int kMaxTableLog2 = std::countr_zero(kLevelBytes[2] / sizeof(ReadSlot));

struct alignas(64) ThreadHistory {
  // Searched by other threads.
  // Written by the owner only; an entry's line is charged as a whole (by the
  // reader here, by the owner where it publishes), not word by word.
  struct Entry {
    Shared<uint64_t, Modelled::kNo> start_tid{0};
    Shared<uint64_t, Modelled::kNo> table{0};
    // A consistent <start TID, table> of the entry, or false while the owner
    // rewrites it. Any thread.
    bool read(uint64_t& start, uint64_t& t) const {
      charge_line_read(this);  // another thread's entry: its line moves here under sim
      start = start_tid.load(std::memory_order_acquire);
      t = table.load(std::memory_order_seq_cst);
      return start != 0 && start_tid.load(std::memory_order_relaxed) == start;
    }
  };
  Shared<uint64_t> head{0};  // written by the owner, read by searchers (charged)
  std::unique_ptr<Entry[]> ring{new Entry[kHistoryEntries]};

  // Owner only.
  struct Book {
    uint64_t release = kNone;  // Release (section 4.2); kNone until set
    uint64_t marks[3] = {};    // buffer heads when the transaction ended
  };
  std::unique_ptr<Book[]> book{new Book[kHistoryEntries]};
  uint64_t tail = 0;  // oldest entry not released
  Ring levels[3] = {Ring(kLevelBytes[0]), Ring(kLevelBytes[1]), Ring(kLevelBytes[2])};
  uint64_t last_tid = 0;   // the last TID this thread generated
  uint64_t seen_max = 0;   // the largest clock entry it has seen (Lamport)
  uint64_t stamp = 0;      // stamp of its latest read-set table (ReadSet)
  uint32_t read_hint = 0;  // recent read-set sizes, a slowly decaying maximum: sizes the next table
  Stats stats;

  size_t table_bytes() const { return levels[0].used() + levels[1].used() + levels[2].used(); }

  // Whether a table of 2^log2 slots can be allocated now.
  bool has_room_for(int log2) const {
    const size_t bytes = sizeof(ReadSlot) << log2;
    for (const auto& level : levels)
      if (level.fits(bytes)) return true;
    return false;
  }

  // Section 4.2, "Allocation and release": the previous transaction's Release
  // is the largest clock entry seen now that it has finished (`max`); tables
  // are released in order while every running thread's TID exceeds their
  // Release (`min_running`, the smallest running TID). Returns whether the
  // list has room for one more entry.
  bool release(uint64_t max, uint64_t min_running) {
    const uint64_t h = own_head();
    if (h > tail) {
      Book& prev = book[(h - 1) % kHistoryEntries];
      if (prev.release == kNone) {
        prev.release = max;
        for (int l = 0; l < 3; ++l) prev.marks[l] = levels[l].mark();
      }
    }
    while (tail < h && book[tail % kHistoryEntries].release < min_running) {
      Book& b = book[tail % kHistoryEntries];
      for (int l = 0; l < 3; ++l) levels[l].release_to(b.marks[l]);
      b.release = kNone;
      ++tail;
    }
    return h - tail < kHistoryEntries;
  }

  // The stamps ran out: once the list is empty (no other thread can search
  // its tables), zero the table buffers so that no slot carries a stamp
  // handed out again. Returns false while tables are live.
  bool wipe_tables() {
    if (tail != own_head()) return false;
    for (auto& level : levels) level.wipe();
    stamp = 0;
    ++stats.table_wipes;
    return true;
  }

  // Algorithm 3 line 4: a new table of 2^log2 slots with the next stamp,
  // published with `start_tid` as the next entry. Release stores only: the
  // owner's next insert is followed by a fence (or searchers issue the
  // asymmetric one), which orders them before its re-check (Bcc's file
  // comment, memory ordering (2)). Returns the table's word.
  // REQUIRES: release() returned true, stamp < kMaxStamp, has_room_for(log2).
  uint64_t publish_table(int log2, uint64_t start_tid) {
    const uint64_t h = own_head();
    const uint64_t table = allocate_table(log2, ++stamp);
    assert(table != 0);
    Entry& e = ring[h % kHistoryEntries];
    charge_line_write(&e);  // under sim: the entry's line and the head's, once for the stores below
    const auto own = write_line(head);
    e.start_tid.store(0, std::memory_order_relaxed);
    e.table.store(table, std::memory_order_release);
    e.start_tid.store(start_tid, std::memory_order_release);
    own[head].store(h + 1, std::memory_order_release);
    return table;
  }

  // Doubles the newest entry's table `table`: the new one, holding every read
  // of the old, replaces it in the entry (a release store, ordered as the
  // head in publish_table) before any further insert. The old stays allocated (both are released with the
  // entry), so a searcher still reading it finds what it held. Returns the new
  // table's word, or 0 (nothing changed) if no buffer has room for it.
  uint64_t grow_table(uint64_t table) {
    const uint64_t h = own_head();
    const uint64_t bigger = allocate_table(static_cast<int>(table & 63) + 1, stamp);
    if (bigger == 0) return 0;
    rehash_reads(ReadSet(table), ReadSet(bigger));
    charge_line_write(&ring[(h - 1) % kHistoryEntries]);  // under sim: the entry's line
    ring[(h - 1) % kHistoryEntries].table.store(bigger, std::memory_order_release);
    return bigger;
  }

 private:
  // The owner's read of the head it alone writes: its line is the owner's.
  uint64_t own_head() const { return head.unmodelled().load(std::memory_order_relaxed); }

  // A read-set table of 2^log2 slots with `table_stamp` (empty without
  // zeroing: ReadSet) in the first buffer with room, or 0 if none has.
  uint64_t allocate_table(int log2, uint64_t table_stamp) {
    const size_t bytes = sizeof(ReadSlot) << log2;
    uint8_t* p = nullptr;
    for (auto& level : levels)
      if ((p = level.allocate(bytes)) != nullptr) break;
    if (p == nullptr) return 0;
    assert(reinterpret_cast<uint64_t>(p) <= kAddressBits);
    return table_stamp << kStampShift | reinterpret_cast<uint64_t>(p) | static_cast<uint64_t>(log2);
  }
};

}  // namespace ccb::bcc
