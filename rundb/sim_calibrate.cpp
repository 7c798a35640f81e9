// bin/sim/rundb-<cc> --sim_calibrate=<file.json>: the simulation's cost table
// (engine/sim/sim.h, docs/sim.md) measured on this machine, natively, on
// one thread, with the engine's own table, index and transaction code (NoCC's
// operations, so no protocol cost is counted twice: the protocols' shared
// metadata is charged by the hooks as atomic operations and line transfers).
//
// Each figure is the best of three timed loops (the least disturbed by other
// processes) over a table of 2^20 rows of YCSB's default 100-byte payload,
// accessed at random, so index buckets and rows come from memory as in a run:
//   index_probe   Table::lookup of a random key
//   row_read      Txn::read of a random row, less index_probe
//   row_write     Txn::update (the private copy), less index_probe
//   row_install   per written row of a commit of 16 updates, less the above
//   insert        Txn::insert of a new row (rolled back), per insert
//   txn_begin, commit, abort   an empty attempt's begin, commit, and abort
//   atomic_rmw    fetch_add on a line this thread owns
//   atomic_load   a load of an atomic this thread reads repeatedly
//   spin_round    one cpu_relax()
//   line_transfer one way of a cache line between two cores: two threads
//                 on two CPUs of this process's affinity mask hand an atomic
//                 word back and forth (a store by one, seen by the other's
//                 load), round trips / 2. The line another core wrote is in
//                 its cache, not in memory: the memory latency (a pointer
//                 chase, engine/stats/memory_bound.h, the first tables' and
//                 the fallback on a one-CPU machine) overcharged contention
//                 about threefold on the development machine's EPYC (45-55
//                 ns between its cores, 159 ns to memory; docs/sim.md,
//                 "Validation")
//   wake_up       one way of a wake-up between the same two CPUs: each thread
//                 sleeps in FUTEX_WAIT until the other's FUTEX_WAKE, round
//                 trips / 2 (the builtin default on a one-CPU machine). A
//                 blocking queue's hand-off (Orthrus, Dora) pays it natively:
//                 about 5 us on a 16-core cloud VM, 15 us on the 2-core
//                 development VM (docs/sim.md, "The cost model")
// Compiled in the sim build only; the loops run outside any simulation, so
// the hooks in the code they time do nothing.
#include "rundb/sim_calibrate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/cc/nocc/nocc.h"
#include "engine/txn/txn.h"
#include "engine/core/json.h"
#include "engine/core/random.h"
#include "engine/sim/sim.h"
#include "engine/core/table.h"
#include "engine/stats/memory_bound.h"

namespace ccb {
namespace {

constexpr uint64_t kRows = uint64_t{1} << 20;
constexpr size_t kPayload = 100;
constexpr int kPerTxn = 16;

// ns per iteration of fn(i) over `n` iterations, best of three.
template <class Fn>
double best_ns(uint64_t n, Fn fn) {
  double best = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < n; ++i) fn(i);
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ns / static_cast<double>(n));
  }
  return best;
}

// One way of a hand-off between two CPUs (ns), best of three: the two
// threads pass a counter back and forth `rounds` times, each polling it
// (`sleep` false: a cache line's transfer) or sleeping on it in the kernel
// until the other wakes it (a futex wait and wake). 0 when this process may
// run on fewer than two CPUs.
double measure_hand_off_ns(uint64_t rounds, bool sleep) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) < 2) return 0;
  int cpus[2] = {-1, -1};
  for (int c = 0, found = 0; c < CPU_SETSIZE && found < 2; ++c)
    if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  double best = 1e300;
  for (int rep = 0; rep < 3; ++rep) {
    alignas(64) std::atomic<uint32_t> word{0};  // a futex word is 32 bits
    auto player = [&word, rounds, sleep](int cpu, uint32_t parity) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
      auto* futex_word = reinterpret_cast<uint32_t*>(&word);
      for (uint64_t i = 0; i < rounds; ++i) {
        const uint32_t mine = static_cast<uint32_t>(2 * i) + parity;
        for (uint32_t seen; (seen = word.load(std::memory_order_acquire)) != mine;)
          if (sleep) syscall(SYS_futex, futex_word, FUTEX_WAIT_PRIVATE, seen, nullptr, nullptr, 0);
        word.store(mine + 1, std::memory_order_release);
        if (sleep) syscall(SYS_futex, futex_word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
      }
    };
    const auto t0 = std::chrono::steady_clock::now();
    std::thread second(player, cpus[1], 1);
    player(cpus[0], 0);
    second.join();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ns / (2.0 * static_cast<double>(rounds)));
  }
  sched_setaffinity(0, sizeof(allowed), &allowed);  // the calling thread played too: unpin it
  return best;
}

}  // namespace

