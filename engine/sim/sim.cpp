// The simulation's scheduler and cost model (engine/sim/sim.h; docs/sim.md).
// Compiled in the sim build only (CCB_SIM=ON).
#include "engine/sim/sim.h"

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "engine/core/cli.h"
#include "engine/core/json.h"

namespace ccb::sim {
namespace {

namespace ctx = boost::context;

using detail::kPsPerNs;
constexpr size_t kStackBytes = size_t{1} << 20;

// A fiber: its clock and cost table (detail::Clock, what the inline hooks of
// sim.h read) first, then what only the scheduler uses.
struct Fiber : detail::Clock {
  uint64_t local_base_ps[kLocalWorkOps] = {};  // the local-work costs before the work scale (SMT applied)
  // --sim_sockets: the reader bits (core id modulo 64) of the cores on other
  // sockets than this one, and its socket (a fiber that is no core: 0).
  uint64_t other_socket_readers = 0;
  uint32_t socket = 0;
  ctx::fiber context;  // where to resume it (empty while it runs)
  std::function<void()> body;
  bool core = true;
  bool done = false;
  std::vector<uint64_t> locals;     // its copies of the fiber-local words
  const char* spin_file = nullptr;  // its last spin site
  int spin_line = 0;
  bool parked = false;              // in park(), until another fiber's unpark()
  uint64_t parked_at_ps = 0;        // its time when it parked
  uint64_t native_spin_ps = 0;      // how long the native wait it parked for polls before it sleeps
  uint64_t spin_ps = 0;             // its time at its last spin or park
  std::exception_ptr error;
  // Where its time went (TimeKind; kLocalWork and kIdle are left 0 here: the
  // window's accounting computes them), and its spin rounds.
  uint64_t time_ps[kTimeKindCount] = {};
  uint64_t spin_rounds = 0;
  // At the window's start (open_window): its clock, time_ps, spin rounds and aborts.
  uint64_t window_start_ps = 0;
  uint64_t start_time_ps[kTimeKindCount] = {};
  uint64_t start_spin_rounds = 0;
  uint64_t start_aborts = 0;
};

// A line of the owner map; all zero is a line nobody has touched yet. The
// core that wrote it last (its id + 1; 0: none yet), the cores that read it
// since (a bit per core, modulo 64), the virtual time until which a
// read-modify-write on it is in flight, and the latest time a core touched it.
struct Line {
  uint32_t writer1;
  uint64_t readers;
  uint64_t busy_until_ps;
  uint64_t touched_ps;
};
static_assert(sizeof(Line) <= 32);

// The owner map: lines by address, direct-mapped in chunks. A chunk covers
// 4 MiB of address space (2^16 lines) with one 32-byte slot per line: 2 MiB,
// aligned, transparent huge pages advised, faulted in as touched; a zero page
// is a chunk of untouched lines, so nothing is initialized. A small
// open-addressing directory finds a region's chunk (it stays in the L1
// cache). Against a hash map of lines (std::unordered_map, then open
// addressing) this saves the growth (every line rehashed at each doubling,
// a cache miss each, and the fresh memory zeroed), a TLB miss per hook (base
// pages), and it keeps the lines of one row side by side. Memory: half the
// address range the simulated cores touch, in 2 MiB steps.
class LineMap {
 public:
  Line& operator[](uintptr_t line) {
    const uintptr_t region = line >> kChunkBits;
    for (size_t h = home(region);; h = (h + 1) & dir_mask_) {
      const Dir& d = dir_[h];
      if (d.region == region && d.chunk != nullptr) return d.chunk[line & kChunkMask].line;
      if (d.chunk == nullptr) return add(region)[line & kChunkMask].line;
    }
  }
  void clear() {
    release();
    dir_.assign(64, Dir{});
    dir_mask_ = dir_.size() - 1;
  }
  void release() {
    for (Slot* c : chunks_) munmap(c, kChunkBytes);
    chunks_.clear();
    dir_.clear();
    dir_mask_ = 0;
  }
  ~LineMap() { release(); }

