// The simulation's scheduler and cost model (engine/core/sim.h; docs/sim.md).
// Compiled in the sim build only (CCB_SIM=ON).
#include "engine/core/sim.h"

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <sstream>

#include "engine/core/cli.h"
#include "engine/core/json.h"

namespace ccb::sim {
namespace {

namespace ctx = boost::context;

constexpr uint64_t kPsPerNs = 1000;  // virtual time is kept in picoseconds (fractional calibrated costs)
constexpr size_t kStackBytes = size_t{1} << 20;
constexpr uint64_t kParkedPs = ~uint64_t{0};  // a parked fiber's clock: behind every ready fiber in the heap

struct Fiber {
  ctx::fiber context;
  std::function<void()> body;
  uint64_t now_ps = 0;
  uint32_t id = 0;
  bool core = true;
  bool done = false;
  uint64_t cost_ps[kOpCount] = {};  // the cost table, SMT factor applied for this fiber
  std::vector<uint64_t> locals;     // its copies of the fiber-local words
  const char* spin_file = nullptr;  // its last spin site
  int spin_line = 0;
  uint64_t parked_ps = 0;           // park(): its virtual time when it parked
  std::exception_ptr error;
};

// A line of the owner map: the core that wrote it last (-1: none yet), the
// cores that read it since (a bit per core, modulo 64) and the virtual time
// until which a read-modify-write on it is in flight.
struct Line {
  int32_t writer = -1;
  uint64_t readers = 0;
  uint64_t busy_until_ps = 0;
};

// The owner map: lines by address, open addressing with linear probing (a
// std::unordered_map cost a tenth of a simulated YCSB transaction).
class LineMap {
 public:
  Line& operator[](uintptr_t line) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    return values_[slot(line, true)];
  }
  void clear() {
    keys_.assign(1024, kEmpty);
    values_.assign(1024, Line{});
    size_ = 0;
  }

 private:
  static constexpr uintptr_t kEmpty = ~uintptr_t{0};
  size_t slot(uintptr_t line, bool insert) {
    const size_t mask = keys_.size() - 1;
    for (size_t h = (line * 0x9E3779B97F4A7C15ull) >> 20 & mask;; h = (h + 1) & mask) {
      if (keys_[h] == line) return h;
      if (keys_[h] == kEmpty) {
        if (insert) {
          keys_[h] = line;
          ++size_;
        }
        return h;
      }
    }
  }
  void grow() {
    std::vector<uintptr_t> keys = std::move(keys_);
    std::vector<Line> values = std::move(values_);
    const size_t n = std::max<size_t>(1024, 2 * keys.size());
    keys_.assign(n, kEmpty);
    values_.assign(n, Line{});
    size_ = 0;
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != kEmpty) values_[slot(keys[i], true)] = values[i];
  }
  std::vector<uintptr_t> keys_;
  std::vector<Line> values_;
  size_t size_ = 0;
};

struct State {
  SimOptions options;
  CostTable costs = CostTable::builtin();
  uint64_t transfer_ps = 0;
  RunStats last;
  std::vector<uint64_t*> local_words;
  // The running simulation.
  std::vector<std::unique_ptr<Fiber>> fibers;
  std::vector<Fiber*> heap;  // ready fibers, min-heap by (now, id)
  Fiber* current = nullptr;
  ctx::fiber scheduler;  // where the current fiber yields to
  LineMap lines;
  uint64_t events = 0, switches = 0, spins_in_a_row = 0;
};

State g_state;  // one simulation at a time, on one OS thread
inline State& state() { return g_state; }

// Heap order: the smallest virtual time first, ties by id.
inline bool later(const Fiber* a, const Fiber* b) {
  return a->now_ps != b->now_ps ? a->now_ps > b->now_ps : a->id > b->id;
}

// The ready fibers' min-heap (s.heap[0] is due first).
void sift_down(std::vector<Fiber*>& h, size_t i) {
  Fiber* f = h[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h.size()) break;
    if (c + 1 < h.size() && later(h[c], h[c + 1])) ++c;
    if (!later(f, h[c])) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = f;
}
void push(std::vector<Fiber*>& h, Fiber* f) {
  size_t i = h.size();
  h.push_back(f);
  while (i > 0 && later(h[(i - 1) / 2], f)) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = f;
}
Fiber* pop(std::vector<Fiber*>& h) {
  Fiber* top = h.front();
  h.front() = h.back();
  h.pop_back();
  if (!h.empty()) sift_down(h, 0);
  return top;
}
// Puts f in the heap and takes the fiber due first (f itself if it is).
Fiber* replace_top(std::vector<Fiber*>& h, Fiber* f) {
  if (h.empty() || later(h.front(), f)) return f;
  Fiber* top = h.front();
  h.front() = f;
  sift_down(h, 0);
  return top;
}

