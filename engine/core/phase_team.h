// The bundle executor's workers as one team for every phase (Strife §4: the
// same threads run the analysis's parallel steps and the execution, and spin
// between phases): PhaseTeam runs the leader's parallel loops on the members
// that serve it, and PhaseBarrier is the spinning barrier between phases.
//
// PhaseTeam: member 0 (the leader: the bundle executor's worker 0, which also
// coordinates, engine/exec/bundle_coordinator.h) calls run() / for_chunks();
// members 1..size()-1 call serve(), which runs the leader's loops until the
// leader calls release(). Chunks are claimed one at a time from an atomic
// ticket, and run() waits only for claimed chunks, never for a member to
// arrive: on a busy machine the leader does the chunks that descheduled
// members do not take, and a member that is still in its previous phase
// joins later. Outside the executor (tools, tests, a partitioner on its own)
// OwnTeam gives a team threads of its own that serve until it is destroyed.
//
// Waiting spins and never sleeps (natively SpinWait: pause, then yield every
// round, since workers may outnumber cores; no futex). Plain std::atomic, so
// ThreadSanitizer sees every hand-off (TBB's hand-offs happen inside its
// uninstrumented library).
//
// Under sim (engine/sim/sim.h, docs/sim.md) a waiting member parks on a
// sim::WaitList built with kPollSpinRounds: a wait that polls until it is
// woken, however long (no wake-up cost, no spin-round events for the
// watchdog), and OwnTeam starts no thread (the leader runs every chunk).
//
// Thread safety: run(), for_chunks(), release() and loops() are the
// leader's; serve(m) is member m's; busy_ns(m) is member m's counter, read by
// the leader after a barrier that member passed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "engine/core/clock.h"
#include "engine/core/sim_sync.h"
#include "engine/core/spin.h"

namespace ccb {

class PhaseTeam {
 public:
  using Body = std::function<void(size_t member, size_t chunk)>;
  using RangeBody = std::function<void(size_t member, size_t begin, size_t end)>;

  // Chunks per member in for_chunks: §4 cuts "equal-sized chunks" one per
  // thread; we cut a few per member that the members claim dynamically, so a
  // member descheduled on a shared machine does not hold up the step.
  static constexpr size_t kChunksPerMember = 4;

  // REQUIRES: 1 <= size < 2^32.
  explicit PhaseTeam(size_t size) : size_(size), members_(size) {}
  PhaseTeam(const PhaseTeam&) = delete;
  PhaseTeam& operator=(const PhaseTeam&) = delete;

  size_t size() const { return size_; }

  // Leader: runs body(member, chunk) once for every chunk in [0, chunks) and
  // returns when all have finished. If a call throws, the other chunks still
  // run and the first exception is rethrown here. REQUIRES: chunks < 2^32.
  void run(size_t chunks, const Body& body) {
    if (chunks == 0) return;
    ++loops_;
    const uint64_t run_id = generation_.load(std::memory_order_relaxed) + 1;
    body_.store(&body, std::memory_order_relaxed);
    chunks_.store(chunks, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    ticket_.store(run_id << 32, std::memory_order_relaxed);
    publish(run_id);
    drain(0, run_id);
    if constexpr (kSimBuild) {
      while (done_.load(std::memory_order_acquire) != chunks) leader_waiting_.wait();
    } else {
      for (SpinWait w; done_.load(std::memory_order_acquire) != chunks;) w.pause();
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

  // Leader: fn(member, begin, end) over size() x kChunksPerMember equal
  // chunks of [0, n) (one chunk with one member).
  void for_chunks(size_t n, const RangeBody& fn) {
    const size_t chunks = size_ == 1 ? 1 : size_ * kChunksPerMember;
    run(chunks, [&](size_t member, size_t c) { fn(member, n * c / chunks, n * (c + 1) / chunks); });
  }

  // Member m >= 1: runs chunks of the leader's loops until release().
  void serve(size_t m) {
    Member& me = members_[m];
    while (true) {
      uint64_t g = generation_.load(std::memory_order_acquire);
      if constexpr (kSimBuild) {
        while (g == me.seen) {
          members_waiting_.wait();
          g = generation_.load(std::memory_order_acquire);
        }
      } else {
        for (SpinWait w; g == me.seen; g = generation_.load(std::memory_order_acquire)) w.pause();
      }
      me.seen = g;
      if (released_at_.load(std::memory_order_relaxed) == g) return;
      drain(m, g);
    }
  }

  // Leader: the serving members return from serve() (each once it sees this).
  void release() {
    const uint64_t id = generation_.load(std::memory_order_relaxed) + 1;
    released_at_.store(id, std::memory_order_relaxed);
    publish(id);
  }

  // Member m's time inside chunks so far (on now_ns's clock: virtual under sim).
  uint64_t busy_ns(size_t m) const { return members_[m].busy_ns; }
  // The leader's: the parallel loops run so far (the bundle executor asks
  // whether a front-end's plan() ran any).
  uint64_t loops() const { return loops_; }

 private:
  // Makes run or release `id` current (the release store publishes the
  // leader's stores before it) and wakes the parked members under sim.
  void publish(uint64_t id) {
    generation_.store(id, std::memory_order_release);
    if constexpr (kSimBuild) members_waiting_.notify_all();
  }

  // Claims and runs chunks of run `run_id` until none is left. The ticket
  // holds (run id << 32 | next chunk); the CAS fails once the leader moved
  // on to a later run, so a late member never runs a stale chunk. The leader
  // waits for every claimed chunk, so body_ and chunks_ stay those of the
  // claimed run until the chunk is done.
  void drain(size_t m, uint64_t run_id) {
    uint64_t ticket = ticket_.load(std::memory_order_acquire);
    while (true) {
      if ((ticket >> 32) != (run_id & 0xffffffffu)) return;
      const size_t chunk = ticket & 0xffffffffu;
      if (chunk >= chunks_.load(std::memory_order_relaxed)) return;
      if (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel)) continue;
      const uint64_t start = now_ns();
      try {
        (*body_.load(std::memory_order_relaxed))(m, chunk);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu_);
        if (!error_) error_ = std::current_exception();
      }
      members_[m].busy_ns += now_ns() - start;
      if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == chunks_.load(std::memory_order_relaxed)) {
        if constexpr (kSimBuild) leader_waiting_.notify_all();
      }
      ticket = ticket_.load(std::memory_order_acquire);
    }
  }