 private:
  struct alignas(32) Slot {
    Line line;
  };
  struct Dir {
    uintptr_t region = 0;
    Slot* chunk = nullptr;  // nullptr: a free directory slot
  };
  static constexpr unsigned kChunkBits = 16;
  static constexpr uintptr_t kChunkMask = (uintptr_t{1} << kChunkBits) - 1;
  static constexpr size_t kChunkBytes = sizeof(Slot) << kChunkBits;  // 2 MiB
  size_t home(uintptr_t region) const { return (region * 0x9E3779B97F4A7C15ull) >> 40 & dir_mask_; }
  Slot* add(uintptr_t region) {
    if (2 * (chunks_.size() + 1) > dir_.size()) {  // at most half full
      std::vector<Dir> old = std::move(dir_);
      dir_.assign(2 * old.size(), Dir{});
      dir_mask_ = dir_.size() - 1;
      for (const Dir& d : old)
        if (d.chunk != nullptr) place(d);
    }
    // An aligned chunk: map twice its size, unmap the ends.
    void* raw = mmap(nullptr, 2 * kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED) throw std::runtime_error("sim: out of memory for the cache-line map");
    const uintptr_t begin = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (begin + kChunkBytes - 1) & ~(kChunkBytes - 1);
    if (aligned > begin) munmap(raw, aligned - begin);
    if (begin + 2 * kChunkBytes > aligned + kChunkBytes)
      munmap(reinterpret_cast<void*>(aligned + kChunkBytes), begin + 2 * kChunkBytes - aligned - kChunkBytes);
    Slot* chunk = reinterpret_cast<Slot*>(aligned);
    madvise(chunk, kChunkBytes, MADV_HUGEPAGE);  // refused where the kernel has no THP: base pages, slower only
    chunks_.push_back(chunk);
    place(Dir{region, chunk});
    return chunk;
  }
  void place(const Dir& d) {
    size_t h = home(d.region);
    while (dir_[h].chunk != nullptr) h = (h + 1) & dir_mask_;
    dir_[h] = d;
  }
  std::vector<Dir> dir_;
  size_t dir_mask_ = 0;
  std::vector<Slot*> chunks_;
};

// The ready fibers by (virtual time, id): a loser tree (a tournament tree
// whose inner nodes keep the loser of their match) over one leaf per fiber.
// Only the running fiber's key changes, and the running fiber is the
// tournament's winner, so a change replays its leaf-to-root path alone:
// log2(leaves) branch-free compare-and-swaps. A key is one word, time << b |
// id with b = bit_width(fibers) (so no live key is kDone, the key of a fiber
// that has ended and of a padding leaf); a time that does not fit in the
// other 64 - b bits (2^58 ps, 80 virtual hours, up to 63 fibers) ends the run
// (overflow()). The fiber due next after the winner is the smallest loser on
// the winner's path.
using Key = uint64_t;
constexpr Key kDone = ~Key{0};

class Tournament {
 public:
  // A tournament of n fibers, all at time 0; returns the winner's id.
  uint32_t start(uint32_t n) {
    bits_ = static_cast<uint32_t>(std::bit_width(n));
    max_time_ = (kDone >> bits_) - 1;
    leaves_ = std::bit_ceil(std::max<size_t>(n, 2));
    node_.assign(leaves_, kDone);
    std::vector<Key> keys(n);
    for (uint32_t i = 0; i < n; ++i) keys[i] = key(0, i);
    rebuild(keys, 0);  // every fiber at time 0: fiber 0 has the smallest key and wins
    return 0;
  }
  Key key(uint64_t now_ps, uint32_t id) const {
    if (now_ps > max_time_) [[unlikely]] overflow(now_ps);
    return now_ps << bits_ | id;
  }
  uint32_t id_of(Key k) const { return static_cast<uint32_t>(k & ((Key{1} << bits_) - 1)); }
  // A parked fiber's key (park()): after every time the clock holds, so it
  // comes out on top only when every fiber left is parked.
  Key parked_key(uint32_t id) const { return (kDone >> bits_) << bits_ | id; }
  // Every leaf's key anew, keys[i] for leaf i (a key other than the winner's
  // changed: unpark()); the leaf `winner` stays the winner whatever its key
  // (the running fiber, whose next replay sets it): each node on its path
  // keeps the other side's winner, every other node its match's loser.
  void rebuild(const std::vector<Key>& keys, uint32_t winner) {
    std::vector<Key> winners(2 * leaves_, kDone);
    std::vector<bool> holds_winner(2 * leaves_, false);
    for (size_t i = 0; i < keys.size(); ++i) winners[leaves_ + i] = keys[i];
    holds_winner[leaves_ + winner] = true;
    for (size_t i = leaves_ - 1; i >= 1; --i) {
      const Key l = winners[2 * i], r = winners[2 * i + 1];
      if (holds_winner[2 * i] || holds_winner[2 * i + 1]) {
        node_[i] = holds_winner[2 * i] ? r : l;
        holds_winner[i] = true;
      } else {
        winners[i] = std::min(l, r);
        node_[i] = std::max(l, r);
      }
    }
  }
  // Leaf `leaf`, the winner's, has a new key; returns the new winner's key.
  Key replay(uint32_t leaf, Key k) {
    Key* node = node_.data();
    for (size_t i = (leaves_ + leaf) >> 1; i >= 1; i >>= 1) {
      // Without a branch (which of the two wins is a coin toss): swap the
      // candidate with the stored loser when the loser is smaller.
      const Key l = node[i];
      const Key swap = (l ^ k) & (Key{0} - (l < k));
      node[i] = l ^ swap;
      k ^= swap;
    }
    return k;
  }
  // The bound of the inline check for the winner `id` (detail::Hot::yield_at_ps):
  // the smallest key other than the winner's is the smallest loser on its path.
  uint64_t yield_at_ps(uint32_t id) const {
    const Key* node = node_.data();
    Key m = kDone;
    for (size_t i = (leaves_ + id) >> 1; i >= 1; i >>= 1) m = std::min(m, node[i]);
    if (m == kDone) return ~uint64_t{0};  // no other fiber left
    return (m >> bits_) + (id < id_of(m) ? 1 : 0);  // at most max_time_ + 1: no overflow
  }

