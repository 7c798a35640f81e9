// Txn<CC>: the transaction context stored procedures run against.
//
// A workload's procedure is a function template over this context (README.md,
// design property 2), e.g.
//   template <class TxnT> RC run(TxnT& txn, const Request& r) {
//     uint8_t* p = txn.update(table, r.key);
//     if (p == nullptr) return txn.failure();   // protocol said abort
//     ...modify p...
//     return RC::kOk;                             // executor commits
//   }
// Pointers returned by read()/update()/insert() point at the row's payload
// (after the version word) and stay valid until the attempt ends.
//
// One Txn object per worker thread, reused for every attempt. It owns the
// access set and the scratch arena for private row copies; the protocol owns
// what the row header and CC::AccessMeta/TxnMeta mean.
//
// --profile (engine/stats/exec_profile.h) is a compile-time parameter:
// Txn<CC, true> times its index and protocol calls into its AttemptTimes,
// Txn<CC> (kProfiled = false) is the untimed code with no trace of profiling
// (the clock reads are `if constexpr`, see tick()), so a run without
// --profile pays nothing. The variant is chosen once, at the top
// (run_online<CC, kProfile>, rundb/run.h); the stored procedures are
// instantiated for both, in separate translation units.
//
// Under sim (engine/core/sim_hooks.h) each attempt's begin, commit and abort,
// each index probe, row access, install and insert charges the cost table
// (charge_local_work, engine/core/local_work.h) and may hand the OS thread to
// another virtual core; natively the hooks are empty.
//
// Thread safety: a Txn is used by its own thread only.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "engine/txn/cc_free.h"
#include "engine/txn/protocol.h"
#include "engine/core/local_work.h"
#include "engine/core/memory.h"
#include "engine/core/shared.h"
#include "engine/core/txn_desc.h"
#include "engine/stats/exec_profile.h"
#include "engine/verify/recorder.h"

namespace ccb {


// The empty stand-in for the profile of an unprofiled Txn.
struct NoAttemptTimes {};

// kProfiled defaults to false in the declaration in engine/txn/protocol.h.
template <class CC, bool kProfiled>
class Txn {
 public:
  using AccessT = Access<CC>;
  using TableT = Table<CC>;
  static constexpr bool kIsProfiled = kProfiled;

  Txn(CC& cc, uint32_t thread_id, verify::HistoryLog* log)
      : cc_(cc), thread_id_(thread_id), log_(log) {
    accesses_.reserve(64);
  }

  // ---- Executor interface -------------------------------------------------
  // A new attempt. `restarts`: how many attempts of the same request failed
  // before this one (0 = first try). `read_only`: the workload declared the
  // request read-only before it ran (protocol.h, "facts of the attempt").
  void begin(uint32_t restarts = 0, bool read_only = false) {
    charge_local_work(Work::kTxnBegin);
    scratch_.reset();
    accesses_.clear();
    accessed_rows_ = 0;
    inserts_ = 0;
    if (indexed_ > 0) {
      std::fill(slots_.begin(), slots_.end(), 0u);
      indexed_ = 0;
    }
    rc_ = RC::kOk;
    restarts_ = restarts;
    read_only_ = read_only;
    // Ids are unique across threads and attempts and never 0 (the loader).
    id_ = (uint64_t{thread_id_} + 1) << 40 | ++attempt_seq_;
    if (!cc_free_) cc_.begin(*this);
  }
  // Validates and installs; on success records the history (if on).
  RC commit() {
    charge_local_work(Work::kCommit);
    if constexpr (kProfiled) {
      // Validation is commit() without the index work inside it (publishing
      // inserts), which publish_inserts() charges to index.
      const uint64_t index_before = times_.index, t = profile_ticks();
      rc_ = cc_free_ ? free_cc().commit(*this) : cc_.commit(*this);
      times_.validation += profile_ticks() - t - (times_.index - index_before);
    } else {
      rc_ = cc_free_ ? free_cc().commit(*this) : cc_.commit(*this);
    }
    if (rc_ == RC::kOk && log_ != nullptr) record_history();
    return rc_;
  }
  void abort() {
    charge_local_work(Work::kAbort);
    if (!cc_free_) cc_.abort(*this);
  }
  // Bundle executor (engine/exec/bundle_executor.h): the attempts that begin
  // from now on run without concurrency control, with the CC-free operations
  // (engine/txn/cc_free.h) on the protocol's own tables, for transactions a
  // front-end proved conflict-free with everything running beside them
  // (Strife's CF clusters, §2). The protocol's row metadata is not touched.
  // Switch only between attempts. One predictable branch per operation.
  void set_cc_free(bool on) { cc_free_ = on; }
  bool cc_free() const { return cc_free_; }
  bool log_enabled() const { return log_ != nullptr; }  // --verify records the history
  // Txn<CC, true>: the index and protocol time of the current attempt, which
  // the executor's AttemptProfiler<true> resets and reads (exec_profile.h).
  AttemptTimes& profile_times()
    requires kProfiled
  {
    return times_;
  }