sim::CostTable calibrate_cost_table() {
  Table<NoCC> table(0, "calibration", kPayload, kRows, kRows);
  for (uint64_t k = 0; k < kRows; ++k) table.load(k, k);
  Random rng(12345);
  std::vector<uint64_t> keys(1 << 22);
  for (auto& k : keys) k = rng.below(kRows);
  const size_t mask = keys.size() - 1;
  NoCC cc;
  Txn<NoCC> txn(cc, 0, nullptr);
  txn.set_prefetch(false);
  volatile uint64_t sink = 0;

  sim::CostTable c = sim::CostTable::builtin();
  auto set = [&c](sim::Op op, double ns) { c.ns[static_cast<size_t>(op)] = std::max(ns, 0.5); };

  const double probe = best_ns(1 << 21, [&](uint64_t i) { sink = sink + (table.lookup(keys[i & mask]) != nullptr); });
  set(sim::Op::kIndexProbe, probe);
  const double empty_commit = best_ns(1 << 20, [&](uint64_t) {
    txn.begin();
    txn.commit();
  });
  const double empty_abort = best_ns(1 << 20, [&](uint64_t) {
    txn.begin();
    txn.abort();
  });
  set(sim::Op::kTxnBegin, empty_commit / 2);
  set(sim::Op::kCommit, empty_commit / 2);
  set(sim::Op::kAbort, empty_abort - empty_commit / 2);
  uint64_t next = 0;
  const double reads = best_ns(1 << 16, [&](uint64_t) {
    txn.begin();
    for (int k = 0; k < kPerTxn; ++k) sink = sink + txn.read(table, keys[next++ & mask])[0];
    txn.abort();
  });
  const double per_read = (reads - empty_abort) / kPerTxn;
  set(sim::Op::kRowRead, per_read - probe);
  const double updates = best_ns(1 << 16, [&](uint64_t) {
    txn.begin();
    for (int k = 0; k < kPerTxn; ++k) txn.update(table, keys[next++ & mask])[0] += 1;
    txn.abort();
  });
  const double per_update = (updates - empty_abort) / kPerTxn;
  set(sim::Op::kRowWrite, per_update - probe);
  const double committed = best_ns(1 << 16, [&](uint64_t) {
    txn.begin();
    for (int k = 0; k < kPerTxn; ++k) txn.update(table, keys[next++ & mask])[0] += 1;
    txn.commit();
  });
  set(sim::Op::kRowInstall, (committed - empty_commit) / kPerTxn - per_update);
  uint64_t fresh = kRows;
  const double inserts = best_ns(1 << 12, [&](uint64_t) {
    txn.begin();
    for (int k = 0; k < kPerTxn; ++k) txn.insert(table, fresh++);
    txn.abort();
  });
  set(sim::Op::kInsert, (inserts - empty_abort) / kPerTxn);
  alignas(64) std::atomic<uint64_t> word{0};
  set(sim::Op::kAtomicRmw, best_ns(1 << 22, [&](uint64_t) { word.fetch_add(1, std::memory_order_acq_rel); }));
  set(sim::Op::kAtomicLoad, best_ns(1 << 22, [&](uint64_t) { sink = sink + word.load(std::memory_order_acquire); }));
  set(sim::Op::kSpinRound, best_ns(1 << 18, [&](uint64_t) { cpu_relax(); }));
  const double transfer = measure_hand_off_ns(100000, false);
  if (transfer > 0) {
    set(sim::Op::kLineTransfer, transfer);
  } else {
    const MemoryBound bound = measure_memory_bound(Table<NoCC>::bytes_for(kPayload, kRows, kRows), 0.2, 1);
    set(sim::Op::kLineTransfer, bound.latency_ns);
    std::fprintf(stderr, "sim calibration: one CPU only: line_transfer is the memory latency (%.1f ns)\n",
                 bound.latency_ns);
  }
  const double wake_up = measure_hand_off_ns(20000, true);
  if (wake_up > 0) set(sim::Op::kWakeUp, wake_up);
  c.source = "calibrated";
  return c;
}

int write_calibrated_cost_table(const std::string& path) {
  const sim::CostTable c = calibrate_cost_table();
  JsonWriter w;
  c.to_json(w);
  std::ofstream out(path);
  out << w.str() << "\n";
  if (!out) {
    std::fprintf(stderr, "error: --sim_calibrate: cannot write '%s'\n", path.c_str());
    return 1;
  }
  std::fprintf(stderr, "sim cost table written to %s\n", path.c_str());
  return 0;
}

}  // namespace ccb