 private:
  [[noreturn]] static void overflow(uint64_t now_ps) {
    std::fprintf(stderr, "error: sim: virtual time %.3f s is beyond the scheduler's clock range\n", now_ps * 1e-12);
    std::fflush(stderr);
    std::_Exit(1);
  }
  uint32_t bits_ = 1;
  uint64_t max_time_ = 0;
  size_t leaves_ = 2;
  std::vector<Key> node_;  // [1, leaves_): the loser of each inner node's match
};

struct State {
  SimOptions options;
  CostTable costs = CostTable::builtin();
  uint64_t transfer_ps = 0;
  bool multi_socket = false;  // --sim_sockets > 1 (socket_of is filled while a run is on)
  uint64_t socket_transfer_ps = 0;
  std::vector<uint32_t> socket_of;  // by fiber id, while a run is on (--sim_sockets > 1)
  uint64_t residency_ps = ~uint64_t{0} / 2;  // --sim_line_residency_ns (0: forever)
  RunStats last;
  std::vector<double> work_scales;           // by transaction type; empty: 1 for every type
  std::vector<std::string> work_type_names;  // the types' names, for the result
  std::vector<uint64_t*> local_words;
  std::vector<uint64_t> os_locals;  // the OS thread's values of the fiber-local words, while a run is on
  // The running simulation.
  std::vector<std::unique_ptr<Fiber>> fibers;
  Tournament ready;  // every fiber that has not ended, by (now, id)
  Fiber* current = nullptr;
  ctx::fiber caller;                 // ThreadGroup::run's own context, while its fibers run
  ctx::fiber* resumed_from = nullptr;  // where the fiber that switched last keeps its continuation
  LineMap lines;
  // A line operation whose fiber yielded before the line was read (see
  // line_hook): applied before any other line operation, and before its
  // fiber runs again.
  struct Deferred {
    Fiber* f = nullptr;  // nullptr: none
    Line* line = nullptr;
    uint64_t before_ps = 0;  // the fiber's clock before the operation
    uint8_t op = 0;          // a LineOp
  } deferred;
  uint64_t switches = 0;
  // The time breakdown's window (measured_interval()): opened at 0 by run(),
  // again by the start mark; closed by the end mark or at the run's end.
  bool window_marked = false;  // opened by measured_interval(true)
  bool window_closed = false;
  uint64_t window_start_ps = 0;
};

State g_state;  // one simulation at a time, on one OS thread
inline State& state() { return g_state; }

void event(bool progress) {
  ++detail::hot.events;
  if (progress) detail::hot.spins_in_a_row = 0;
}

// Makes `to` (the winner) the current fiber: its bound for the inline check,
// its fiber-local words (the previous fiber's saved first, unless `from` is
// null: the OS thread's, kept in os_locals).
[[gnu::always_inline]] inline void enter(State& s, Fiber* from, Fiber* to) {
  uint64_t* const* words = s.local_words.data();
  const size_t n = s.local_words.size();
  if (from != nullptr)
    for (size_t i = 0; i < n; ++i) from->locals[i] = *words[i];
  for (size_t i = 0; i < n; ++i) *words[i] = to->locals[i];
  detail::hot.yield_at_ps = s.ready.yield_at_ps(to->id);
  detail::hot.current = to;
  s.current = to;
  ++s.switches;
}

// Runs in the fiber just resumed: the one that switched to it left its
// continuation here.
void arrived(State& s, ctx::fiber&& from) { *s.resumed_from = std::move(from); }

uint64_t bit_of(uint32_t id) { return uint64_t{1} << (id & 63); }

// A transfer is due when another core wrote the line last (read) or when
// another core holds it at all (write); the map then records this core. A
// line nobody touched for --sim_line_residency_ns has left every core's
// private cache: the access is a cold one, which the cost table's local work
// prices already (its row and index costs are measured on cold rows), so it
// costs no transfer and the line starts afresh (docs/sim.md).
// With --sim_sockets > 1 (kSockets) a transfer from a core on another
// socket (the last writer; for a write also any reader) costs the socket
// transfer instead. transfer() takes the one-socket instance inline, the
// other out of line, so that the one-socket path stays what it was.
template <bool kSockets>
[[gnu::always_inline]] inline uint64_t transfer_on(State& s, Line& line, const Fiber* f, bool write, uint64_t now_ps) {
  if (now_ps > line.touched_ps + s.residency_ps) line.writer1 = 0, line.readers = 0;
  line.touched_ps = std::max(line.touched_ps, now_ps);
  const uint32_t id = f->id;
  const uint64_t me = bit_of(id);
  const bool other_writer = line.writer1 != 0 && line.writer1 != id + 1;
  bool remote = false;
  if constexpr (kSockets)
    remote = (other_writer && s.socket_of[line.writer1 - 1] != f->socket) ||
             (write && (line.readers & f->other_socket_readers) != 0);
  bool moved;
  if (write) {
    moved = other_writer || (line.readers & ~me) != 0;
    line.writer1 = id + 1;
    line.readers = me;
  } else {
    moved = (line.readers & me) == 0 && other_writer;
    line.readers |= me;
  }
  return moved ? (remote ? s.socket_transfer_ps : s.transfer_ps) : 0;
}
[[gnu::noinline]] uint64_t transfer_across_sockets(State& s, Line& line, const Fiber* f, bool write, uint64_t now_ps) {
  return transfer_on<true>(s, line, f, write, now_ps);
}
[[gnu::always_inline]] inline uint64_t transfer(State& s, Line& line, const Fiber* f, bool write, uint64_t now_ps) {
  if (s.multi_socket) [[unlikely]] return transfer_across_sockets(s, line, f, write, now_ps);
  return transfer_on<false>(s, line, f, write, now_ps);
}

Line& line_of(State& s, const void* addr) { return s.lines[reinterpret_cast<uintptr_t>(addr) >> 6]; }

// The operations of touch() and rmw() on a line.
enum LineOp : uint8_t { kLineRead, kLineWrite, kLineRmw };

// The clock of fiber f after operation `op` on `line`, from its clock
// `before`, and the line's new state: a read or write of shared state costs an
// atomic load plus a transfer; a read-modify-write is serialized on the line
// (starts when the previous one on it has ended) and costs an atomic RMW plus
// a transfer.
// Each part is added to the fiber's time breakdown (TimeKind).
[[gnu::always_inline]] inline uint64_t apply(State& s, Fiber* f, Line& line, LineOp op, uint64_t before) {
  uint64_t* t = f->time_ps;
  if (op == kLineRmw) {
    const uint64_t start = std::max(before, line.busy_until_ps);
    const uint64_t cost = f->cost_ps[static_cast<size_t>(Op::kAtomicRmw)];
    const uint64_t moved = transfer(s, line, f, true, start);
    const uint64_t end = start + cost + moved;
    line.busy_until_ps = end;
    t[static_cast<size_t>(TimeKind::kRmwQueued)] += start - before;
    t[static_cast<size_t>(TimeKind::kRmw)] += cost;
    t[static_cast<size_t>(TimeKind::kLineTransfer)] += moved;
    return end;
  }
  const uint64_t cost = f->cost_ps[static_cast<size_t>(Op::kAtomicLoad)];
  const uint64_t moved = transfer(s, line, f, op == kLineWrite, before);
  t[static_cast<size_t>(TimeKind::kSharedAccess)] += cost;
  t[static_cast<size_t>(TimeKind::kLineTransfer)] += moved;
  return before + cost + moved;
}

// Applies the deferred line operation, if any.
[[gnu::always_inline]] inline void settle(State& s) {
  State::Deferred& d = s.deferred;
  if (d.f == nullptr) return;
  d.f->now_ps = apply(s, d.f, *d.line, static_cast<LineOp>(d.op), d.before_ps);
  d.f = nullptr;
}

// The fiber due first, from the tournament's winner key k (kDone: none left).
// A fiber whose line operation was deferred went into the tournament with a
// lower bound of its time: when it comes out on top, its operation is
// applied and it goes back in with its exact time (a winner's replay), until
// the winner's key is exact. A lower bound elsewhere in the tree only makes
// the bound of the inline check lower than it could be: an extra call of
// yield() that switches to nobody.
Fiber* winner(State& s, Key k) {
  if (k == kDone) return nullptr;
  for (;;) {
    Fiber* w = s.fibers[s.ready.id_of(k)].get();
    if (s.deferred.f == w) settle(s);
    const Key exact = w->parked ? s.ready.parked_key(w->id) : s.ready.key(w->now_ps, w->id);
    if (exact == k) return w;
    k = s.ready.replay(w->id, exact);
  }
}

// The time breakdown's window (sim.h, measured_interval). A core's part of
// it runs from its clock at the opening to its clock at the closing; a
// parked core's clock stands still while parked, so it counts from the mark
// and its parked time before the mark is left out. The deferred line
// operation is applied first (it is the earliest pending one, so applying
// it now keeps the order of line operations).
void open_window(State& s, uint64_t t_ps) {
  settle(s);
  for (const auto& f : s.fibers) {
    f->window_start_ps = f->done || f->parked ? t_ps : f->now_ps;
    std::copy_n(f->time_ps, kTimeKindCount, f->start_time_ps);
    if (f->parked) f->start_time_ps[static_cast<size_t>(TimeKind::kParked)] += t_ps - f->parked_at_ps;
    f->start_spin_rounds = f->spin_rounds;
    f->start_aborts = f->aborts;
  }
  s.window_start_ps = t_ps;
  s.window_closed = false;
}

// Closes the window at t_ps into s.last.cores: the kinds each core's hooks
// added since the opening, local work as the rest of its span, and idle the
// rest of the window after a core that ended.
void close_window(State& s, uint64_t t_ps) {
  settle(s);
  s.last.cores.clear();
  for (const auto& f : s.fibers) {
    if (!f->core) continue;
    CoreTime c;
    uint64_t end_ps = f->now_ps;
    uint64_t parked_ps = 0;
    if (f->parked) {  // parked at the mark: its clock stands still, the window runs on
      end_ps = std::max(t_ps, f->window_start_ps);
      parked_ps = end_ps - f->parked_at_ps;  // its park so far; open_window took off what came before the mark
    }
    end_ps = std::max(end_ps, f->window_start_ps);
    uint64_t hooks_ps = 0;
    for (size_t k = 0; k < kTimeKindCount; ++k) {
      c.ps[k] = f->time_ps[k] - f->start_time_ps[k];
      if (k == static_cast<size_t>(TimeKind::kParked)) c.ps[k] += parked_ps;
      hooks_ps += c.ps[k];
    }
    const uint64_t span_ps = end_ps - f->window_start_ps;
    c.ps[static_cast<size_t>(TimeKind::kLocalWork)] = span_ps > hooks_ps ? span_ps - hooks_ps : 0;
    c.ps[static_cast<size_t>(TimeKind::kIdle)] = f->done && t_ps > end_ps ? t_ps - end_ps : 0;
    c.spin_rounds = f->spin_rounds - f->start_spin_rounds;
    c.aborts = f->aborts - f->start_aborts;
    s.last.cores.push_back(c);
  }
  s.last.window_seconds = (t_ps - s.window_start_ps) * 1e-12;
  s.last.measured_window = s.window_marked;
  s.window_closed = true;
}

// The stall watchdog (--sim_watchdog_stall_s): a virtual core's clock passed
// the bound after the last commit (or wake-up) of any core, seen at its
// abort (charge, sim.h), spin round or sleep: a livelock passes one of them
// (a core that only waits parked is the deadlock check's, park()). Exits 4, as a
// run that committed nothing does (rundb/run.h), naming where each core
// last spun or parked.
[[noreturn]] void stalled(State& s, const Fiber* f) {
  const uint64_t since_ps = detail::hot.stall_deadline_ps - detail::hot.stall_ps;
  std::fprintf(stderr,
               "error: sim watchdog: no virtual core committed for %.6f virtual s (--sim_watchdog_stall_s; the last "
               "commit or wake-up at %.6f s, core %u now at %.6f s): a livelock or a wait nobody ends\n",
               detail::hot.stall_ps * 1e-12, since_ps * 1e-12, f->id, f->now_ps * 1e-12);
  for (const auto& g : s.fibers) {
    if (!g->core) continue;
    std::fprintf(stderr, "  core %u: ", g->id);
    if (g->spin_file == nullptr) std::fprintf(stderr, "never spun or parked");
    else std::fprintf(stderr, "last %s at %s:%d at %.6f s", g->parked ? "parked" : "spun", g->spin_file, g->spin_line,
                      g->spin_ps * 1e-12);
    std::fprintf(stderr, "; %llu spin rounds and %llu aborts in the run\n",
                 static_cast<unsigned long long>(g->spin_rounds), static_cast<unsigned long long>(g->aborts));
  }
  std::fflush(stderr);
  std::_Exit(4);
}

// The SHA-256 of `data`, in hex (FIPS 180-4): a cost table's digest, the
// same the harness records for it (calibration.py), so a result names the
// exact table that priced it.
std::string sha256_hex(const std::string& data) {
  static constexpr uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
      0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
      0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
      0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
      0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
      0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
      0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = data;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back('\0');
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t chunk = 0; chunk < m.size(); chunk += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = static_cast<uint32_t>(static_cast<unsigned char>(m[chunk + 4 * i])) << 24 |
             static_cast<uint32_t>(static_cast<unsigned char>(m[chunk + 4 * i + 1])) << 16 |
             static_cast<uint32_t>(static_cast<unsigned char>(m[chunk + 4 * i + 2])) << 8 |
             static_cast<uint32_t>(static_cast<unsigned char>(m[chunk + 4 * i + 3]));
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  char out[65];
  for (int i = 0; i < 8; ++i) std::snprintf(out + 8 * i, 9, "%08x", h[i]);
  return std::string(out, 64);
}

// Skips whitespace; for the cost-table reader below.
void skip_space(const std::string& t, size_t& i) {
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
}

}  // namespace

CostTable CostTable::builtin() {
  // The order of kOpNames. Single-thread costs of a 2020s x86 server core on
  // the engine's YCSB tables (rows of 1000 bytes, out of cache); docs/sim.md.
  return CostTable{{150, 60, 80, 120, 60, 150, 60, 60, 20, 2, 30, 100, 4000}, "builtin"};
}

CostTable CostTable::read_file(const std::string& path, const char* flag) {
  std::ifstream in(path);
  require(static_cast<bool>(in), flag, "a readable cost-table JSON file (bin/sim/rundb-<cc> --sim_calibrate=<file> writes one); '" + path + "' cannot be opened");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string t = ss.str();
  std::string all;
  for (const char* n : kOpNames) all += (all.empty() ? "" : ", ") + std::string(n);
  const std::string allowed = "a flat JSON object {\"op\": ns, ...} with every op: " + all;
  CostTable c = builtin();
  bool seen[kOpCount] = {};
  size_t i = 0;
  skip_space(t, i);
  require(i < t.size() && t[i] == '{', flag, allowed + " ('" + path + "' does not start with '{')");
  ++i;
  for (;;) {
    skip_space(t, i);
    if (i < t.size() && t[i] == '}') break;
    require(i < t.size() && t[i] == '"', flag, allowed + " (expected a key in '" + path + "')");
    const size_t end = t.find('"', i + 1);
    require(end != std::string::npos, flag, allowed + " (unterminated key in '" + path + "')");
    const std::string key = t.substr(i + 1, end - i - 1);
    i = end + 1;
    skip_space(t, i);
    require(i < t.size() && t[i] == ':', flag, allowed + " (expected ':' after \"" + key + "\")");
    ++i;
    skip_space(t, i);
    char* stop = nullptr;
    const double v = std::strtod(t.c_str() + i, &stop);
    require(stop != t.c_str() + i && v >= 0 && v < 1e9, flag, allowed + " (\"" + key + "\" needs a number of ns in [0, 1e9))");
    i = static_cast<size_t>(stop - t.c_str());
    const auto* it = std::find_if(std::begin(kOpNames), std::end(kOpNames), [&](const char* n) { return key == n; });
    require(it != std::end(kOpNames), flag, allowed + " (unknown op \"" + key + "\")");
    c.ns[it - std::begin(kOpNames)] = v;
    seen[it - std::begin(kOpNames)] = true;
    skip_space(t, i);
    if (i < t.size() && t[i] == ',') ++i;
  }
  for (size_t k = 0; k < kOpCount; ++k)
    require(seen[k], flag, allowed + " ('" + path + "' lacks \"" + kOpNames[k] +
                               "\": a calibration by an older build; calibrate again, e.g. `ccbench calibrate`)");
  c.source = path;
  c.sha256 = sha256_hex(t);
  return c;
}

void CostTable::to_json(JsonWriter& w) const {
  w.begin_object();
  for (size_t k = 0; k < kOpCount; ++k) w.key(kOpNames[k]).value(ns[k]);
  w.end_object();
}

void configure(const SimOptions& options, const CostTable& costs) {
  State& s = state();
  s.options = options;
  s.costs = costs;
  for (const MachineCost& m : kMachineCosts)  // the modelled machine's between-core costs replace the table's
    if (options.*m.ns > 0) s.costs.ns[static_cast<size_t>(m.op)] = options.*m.ns;
  s.transfer_ps = static_cast<uint64_t>(line_transfer_ns() * kPsPerNs + 0.5);
  s.socket_transfer_ps = static_cast<uint64_t>(socket_transfer_ns() * kPsPerNs + 0.5);
  s.multi_socket = options.sockets > 1;
  detail::hot.stall_ps = options.watchdog_stall_s > 0 ? static_cast<uint64_t>(options.watchdog_stall_s * 1e12 + 0.5)
                                                      : ~uint64_t{0} >> 2;
  s.residency_ps = options.line_residency_ns > 0 ? static_cast<uint64_t>(options.line_residency_ns * kPsPerNs + 0.5)
                                                 : ~uint64_t{0} / 2;
}
void set_work_scales(std::vector<double> by_type, std::vector<std::string> names) {
  State& s = state();
  s.work_scales = std::move(by_type);
  s.work_type_names = std::move(names);
}
uint32_t analysis_work_type() {
  const std::vector<std::string>& names = state().work_type_names;
  const auto it = std::find(names.begin(), names.end(), kAnalysisWorkType);
  return it == names.end() ? detail::kNoWorkType : static_cast<uint32_t>(it - names.begin());
}
const SimOptions& options() { return state().options; }
const CostTable& costs() { return state().costs; }
double line_transfer_ns() {
  return state().costs[Op::kLineTransfer];  // configure() applied --sim_line_transfer_ns
}
double socket_transfer_ns() {
  const State& s = state();
  return s.options.socket_transfer_ns > 0 ? s.options.socket_transfer_ns : 2 * line_transfer_ns();
}
const RunStats& last_run() { return state().last; }

void measured_interval(bool starts) {
  State& s = state();
  const Fiber* f = s.current;
  if (f == nullptr) return;
  if (starts) {
    s.window_marked = true;
    open_window(s, f->now_ps);
  } else {
    close_window(s, f->now_ps);
  }
}

void fix_address_layout(char** argv) {
  const int persona = personality(0xffffffff);  // reads it
  if (persona == -1 || (persona & ADDR_NO_RANDOMIZE) != 0) return;
  if (personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1) return;
  execv("/proc/self/exe", argv);
  personality(static_cast<unsigned long>(persona));  // the exec failed: go on as we were
}

static bool address_randomization() {
  const int persona = personality(0xffffffff);
  return persona == -1 || (persona & ADDR_NO_RANDOMIZE) == 0;
}

// sim.time_breakdown: every core's kinds in virtual seconds, summed over the
// cores and per core (docs/sim.md, "Where the time goes").
static void write_time_breakdown(JsonWriter& w) {
  const RunStats& r = state().last;
  auto kinds = [&w](const uint64_t* ps) {
    w.begin_object();
    for (size_t k = 0; k < kTimeKindCount; ++k) w.key(kTimeKindNames[k]).value(ps[k] * 1e-12);
    w.end_object();
  };
  uint64_t sum[kTimeKindCount] = {};
  for (const CoreTime& c : r.cores)
    for (size_t k = 0; k < kTimeKindCount; ++k) sum[k] += c.ps[k];
  w.key("time_breakdown").begin_object();
  w.key("window").value(r.measured_window ? "measured" : "run");
  w.key("window_seconds").value(r.window_seconds);
  w.key("cores");
  kinds(sum);
  w.key("per_core").begin_array();
  for (const CoreTime& c : r.cores) kinds(c.ps);
  w.end_array();
  w.end_object();
}

// The work scale's source: the label the harness gives (its fit store), or
// what the flag alone says.
static std::string work_scale_source(const SimOptions& o) {
  if (!o.work_scale_source.empty()) return o.work_scale_source;
  return o.work_scale.empty() ? "none" : "--sim_work_scale";
}

std::string model_summary() {
  const State& s = state();
  const SimOptions& o = s.options;
  std::string line = "sim model: ";
  if (s.costs.source == "builtin")
    line += "the BUILT-IN cost table (round figures, not calibrated on any machine; --sim_cost_table=<file> "
            "gives a calibrated one, `ccbench calibrate` writes it)";
  else line += "cost table " + s.costs.source + " (sha256 " + s.costs.sha256.substr(0, 12) + ")";
  std::string machine_ops;
  for (const MachineCost& m : kMachineCosts)
    if (o.*m.ns > 0) machine_ops += (machine_ops.empty() ? "" : ",") + std::string(kOpNames[static_cast<size_t>(m.op)]);
  line += "; machine " + (o.machine.empty() ? std::string("none (the --sim_* defaults)") : o.machine) + " (" +
          std::to_string(o.physical_cores) + " cores, " + std::to_string(o.sockets) + " socket(s); between-core " +
          (machine_ops.empty() ? std::string("costs from the cost table") : machine_ops + " from the machine") + ")";
  line += "; work scale " + (o.work_scale.empty() && o.work_scale_source.empty()
                                  ? std::string("none (every type at 1)")
                                  : (o.work_scale.empty() ? "none" : o.work_scale) + " (" + work_scale_source(o) + ")");
  return line;
}

// sim.model: which model produced the numbers (docs/sim.md, "The modelled
// machine"): the local work's cost table, the machine and the ops it set,
// the work scale and where it came from.
static void write_model_json(JsonWriter& w) {
  const State& s = state();
  const SimOptions& o = s.options;
  w.key("model").begin_object();
  w.key("cost_table_source").value(s.costs.source);
  w.key("cost_table_sha256").value(s.costs.sha256);
  w.key("builtin_cost_table").value(s.costs.source == "builtin");
  w.key("machine").value(o.machine);
  w.key("op_sources").begin_object();  // every op: "cost_table" or "machine" (its --sim_<op>_ns)
  for (size_t k = 0; k < kOpCount; ++k) {
    const auto* m = std::find_if(std::begin(kMachineCosts), std::end(kMachineCosts),
                                 [&](const MachineCost& c) { return static_cast<size_t>(c.op) == k; });
    w.key(kOpNames[k]).value(m != std::end(kMachineCosts) && o.*(m->ns) > 0 ? "machine" : "cost_table");
  }
  w.end_object();
  w.key("work_scale").value(o.work_scale);
  w.key("work_scale_source").value(work_scale_source(o));
  w.key("summary").value(model_summary());
  w.end_object();
}

std::string describe_cores() {
  const RunStats& r = state().last;
  std::string out;
  char line[512];
  for (size_t i = 0; i < r.cores.size(); ++i) {
    const CoreTime& c = r.cores[i];
    if (c.site_file != nullptr)
      std::snprintf(line, sizeof line, "  core %zu: last spun or parked at %s:%d at %.6f virtual s", i, c.site_file,
                    c.site_line, c.site_seconds);
    else std::snprintf(line, sizeof line, "  core %zu: never spun or parked", i);
    out += line;
    std::snprintf(line, sizeof line, "; in the %s: %llu spin rounds (%.6f s), %llu aborts\n",
                  r.measured_window ? "measured interval" : "run", static_cast<unsigned long long>(c.spin_rounds),
                  c.ps[static_cast<size_t>(TimeKind::kSpin)] * 1e-12, static_cast<unsigned long long>(c.aborts));
    out += line;
  }
  return out;
}

void write_json(JsonWriter& w) {
  const State& s = state();
  w.key("sim").begin_object();
  w.key("virtual_cores").value(s.last.virtual_cores);
  w.key("virtual_seconds").value(s.last.virtual_seconds);
  w.key("events").value(s.last.events);
  w.key("fiber_switches").value(s.last.fiber_switches);
  w.key("wall_seconds").value(s.last.wall_seconds);
  w.key("cost_table");
  s.costs.to_json(w);
  w.key("cost_table_source").value(s.costs.source);
  w.key("physical_cores").value(s.options.physical_cores);
  w.key("smt_factor").value(s.options.smt_factor);
  w.key("line_transfer_ns").value(line_transfer_ns());
  w.key("sockets").value(s.options.sockets);
  w.key("socket_transfer_ns").value(socket_transfer_ns());
  w.key("line_residency_ns").value(s.options.line_residency_ns);
  w.key("watchdog_events").value(s.options.watchdog_events);
  w.key("watchdog_stall_s").value(s.options.watchdog_stall_s);
  w.key("address_randomization").value(address_randomization());  // fix_address_layout()
  w.key("work_scale").begin_object();  // by transaction type (--sim_work_scale), 1 where unscaled
  for (size_t t = 0; t < s.work_type_names.size(); ++t)
    w.key(s.work_type_names[t]).value(t < s.work_scales.size() ? s.work_scales[t] : 1.0);
  w.end_object();
  write_model_json(w);
  write_time_breakdown(w);
  write_flags_json(w);
  w.end_object();
}

// charge() (sim.h, inline): local work touches nothing another core sees,
// so it only advances the clock: the fiber yields at its next hook that does
// (a lock word, a latch, a seqlock read, a counter, an install, a spin, a
// sleep), where the order of the shared operations is decided, the same
// order as a yield after every charge would give. The one exception is the
// index probe that starts each access: the row access after it is shared for
// a protocol without row metadata (NoCC reads and copies rows in place), so
// it yields there too. A third of a YCSB transaction's switches less.

namespace detail {
void stalled() { ccb::sim::stalled(state(), state().current); }

// work_type() (sim.h) when the type changes: the local-work costs of the
// fiber's attempts of `type` from now on.
void apply_work_type(Clock* clock, uint32_t type) {
  const State& s = state();
  Fiber* f = static_cast<Fiber*>(clock);
  f->work_type = type;
  const double scale = type < s.work_scales.size() ? s.work_scales[type] : 1.0;
  for (size_t k = 0; k < kLocalWorkOps; ++k) f->cost_ps[k] = static_cast<uint64_t>(f->local_base_ps[k] * scale + 0.5);
}

// The current fiber's clock has reached the bound of the inline check: it
// goes back into the tournament with its new time and the winner runs, the
// switch straight from fiber to fiber (no scheduler in between).
void yield() {
  State& s = state();
  Fiber* f = s.current;
  Fiber* next = winner(s, s.ready.replay(f->id, s.ready.key(f->now_ps, f->id)));
  if (next == f) {  // still due first (the bound was lower than it could be)
    detail::hot.yield_at_ps = s.ready.yield_at_ps(f->id);
    return;
  }
  enter(s, f, next);
  s.resumed_from = &f->context;
  arrived(s, std::move(next->context).resume());
}
}  // namespace detail

namespace {
// touch() and rmw(). The line map's slot of a random row is a cache miss
// (DRAM: a third of the wall time when the hook waited for it). When the
// fiber will yield after the operation whatever the line holds (its clock
// plus the operation's own cost already reaches the bound of the inline
// check), the operation is deferred: the slot is prefetched, the fiber goes
// into the tournament at that lower bound, the next fiber runs, and the
// operation is applied (settle) at the next line operation of any fiber or
// when the fiber comes out on top (winner), whichever is first: the line
// operations are applied in the same order, each from the same state, so the
// times and the schedule are the same as without deferral.
template <LineOp op>
[[gnu::always_inline]] inline void line_hook(const void* addr) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) return;
  __builtin_prefetch(addr, op == kLineRead ? 0 : 1);  // the access that follows the hook, overlapped with the map's miss
  detail::progress_event();
  settle(s);
  Line& line = line_of(s, addr);
  const uint64_t before = f->now_ps;
  const uint64_t lower = before + f->cost_ps[static_cast<size_t>(op == kLineRmw ? Op::kAtomicRmw : Op::kAtomicLoad)];
  if (lower >= detail::hot.yield_at_ps) {
    __builtin_prefetch(&line, 1);
    s.deferred = {f, &line, before, op};
    f->now_ps = lower;
    detail::yield();
    return;
  }
  f->now_ps = apply(s, f, line, op, before);
  detail::maybe_yield(f);
}
}  // namespace