  // ---- Procedure interface ------------------------------------------------
  // Payload of row `key` for reading, or nullptr (then failure() says why:
  // RC::kNotFound or the protocol's abort reason).
  const uint8_t* read(TableT& table, uint64_t key) {
    AccessT* a = access(table, key, AccessType::kRead);
    return a ? a->data + kVersionBytes : nullptr;
  }
  // Payload of row `key` for read-modify-write, or nullptr.
  uint8_t* update(TableT& table, uint64_t key) {
    AccessT* a = access(table, key, AccessType::kWrite);
    return a ? a->local + kVersionBytes : nullptr;
  }
  // Zeroed payload of a new row `key`, made visible at commit, or nullptr.
  uint8_t* insert(TableT& table, uint64_t key) {
    charge_local_work(Work::kInsert);
    ++inserts_;
    AccessT& a = accesses_.emplace_back();
    a.table = &table;
    a.key = key;
    a.type = AccessType::kInsert;
    a.row = table.allocate_row(thread_id_);
    a.local = a.data = a.row->data();  // the row itself is private until published
    a.read_version = verify::kNotRead;
    const auto t = tick();
    const RC rc = cc_free_ ? free_cc().insert(*this, a) : cc_.insert(*this, a);
    tock(&AttemptTimes::lock, t);
    if (!ok(rc)) return nullptr;
    return a.local + kVersionBytes;
  }
  // Declares accesses the procedure is about to make, so their index
  // buckets and rows are fetched from memory together rather than one miss
  // after another (the accesses of a YCSB or TPC-C NewOrder request are
  // known before it runs). Two passes, as in Cicada's and ERMIA's prefetching
  // of a transaction's declared accesses: every bucket first, then every row
  // its bucket points to, by when the buckets have arrived. A hint only: it
  // changes no protocol state, and a key not found is skipped. Off with
  // --prefetch=false (set_prefetch), to measure what it gains.
  struct PrefetchKey {
    const TableT* table;
    uint64_t key;
  };
  void prefetch(const PrefetchKey* keys, size_t n) {
    if (!prefetch_) return;
    const auto t = tick();
    for (size_t i = 0; i < n; ++i) keys[i].table->prefetch_index(keys[i].key);
    for (size_t i = 0; i < n; ++i) keys[i].table->prefetch_row(keys[i].key);
    tock(&AttemptTimes::index, t);
  }
  void set_prefetch(bool on) { prefetch_ = on; }
  template <class T>
  const T* read_as(TableT& table, uint64_t key) { return reinterpret_cast<const T*>(read(table, key)); }
  template <class T>
  T* update_as(TableT& table, uint64_t key) { return reinterpret_cast<T*>(update(table, key)); }
  template <class T>
  T* insert_as(TableT& table, uint64_t key) { return reinterpret_cast<T*>(insert(table, key)); }

  RC failure() const { return rc_; }
  uint64_t id() const { return id_; }
  uint32_t thread_id() const { return thread_id_; }
  uint32_t restarts() const { return restarts_; }
  bool read_only() const { return read_only_; }

  // ---- Table registry -----------------------------------------------------
  // Resolves the table id of a global key (TxnDesc) for protocols that access
  // a predicted access set (protocol.h, acquire_all). The executor registers
  // the workload's tables once per worker.
  void register_table(TableT& table) {
    if (tables_.size() <= table.id()) tables_.resize(table.id() + 1, nullptr);
    tables_[table.id()] = &table;
  }
  TableT* table(uint32_t id) const { return id < tables_.size() ? tables_[id] : nullptr; }