  // A member's own state, on its own cache line.
  struct alignas(64) Member {
    uint64_t seen = 0;     // the last run or release it saw
    uint64_t busy_ns = 0;  // inside chunks
  };

  const size_t size_;
  std::vector<Member> members_;
  // Under sim: the parked members and the parked leader (natively both spin).
  sim::WaitList members_waiting_{sim::kPollSpinRounds};
  sim::WaitList leader_waiting_{sim::kPollSpinRounds};
  std::atomic<uint64_t> generation_{0};   // the current run's or release's id
  std::atomic<uint64_t> released_at_{0};  // the last release's id
  std::atomic<uint64_t> ticket_{0};
  std::atomic<const Body*> body_{nullptr};
  std::atomic<size_t> chunks_{0};
  std::atomic<size_t> done_{0};
  std::mutex error_mu_;
  std::exception_ptr error_;  // written under error_mu_, read by the leader after all chunks are done
  uint64_t loops_ = 0;        // the leader's
};

// A PhaseTeam with threads of its own (members 1..size-1 serve until the
// team is destroyed): for a Clusterer outside the bundle executor. Under sim
// no thread is started and the leader runs every chunk.
class OwnTeam {
 public:
  // REQUIRES: size >= 1.
  explicit OwnTeam(size_t size) : team_(size) {
    if constexpr (kSimBuild) return;
    for (size_t m = 1; m < size; ++m)
      helpers_.emplace_back([this, m] {
        while (!stop_.load(std::memory_order_acquire)) team_.serve(m);
      });
  }
  ~OwnTeam() {
    stop_.store(true, std::memory_order_release);
    team_.release();
    for (std::thread& t : helpers_) t.join();
  }
  OwnTeam(const OwnTeam&) = delete;
  OwnTeam& operator=(const OwnTeam&) = delete;

  PhaseTeam& team() { return team_; }

 private:
  PhaseTeam team_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> helpers_;
};

#if CCB_SIM_BUILD
// The spinning barrier between phases under sim: a FiberBarrier whose
// waiters poll until released (kPollSpinRounds: parked, no wake-up cost).
template <class Completion>
class PhaseBarrier : public sim::FiberBarrier<Completion> {
 public:
  PhaseBarrier(std::ptrdiff_t expected, Completion completion)
      : sim::FiberBarrier<Completion>(expected, std::move(completion), sim::kPollSpinRounds) {}
};
#else
// The spinning barrier between phases: the last of `expected` arrivals runs
// the completion (while every other participant waits), then releases the
// others, which spin (SpinWait) until it does.
template <class Completion>
class PhaseBarrier {
 public:
  PhaseBarrier(std::ptrdiff_t expected, Completion completion)
      : expected_(expected), completion_(std::move(completion)) {}

  void arrive_and_wait() {
    // A participant reads the phase before arriving: it cannot advance
    // without this arrival.
    const uint64_t phase = phase_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == expected_) {
      completion_();
      arrived_.store(0, std::memory_order_relaxed);  // ordered before the next arrivals by phase_
      phase_.store(phase + 1, std::memory_order_release);
      return;
    }
    for (SpinWait w; phase_.load(std::memory_order_acquire) == phase;) w.pause();
  }

 private:
  const std::ptrdiff_t expected_;
  Completion completion_;
  alignas(64) std::atomic<std::ptrdiff_t> arrived_{0};
  alignas(64) std::atomic<uint64_t> phase_{0};
};
#endif

}  // namespace ccb