void touch(const void* addr, bool write) {
  if (write) line_hook<kLineWrite>(addr);
  else line_hook<kLineRead>(addr);
}

void rmw(const void* addr) { line_hook<kLineRmw>(addr); }

void spin(const char* file, int line) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) return;
  event(false);
  f->spin_file = file;
  f->spin_line = line;
  f->spin_ps = f->now_ps;
  ++f->spin_rounds;
  if (++detail::hot.spins_in_a_row > s.options.watchdog_events) {
    std::fprintf(stderr,
                 "error: sim watchdog: %llu events in a row were spins (no virtual core made progress; "
                 "--sim_watchdog_events); spinning at %s:%d (fiber %u, virtual time %.9f s)\n",
                 static_cast<unsigned long long>(detail::hot.spins_in_a_row), file, line, f->id, f->now_ps * 1e-12);
    for (const auto& other : s.fibers)
      if (!other->done && other->spin_file != nullptr && other.get() != f)
        std::fprintf(stderr, "  fiber %u last spun at %s:%d\n", other->id, other->spin_file, other->spin_line);
    std::fflush(stderr);
    std::_Exit(1);
  }
  f->now_ps += f->cost_ps[static_cast<size_t>(Op::kSpinRound)];
  f->time_ps[static_cast<size_t>(TimeKind::kSpin)] += f->cost_ps[static_cast<size_t>(Op::kSpinRound)];
  if (f->now_ps > detail::hot.stall_deadline_ps && f->core) [[unlikely]] stalled(s, f);
  detail::maybe_yield(f);
}