  // ---- Protocol interface -------------------------------------------------
  std::vector<AccessT>& accesses() { return accesses_; }
  typename CC::TxnMeta& meta() { return meta_; }
  CC& protocol() { return cc_; }
  // Scratch memory valid until the next begin().
  uint8_t* scratch(size_t bytes) { return static_cast<uint8_t*>(scratch_.allocate(bytes, 8)); }
  // A private copy buffer for `a` (not yet filled).
  uint8_t* make_local(AccessT& a) { return a.local = scratch(a.table->data_size()); }
  // A private copy of the row's current image, for a writer that excludes
  // other writers (a lock): no concurrent change can tear it.
  uint8_t* copy_locked_row(AccessT& a) {
    std::memcpy(make_local(a), a.row->data(), a.table->data_size());
    return a.local;
  }

  // Copies a's private image into its row, stamping it with this
  // transaction's version. REQUIRES: the protocol excludes concurrent writers
  // (and, for optimistic readers, marks the row as being written).
  void install(AccessT& a) {
    charge_local_work(Work::kRowInstall);
    charge_line_write(a.row->data());  // under sim: the installed row's line
    if (log_ != nullptr) a.prev_version = image_version(a.row->data());
    set_image_version(a.local, id_);
    if (a.type != AccessType::kInsert) racy_copy(a.row->data(), a.local, a.table->data_size());
  }
  // Stamps inserted rows, lets the protocol set their committed metadata
  // (set_committed_meta(meta, row): the row is not shared yet, so its words
  // are written through `row`, an unshared_line, with nothing to charge), and
  // publishes them in the index. Call before releasing write locks, so a
  // transaction that sees this one's writes also sees its inserts.
  template <class SetMeta>
  void publish_inserts(SetMeta&& set_committed_meta) {
    if (inserts_ == 0) return;  // most attempts insert nothing: skip the scan
    for (AccessT& a : accesses_) {
      if (a.type != AccessType::kInsert) continue;
      set_image_version(a.local, id_);
      set_committed_meta(a.row->meta, unshared_line(a.row->meta));
      const auto t = tick();
      const bool published = a.table->publish(a.key, a.row);
      tock(&AttemptTimes::index, t);
      if (!published) duplicate_insert(a);
    }
  }