// Hands the OS thread to the scheduler if another fiber is due before this one.
void maybe_yield(State& s) {
  if (s.heap.empty() || later(s.heap.front(), s.current)) return;
  s.scheduler = std::move(s.scheduler).resume();
}

void event(State& s, bool progress) {
  ++s.events;
  if (progress) s.spins_in_a_row = 0;
}

uint64_t bit_of(uint32_t id) { return uint64_t{1} << (id & 63); }

// A transfer is due when another core wrote the line last (read) or when
// another core holds it at all (write); the map then records this core.
uint64_t transfer(State& s, Line& line, uint32_t id, bool write) {
  const uint64_t me = bit_of(id);
  bool moved;
  if (write) {
    moved = (line.writer >= 0 && static_cast<uint32_t>(line.writer) != id) || (line.readers & ~me) != 0;
    line.writer = static_cast<int32_t>(id);
    line.readers = me;
  } else {
    moved = (line.readers & me) == 0 && line.writer >= 0 && static_cast<uint32_t>(line.writer) != id;
    line.readers |= me;
  }
  return moved ? s.transfer_ps : 0;
}

Line& line_of(State& s, const void* addr) { return s.lines[reinterpret_cast<uintptr_t>(addr) >> 6]; }

void swap_locals(State& s, Fiber& f) {
  for (size_t i = 0; i < s.local_words.size(); ++i) std::swap(*s.local_words[i], f.locals[i]);
}

// Skips whitespace; for the cost-table reader below.
void skip_space(const std::string& t, size_t& i) {
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
}

}  // namespace

CostTable CostTable::builtin() {
  // The order of kOpNames. Single-thread costs of a 2020s x86 server core on
  // the engine's YCSB tables (rows of 1000 bytes, out of cache); docs/sim.md.
  return CostTable{{150, 60, 80, 120, 60, 150, 60, 60, 20, 2, 30, 100}, "builtin"};
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
    require(seen[k], flag, allowed + " ('" + path + "' lacks \"" + kOpNames[k] + "\")");
  c.source = path;
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
  s.transfer_ps = static_cast<uint64_t>(line_transfer_ns() * kPsPerNs + 0.5);
}
const SimOptions& options() { return state().options; }
const CostTable& costs() { return state().costs; }
double line_transfer_ns() {
  const State& s = state();
  return s.options.line_transfer_ns > 0 ? s.options.line_transfer_ns : s.costs[Op::kLineTransfer];
}
const RunStats& last_run() { return state().last; }

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
  w.key("watchdog_events").value(s.options.watchdog_events);
  write_flags_json(w);
  w.end_object();
}

bool in_fiber() { return state().current != nullptr; }
uint64_t now_ns() { return state().current->now_ps / kPsPerNs; }
uint32_t current_id() { return state().current->id; }

// Local work touches nothing another core sees, so it only advances the
// clock: the fiber yields at its next hook that does (a lock word, a latch, a
// seqlock read, a counter, an install, a spin, a sleep), where the order of
// the shared operations is decided, the same order as a yield after every
// charge would give. The one exception is the index probe that starts each
// access: the row access after it is shared for a protocol without row
// metadata (NoCC reads and copies rows in place), so it yields there too.
// A third of a YCSB transaction's switches less.
void charge(Op op) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) return;
  event(s, true);
  f->now_ps += f->cost_ps[static_cast<size_t>(op)];
  if (op == Op::kIndexProbe) maybe_yield(s);
}

void touch(const void* addr, bool write) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) return;
  event(s, true);
  f->now_ps += f->cost_ps[static_cast<size_t>(Op::kAtomicLoad)] + transfer(s, line_of(s, addr), f->id, write);
  maybe_yield(s);
}

void rmw(const void* addr) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) return;
  event(s, true);
  Line& line = line_of(s, addr);
  // Serialized on the line: starts when the previous RMW on it has ended.
  const uint64_t start = std::max(f->now_ps, line.busy_until_ps);
  f->now_ps = start + f->cost_ps[static_cast<size_t>(Op::kAtomicRmw)] + transfer(s, line, f->id, true);
  line.busy_until_ps = f->now_ps;
  maybe_yield(s);
}

void spin(const char* file, int line) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) return;
  event(s, false);
  f->spin_file = file;
  f->spin_line = line;
  if (++s.spins_in_a_row > s.options.watchdog_events) {
    std::fprintf(stderr,
                 "error: sim watchdog: %llu events in a row were spins (no virtual core made progress; "
                 "--sim_watchdog_events); spinning at %s:%d (fiber %u, virtual time %.9f s)\n",
                 static_cast<unsigned long long>(s.spins_in_a_row), file, line, f->id, f->now_ps * 1e-12);
    for (const auto& other : s.fibers)
      if (!other->done && other->spin_file != nullptr && other.get() != f)
        std::fprintf(stderr, "  fiber %u last spun at %s:%d\n", other->id, other->spin_file, other->spin_line);
    std::fflush(stderr);
    std::_Exit(1);
  }
  f->now_ps += f->cost_ps[static_cast<size_t>(Op::kSpinRound)];
  maybe_yield(s);
}