namespace {
// The current fiber's clock moves to virtual time t (if later), the time charged as `kind`.
void wait_until_ns(uint64_t t, TimeKind kind) {
  Fiber* f = state().current;
  if (f == nullptr) return;
  ++detail::hot.events;
  const uint64_t until = std::max(f->now_ps, t * kPsPerNs);
  f->time_ps[static_cast<size_t>(kind)] += until - f->now_ps;
  if (f->now_ps > detail::hot.stall_deadline_ps && f->core) [[unlikely]] stalled(state(), f);
  f->now_ps = until;
  detail::maybe_yield(f);
}
}  // namespace

void sleep_until_ns(uint64_t t) { wait_until_ns(t, TimeKind::kSleep); }
void delay_until_ns(uint64_t t) { wait_until_ns(t, TimeKind::kDelay); }

void fiber_local(uint64_t* word) {
  State& s = state();
  if (std::find(s.local_words.begin(), s.local_words.end(), word) == s.local_words.end()) s.local_words.push_back(word);
}

// park() takes the running fiber out of the race: it goes into the
// tournament with its parked key (Tournament::parked_key), after every ready
// fiber, so it comes out on top only when every fiber left is parked, and
// then nobody can wake it: a deadlock, reported with every park site.
void park(uint32_t native_spin_rounds, const char* file, int line) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) throw std::logic_error("sim::park outside a running simulation");
  event(false);
  f->spin_file = file;
  f->spin_line = line;
  f->spin_ps = f->now_ps;
  f->parked = true;
  f->parked_at_ps = f->now_ps;
  f->native_spin_ps = native_spin_rounds == kNeverSleeps
                          ? ~uint64_t{0} / 2  // with parked_at_ps (below 2^63: the clock's range) beyond any time
                          : native_spin_rounds * f->cost_ps[static_cast<size_t>(Op::kSpinRound)];
  Fiber* next = winner(s, s.ready.replay(f->id, s.ready.parked_key(f->id)));
  if (next != f && !next->parked) {
    enter(s, f, next);
    s.resumed_from = &f->context;
    arrived(s, std::move(next->context).resume());
    if (!f->parked) return;  // unparked, and due first
  }
  std::fprintf(stderr,
               "error: sim deadlock: every fiber left is parked (a wait nobody will end); fiber %u parked at %s:%d "
               "(virtual time %.9f s)\n",
               f->id, file, line, f->now_ps * 1e-12);
  for (const auto& other : s.fibers) {
    if (!other->done && other->spin_file != nullptr && other.get() != f)
      std::fprintf(stderr, "  fiber %u last waited at %s:%d\n", other->id, other->spin_file, other->spin_line);
    if (other->error) {  // often the cause: the fiber that would have woken them threw
      try {
        std::rethrow_exception(other->error);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "  fiber %u ended with an exception: %s\n", other->id, e.what());
      } catch (...) {
        std::fprintf(stderr, "  fiber %u ended with an exception\n", other->id);
      }
    }
  }
  std::fflush(stderr);
  std::_Exit(1);
}