 private:
  // The access of `row`, or nullptr. Small access sets (YCSB's 16) are
  // scanned; larger ones (TPC-C StockLevel touches ~400 rows) go through an
  // open-addressing table of access indices, filled lazily up to the current
  // size, so repeated-row checks stay O(1) instead of O(n) per access.
  // Before the scan, a one-word filter of the rows accessed so far (one bit
  // per row, by address hash) answers "not accessed" for most new rows, so
  // an attempt of distinct rows (every YCSB one) rarely scans: the scan was
  // a fifth (Silo) to over a quarter (NoWait) of a YCSB transaction's
  // instructions (callgrind, issue 19).
  static constexpr size_t kLinearScanLimit = 24;
  static uint64_t row_bit(const Row<CC>* row) { return uint64_t{1} << (slot_of(row) & 63); }
  AccessT* find(const Row<CC>* row) {
    const size_t n = accesses_.size();
    if (n <= kLinearScanLimit) {
      if ((accessed_rows_ & row_bit(row)) == 0) return nullptr;
      for (AccessT& a : accesses_)
        if (a.row == row) return &a;
      return nullptr;
    }
    if (slots_.size() < 2 * n) {
      slots_.assign(std::bit_ceil(4 * n), 0u);
      indexed_ = 0;
    }
    const size_t mask = slots_.size() - 1;
    for (; indexed_ < n; ++indexed_) {
      size_t h = slot_of(accesses_[indexed_].row) & mask;
      while (slots_[h] != 0) h = (h + 1) & mask;
      slots_[h] = static_cast<uint32_t>(indexed_ + 1);
    }
    for (size_t h = slot_of(row) & mask; slots_[h] != 0; h = (h + 1) & mask)
      if (accesses_[slots_[h] - 1].row == row) return &accesses_[slots_[h] - 1];
    return nullptr;
  }
  static size_t slot_of(const Row<CC>* row) {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(row) >> 3) * 0x9E3779B97F4A7C15ull >> 20);
  }

  static bool ok(RC rc) { return rc == RC::kOk; }
  // Timing of one call: `t = tick(); call; tock(&AttemptTimes::field, t)`
  // adds the call's time to the attempt's field in Txn<CC, true>. In Txn<CC>
  // both are empty and vanish, leaving the call as it was before profiling
  // existed. (Wrapping the call in a lambda instead changed GCC's inlining of
  // the unprofiled code; docs/protocols.md, "Code layout", has the cost.)
  struct NoTick {};
  [[gnu::always_inline]] static auto tick() {
    if constexpr (kProfiled) return profile_ticks();
    else return NoTick{};
  }
  template <class Tick>
  [[gnu::always_inline]] void tock([[maybe_unused]] uint64_t AttemptTimes::*field, [[maybe_unused]] Tick t) {
    if constexpr (kProfiled) times_.*field += profile_ticks() - t;
  }
  bool ok_or_fail(RC rc) {
    rc_ = rc;
    return rc == RC::kOk;
  }

  AccessT* access(TableT& table, uint64_t key, AccessType want) {
    charge_local_work(Work::kIndexProbe);
    const auto t_index = tick();
    Row<CC>* row = table.lookup(key);
    tock(&AttemptTimes::index, t_index);
    if (row == nullptr) {
      rc_ = RC::kNotFound;
      return nullptr;
    }
    // Repeated access to the same row: reuse (and upgrade) the first one.
    if (AccessT* a = find(row)) {
      if (want == AccessType::kRead || a->is_write()) return a;
      const auto t = tick();
      const RC rc = cc_free_ ? free_cc().write(*this, *a) : cc_.write(*this, *a);
      tock(&AttemptTimes::lock, t);
      if (!ok_or_fail(rc)) return nullptr;
      charge_local_work(Work::kRowWrite);
      a->type = AccessType::kWrite;
      a->data = a->local;
      return a;
    }
    AccessT& a = accesses_.emplace_back();
    accessed_rows_ |= row_bit(row);
    a.row = row;
    a.table = &table;
    a.key = key;
    a.type = want;
    // A first access the protocol refused leaves no trace in the access set.
    const auto t_lock = tick();
    const RC rc = cc_free_ ? (want == AccessType::kRead ? free_cc().read(*this, a) : free_cc().write(*this, a))
                           : (want == AccessType::kRead ? cc_.read(*this, a) : cc_.write(*this, a));
    tock(&AttemptTimes::lock, t_lock);
    if (!ok_or_fail(rc)) {
      accesses_.pop_back();
      return nullptr;
    }
    charge_local_work(want == AccessType::kRead ? Work::kRowRead : Work::kRowWrite);
    if (want != AccessType::kRead) a.data = a.local;
    a.read_version = image_version(a.data);
    return &a;
  }

  // A committed insert of an existing key means the protocol (or the
  // workload's key assignment) is broken: stop loudly rather than measure it.
  [[noreturn]] void duplicate_insert(const AccessT& a) {
    std::fprintf(stderr, "fatal: table %s: committed insert of existing key %llu\n", a.table->name().c_str(),
                 static_cast<unsigned long long>(a.key));
    std::abort();
  }

  void record_history() {
    log_->begin_txn(id_);
    for (const AccessT& a : accesses_) {
      const GlobalKey gk = make_global_key(a.table->id(), a.key);
      if (a.type == AccessType::kInsert)
        log_->add(gk, verify::kNotRead, verify::kInitialVersion);
      else
        log_->add(gk, a.read_version, a.is_write() ? a.prev_version : verify::kNotRead);
    }
  }

  static CcFree free_cc() { return {}; }  // the CC-free mode's operations (set_cc_free)

  CC& cc_;
  bool cc_free_ = false;
  bool prefetch_ = true;
  uint32_t thread_id_;
  verify::HistoryLog* log_;
  uint64_t id_ = 0;
  uint64_t attempt_seq_ = 0;
  uint32_t restarts_ = 0;
  bool read_only_ = false;
  RC rc_ = RC::kOk;
  std::vector<TableT*> tables_;
  std::vector<AccessT> accesses_;
  uint64_t accessed_rows_ = 0;   // find()'s filter: row_bit() of every row accessed
  size_t inserts_ = 0;           // insert() calls of this attempt
  std::vector<uint32_t> slots_;  // find(): access index + 1, 0 = empty
  size_t indexed_ = 0;           // accesses_[0, indexed_) are in slots_
  Arena scratch_;
  typename CC::TxnMeta meta_{};
  // Last, and empty without profiling, so Txn<CC>'s layout is unchanged.
  [[no_unique_address]] std::conditional_t<kProfiled, AttemptTimes, NoAttemptTimes> times_{};
};

}  // namespace ccb