void sleep_until_ns(uint64_t t) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) return;
  ++s.events;
  f->now_ps = std::max(f->now_ps, t * kPsPerNs);
  maybe_yield(s);
}

void fiber_local(uint64_t* word) {
  State& s = state();
  if (std::find(s.local_words.begin(), s.local_words.end(), word) == s.local_words.end()) s.local_words.push_back(word);
}

// A parked fiber stays in the heap with the clock kParkedPs, so the
// scheduler resumes it only when no fiber is ready: then nobody can wake it.
void park(const char* file, int line) {
  State& s = state();
  Fiber* f = s.current;
  if (f == nullptr) throw std::logic_error("sim::park outside a running simulation");
  ++s.events;
  f->spin_file = file;
  f->spin_line = line;
  f->parked_ps = f->now_ps;
  f->now_ps = kParkedPs;
  s.scheduler = std::move(s.scheduler).resume();
  if (f->now_ps != kParkedPs) return;
  std::fprintf(stderr,
               "error: sim deadlock: every fiber left is parked (a wait nobody will end); fiber %u parked at %s:%d "
               "(virtual time %.9f s)\n",
               f->id, file, line, f->parked_ps * 1e-12);
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

void unpark(uint32_t id) {
  State& s = state();
  if (id >= s.fibers.size()) return;
  Fiber* w = s.fibers[id].get();
  if (w->now_ps != kParkedPs) return;
  w->now_ps = std::max(w->parked_ps, s.current != nullptr ? s.current->now_ps : 0);
  // Its key decreased: sift it up from where it waits in the heap.
  std::vector<Fiber*>& h = s.heap;
  size_t i = static_cast<size_t>(std::find(h.begin(), h.end(), w) - h.begin());
  if (i == h.size()) return;  // not in the heap: it is the current fiber (unreachable: it would be running)
  while (i > 0 && later(h[(i - 1) / 2], w)) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = w;
}

void ThreadGroup::run(std::function<void()> main_body) {
  State& s = state();
  if (s.current != nullptr) throw std::logic_error("sim::ThreadGroup::run inside a running simulation");
  bodies_.push_back({std::move(main_body), false});
  const auto wall0 = std::chrono::steady_clock::now();
  s.fibers.clear();
  s.heap.clear();
  s.lines.clear();
  s.events = s.switches = s.spins_in_a_row = 0;
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
    for (size_t k = 0; k < kOpCount; ++k)
      f->cost_ps[k] = static_cast<uint64_t>(s.costs.ns[k] * (k == static_cast<size_t>(Op::kLineTransfer) ? 1.0 : factor) * kPsPerNs + 0.5);
    f->locals.assign(s.local_words.size(), 0);
    Fiber* raw = f.get();
    f->context = ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(kStackBytes),
                            [raw](ctx::fiber&& scheduler) {
                              State& st = state();
                              st.scheduler = std::move(scheduler);
                              try {
                                raw->body();
                              } catch (const ctx::detail::forced_unwind&) {
                                throw;
                              } catch (...) {
                                raw->error = std::current_exception();
                              }
                              raw->done = true;
                              return std::move(st.scheduler);
                            });
    s.fibers.push_back(std::move(f));
    push(s.heap, raw);
  }
  bodies_.clear();
  // The fiber-local words start at each fiber's 0 (its copy), the OS thread's
  // values are kept aside and restored at the end.
  // A fiber that yields is due after the heap's top (maybe_yield): it goes
  // back in, and the top comes out, in one sift.
  for (Fiber* f = pop(s.heap);;) {
    s.current = f;
    swap_locals(s, *f);
    ++s.switches;
    f->context = std::move(f->context).resume();
    swap_locals(s, *f);
    s.current = nullptr;
    if (!f->done) f = replace_top(s.heap, f);
    else if (!s.heap.empty()) f = pop(s.heap);
    else break;
  }
  RunStats& r = s.last;
  r = {};
  r.virtual_cores = cores;
  uint64_t end_ps = 0;
  for (const auto& f : s.fibers) end_ps = std::max(end_ps, f->now_ps);
  r.virtual_seconds = end_ps * 1e-12;
  r.events = s.events;
  r.fiber_switches = s.switches;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::exception_ptr error;
  for (const auto& f : s.fibers)
    if (f->error && !error) error = f->error;
  s.fibers.clear();
  s.lines.clear();
  s.local_words.clear();
  if (error) std::rethrow_exception(error);
}

}  // namespace ccb::sim