// unpark() makes a parked fiber ready at the later of its park time and the
// waker's time. Its key is not the winner's, which is the only one a replay
// can change, so the tournament is rebuilt from every fiber's key with the
// running fiber kept as the winner (a few hundred operations; parks are rare
// next to yields), and the running fiber's bound is recomputed: it yields at
// its next hook if the woken fiber is now due first.
void unpark(uint32_t id) {
  State& s = state();
  if (id >= s.fibers.size()) return;
  Fiber* w = s.fibers[id].get();
  if (!w->parked) return;
  w->parked = false;
  Fiber* f = s.current;
  if (f == nullptr) return;  // unreachable: only a running fiber wakes another
  const bool asleep = f->now_ps > w->parked_at_ps + w->native_spin_ps;
  w->now_ps = asleep ? f->now_ps + w->cost_ps[static_cast<size_t>(Op::kWakeUp)] : std::max(w->now_ps, f->now_ps);
  w->time_ps[static_cast<size_t>(TimeKind::kParked)] += w->now_ps - w->parked_at_ps;
  detail::hot.stall_deadline_ps = f->now_ps + detail::hot.stall_ps;  // the executor moved on: progress
  std::vector<Key> keys(s.fibers.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const Fiber& g = *s.fibers[i];
    keys[i] = g.done ? kDone : g.parked ? s.ready.parked_key(g.id) : s.ready.key(g.now_ps, g.id);
  }
  s.ready.rebuild(keys, f->id);
  detail::hot.yield_at_ps = s.ready.yield_at_ps(f->id);
}

void ThreadGroup::run(std::function<void()> main_body) {
  State& s = state();
  if (s.current != nullptr) throw std::logic_error("sim::ThreadGroup::run inside a running simulation");
  bodies_.push_back({std::move(main_body), false});
  const auto wall0 = std::chrono::steady_clock::now();
  s.fibers.clear();
  s.lines.clear();
  s.socket_of.clear();
  s.switches = 0;
  s.deferred = {};
  detail::hot.events = detail::hot.spins_in_a_row = 0;
  detail::hot.stall_deadline_ps = detail::hot.stall_ps;
  s.window_marked = s.window_closed = false;
  s.window_start_ps = 0;
  uint32_t cores = 0;
  for (const Body& b : bodies_) cores += b.core;
  const uint32_t physical = std::max<uint32_t>(1, s.options.physical_cores);
  for (uint32_t id = 0; id < bodies_.size(); ++id) {
    auto f = std::make_unique<Fiber>();
    f->id = id;
    f->core = bodies_[id].core;
    f->body = std::move(bodies_[id].fn);
    // SMT: with more virtual cores than physical ones, virtual core c shares
    // physical core c % P with c + P (when that core exists), and both run
    // slower by the factor.
    const bool shared = f->core && cores > physical && (id % physical) < cores - physical;
    const double factor = shared ? s.options.smt_factor : 1.0;
    for (size_t k = 0; k < kOpCount; ++k) {
      // A line transfer and an OS wake-up do not run on the core's pipeline.
      const bool core_work = k != static_cast<size_t>(Op::kLineTransfer) && k != static_cast<size_t>(Op::kWakeUp);
      f->cost_ps[k] = static_cast<uint64_t>(s.costs.ns[k] * (core_work ? factor : 1.0) * kPsPerNs + 0.5);
    }
    std::copy_n(f->cost_ps, kLocalWorkOps, f->local_base_ps);
    // Sockets: the physical cores split evenly, in order (options.cpp checks
    // that they divide); virtual core c runs on physical core c % P.
    const uint32_t sockets = std::max<uint32_t>(1, s.options.sockets);
    if (sockets > 1 && f->core) f->socket = (id % physical) / std::max<uint32_t>(1, physical / sockets);
    f->locals.assign(s.local_words.size(), 0);
    Fiber* raw = f.get();
    // A fiber switches to the next one itself (detail::yield); when it ends
    // it goes out of the tournament and its entry returns the context to
    // resume: the winner's, or run()'s once every fiber has ended.
    f->context = ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(kStackBytes),
                            [raw](ctx::fiber&& from) {
                              State& st = state();
                              arrived(st, std::move(from));
                              try {
                                raw->body();
                              } catch (const ctx::detail::forced_unwind&) {
                                throw;
                              } catch (...) {
                                raw->error = std::current_exception();
                              }
                              raw->done = true;
                              st.resumed_from = &raw->context;
                              Fiber* next = winner(st, st.ready.replay(raw->id, kDone));
                              if (next == nullptr) {  // the last one: back to run()
                                for (size_t i = 0; i < st.local_words.size(); ++i) {
                                  raw->locals[i] = *st.local_words[i];
                                  *st.local_words[i] = st.os_locals[i];
                                }
                                detail::hot.current = nullptr;
                                st.current = nullptr;
                                return std::move(st.caller);
                              }
                              enter(st, raw, next);
                              return std::move(next->context);
                            });
    s.fibers.push_back(std::move(f));
  }
  bodies_.clear();
  if (s.options.sockets > 1) {
    s.socket_of.resize(s.fibers.size());
    for (const auto& f : s.fibers) s.socket_of[f->id] = f->socket;
    for (const auto& f : s.fibers)
      for (const auto& g : s.fibers)
        if (g->core && g->socket != f->socket) f->other_socket_readers |= bit_of(g->id);
  }
  // The fiber-local words start at each fiber's 0 (its copy), the OS thread's
  // values are kept aside and restored at the end.
  s.os_locals.resize(s.local_words.size());
  for (size_t i = 0; i < s.local_words.size(); ++i) s.os_locals[i] = *s.local_words[i];
  Fiber* first = s.fibers[s.ready.start(static_cast<uint32_t>(s.fibers.size()))].get();
  enter(s, nullptr, first);
  s.resumed_from = &s.caller;
  arrived(s, std::move(first->context).resume());  // returns when every fiber has ended
  settle(s);  // none left: the last fiber to yield came out on top before it ended
  RunStats& r = s.last;
  uint64_t end_ps = 0;
  for (const auto& f : s.fibers) end_ps = std::max(end_ps, f->now_ps);
  std::vector<CoreTime> window;
  if (!s.window_closed) close_window(s, end_ps);  // no end mark: the window ends with the run
  window.swap(r.cores);
  const bool measured = r.measured_window;
  const double window_s = r.window_seconds;
  r = {};
  r.measured_window = measured;
  r.window_seconds = window_s;
  r.cores = std::move(window);
  for (size_t i = 0, c = 0; i < s.fibers.size(); ++i) {
    const Fiber& f = *s.fibers[i];
    if (!f.core || c >= r.cores.size()) continue;
    r.cores[c].site_file = f.spin_file;
    r.cores[c].site_line = f.spin_line;
    r.cores[c].site_seconds = f.spin_ps * 1e-12;
    ++c;
  }
  r.virtual_cores = cores;
  r.virtual_seconds = end_ps * 1e-12;
  r.events = detail::hot.events;
  r.fiber_switches = s.switches;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::exception_ptr error;
  for (const auto& f : s.fibers)
    if (f->error && !error) error = f->error;
  s.fibers.clear();
  s.lines.release();
  s.local_words.clear();
  if (error) std::rethrow_exception(error);
}

}  // namespace ccb::sim
