// Where an online worker's next request comes from (engine/exec/online_executor.h):
// a RequestSource. The worker loop is written once over the concept; each
// front-end of the online executor is one source, and DBx1000's abort buffer
// (--abort_policy=buffer) is a wrapper around a source:
//
//   BufferSource        the worker's own buffer, replayed in order, cycling
//                       (no front-end);
//   TsDeferSource       the worker's own buffer as its TsDEFER queue
//                       (--frontend=tsdefer, TSKD[CC], engine/exec/tsdefer.h):
//                       TsDEFER picks the next request, regPos follows each
//                       request that leaves the worker's hands;
//   ReorderSource       Ding et al.'s thread-aware batches over every
//                       worker's buffer (--frontend=reorder,
//                       engine/exec/thread_reorder.h);
//   AbortBufferSource   a source whose conflict aborts are parked for a
//                       penalty (engine/exec/abort_buffer.h) while the worker
//                       runs the source's next requests.
//
// The steps of a source, in the order a worker takes them:
//   next(measuring)      the request to run next (a Ticket), or a Ticket
//                        without a request (req == nullptr) when every
//                        request the source holds waits; `measuring`: the
//                        worker is in the measured interval;
//   ready_ns()           after one without a request: when the first waiting
//                        request is ready (the worker idles until then);
//   refresh()            before each attempt: the predicted access sets
//                        described again if the workload's description epoch
//                        moved (online_executor.h, the header);
//   passed(ticket)       the request left the worker's hands: committed,
//                        rolled back by design, or dropped after a conflict
//                        abort (--retry_aborted=false);
//   park(ticket, tries, start_ns)
//                        after a conflict abort: true if the source took the
//                        request back to run later (the abort buffer; `tries`
//                        is the retry count its next attempt has, `start_ns`
//                        its first try's start), false if the worker retries
//                        it after a backoff;
//   start_measuring()    the worker's measured interval starts (counters
//                        reset);
//   finish()             the worker's last request ran (progress reported).
// A source whose front-end has nothing to do at a step inherits
// SourceDefaults' step.
//
// Each source draws from the worker's random stream (TsDEFER's picks, the
// abort buffer's penalties) in the order the worker's loop calls it; the
// worker draws its backoffs from the same stream.
//
// Thread safety: a source is its worker's; ReorderSource reads the other
// workers' buffers and predictions, which are immutable once the run starts
// (thread_reorder.h).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/config.h"
#include "engine/core/clock.h"
#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "engine/exec/abort_buffer.h"
#include "engine/exec/runtime.h"
#include "engine/exec/thread_reorder.h"
#include "engine/exec/tsdefer.h"

namespace ccb {

// A request a worker runs: a new one, or one resumed from the abort buffer
// (req == nullptr: none, RequestSource::next below).
template <class W>
struct Ticket {
  const typename W::Request* req = nullptr;
  const TxnDesc* predicted = nullptr;  // its predicted access set; nullptr where none is built
  uint32_t retries = 0;                // its attempts so far (> 0: resumed from the abort buffer)
  uint64_t start_ns = 0;               // resumed: when it was first tried (its latency counts from there)

  bool resumed() const { return retries > 0; }
};

template <class S, class W>
concept RequestSource = requires(S s, const S cs, bool measuring, const Ticket<W>& t, uint32_t tries, uint64_t start) {
  { s.next(measuring) } -> std::same_as<Ticket<W>>;
  { cs.ready_ns() } -> std::convertible_to<uint64_t>;
  s.refresh();
  s.passed(t);
  { s.park(t, tries, start) } -> std::same_as<bool>;
  s.start_measuring();
  s.finish();
};

// The steps a front-end has nothing to do at (the header).
struct SourceDefaults {
  uint64_t ready_ns() const { return 0; }  // next() always gives a request: ready now
  void refresh() {}
  template <class T>
  void passed(const T&) {}
  template <class T>
  bool park(const T&, uint32_t, uint64_t) {
    return false;
  }
  void start_measuring() {}
  void finish() {}
};

// A request's predicted access set, key sets sorted (acquire_all() and the
// reorder policy rely on the order).
template <class W>
void describe_sorted(const W& w, const typename W::Request& r, TxnDesc& d) {
  d = w.describe(r);
  std::sort(d.read_set.begin(), d.read_set.end());
  std::sort(d.write_set.begin(), d.write_set.end());
}

// A worker's own buffer of requests, generated from its own stream, and,
// with kPredict (the protocol locks the predicted access set first), their
// predicted access sets, described again when the workload's description
// epoch moves.
template <class W, bool kPredict>
class OwnBuffer {
 public:
  OwnBuffer(const W& w, int tid, Random& rng, uint32_t size) : w_(w), requests_(size) {
    for (auto& r : requests_) w_.generate(rng, tid, r);
  }

  const std::vector<typename W::Request>& requests() const { return requests_; }

  // The predicted access sets (kPredict), after the requests' generation.
  void describe() {
    if constexpr (kPredict) {
      if constexpr (HasDescriptionEpoch<W>) described_epoch_ = w_.description_epoch();
      predicted_.resize(requests_.size());
      describe_all();
    }
  }
  void refresh() {
    if constexpr (kPredict && HasDescriptionEpoch<W>) {
      if (const uint64_t e = w_.description_epoch(); e != described_epoch_) {
        describe_all();
        described_epoch_ = e;
      }
    }
  }
  Ticket<W> ticket(size_t i) const {
    Ticket<W> t{&requests_[i]};
    if constexpr (kPredict) t.predicted = &predicted_[i];
    return t;
  }

 private:
  void describe_all() {
    for (size_t i = 0; i < requests_.size(); ++i) describe_sorted(w_, requests_[i], predicted_[i]);
  }

  const W& w_;
  std::vector<typename W::Request> requests_;
  std::vector<TxnDesc> predicted_;  // kPredict
  uint64_t described_epoch_ = 0;    // the workload's description epoch when `predicted_` was built
};

// The worker's own buffer, in order, cycling.
template <class W, bool kPredict>
class BufferSource : public SourceDefaults {
 public:
  BufferSource(const W& w, int tid, Random& rng, uint32_t size) : buffer_(w, tid, rng, size) { buffer_.describe(); }

  Ticket<W> next(bool /*measuring*/) {
    const size_t i = next_;
    next_ = next_ + 1 == buffer_.requests().size() ? 0 : next_ + 1;
    return buffer_.ticket(i);
  }
  void refresh() { buffer_.refresh(); }

 private:
  OwnBuffer<W, kPredict> buffer_;
  size_t next_ = 0;
};

// The worker's own buffer as its TsDEFER queue, replayed in a cycle: TsDEFER
// picks the next request; regPos moves headp past a request when it leaves
// the worker's hands the first time (a parked one leaves when it is parked
// and is retried from the abort buffer, not from TsDEFER's queue, so that
// the lookups see the queue's next one as active [INF: the TSKD paper, in
// DBx1000, does not say how TsDEFER meets DBx1000's abort buffer]).
template <class W, bool kPredict>
class TsDeferSource : public SourceDefaults {
 public:
  // The TsDEFER sets sample the predicted access sets from the worker's
  // stream, after the requests.
  TsDeferSource(const W& w, int tid, Random& rng, const EngineConfig& cfg, TsDefer& tsdefer)
      : buffer_(w, tid, rng, cfg.txn_buffer), tsdefer_(tsdefer), tid_(tid), rng_(rng) {
    std::vector<TsDeferSet> sets;
    sets.reserve(buffer_.requests().size());
    for (const auto& r : buffer_.requests())
      sets.push_back(TsDeferSet::from_desc(w.describe(r), cfg.tsdefer.accuracy, rng));
    tsdefer_.assign(tid, std::move(sets), TsDefer::Replay::kYes);
    buffer_.describe();
  }

  Ticket<W> next(bool /*measuring*/) {
    return buffer_.ticket(*tsdefer_.next(tid_, rng_));  // a replay queue never drains
  }
  void refresh() { buffer_.refresh(); }
  void passed(const Ticket<W>&) { tsdefer_.reg_pos(tid_); }
  void start_measuring() { tsdefer_.stats(tid_) = {}; }

 private:
  OwnBuffer<W, kPredict> buffer_;
  TsDefer& tsdefer_;
  const int tid_;
  Random& rng_;
};

// Thread-aware reordering: the worker runs its part of batch 0, 1, 2, ...
// (4 requests taken from any worker's buffer), with no barrier between
// batches. Its predicted sets only order the requests, so they are not
// described again when the description epoch moves.
template <class W>
class ReorderSource : public SourceDefaults {
 public:
  // buffers: every worker's buffer; this worker's, [tid], is generated here
  // and its predicted sets described into reorder.descs(tid).
  ReorderSource(const W& w, int tid, Random& rng, uint32_t size, ThreadReorder& reorder,
                std::vector<std::vector<typename W::Request>>& buffers)
      : reorder_(reorder), buffers_(buffers), tid_(tid) {
    auto& own = buffers[tid];
    own.resize(size);
    for (auto& r : own) w.generate(rng, tid, r);
    auto& predicted = reorder.descs(tid);
    predicted.resize(own.size());
    for (size_t i = 0; i < own.size(); ++i) describe_sorted(w, own[i], predicted[i]);
  }

  Ticket<W> next(bool measuring) {
    if (in_batch_ == batch_.size()) {  // this worker's part of the next batch
      if (!batch_.empty()) ++batch_no_;
      batch_ = reorder_.plan(tid_, batch_no_);
      in_batch_ = 0;
      measured_parts_ += measuring;
    }
    const ThreadReorder::Slot slot = batch_[in_batch_++];
    return Ticket<W>{&buffers_[slot.owner][slot.index], &reorder_.desc(slot)};
  }
  void finish() { reorder_.finish(tid_, batch_no_, measured_parts_); }

 private:
  ThreadReorder& reorder_;
  const std::vector<std::vector<typename W::Request>>& buffers_;
  const int tid_;
  uint64_t batch_no_ = 0;                      // the batch this worker is in
  uint64_t measured_parts_ = 0;                // batch parts started in the measured interval
  std::span<const ThreadReorder::Slot> batch_;  // this worker's part of it
  size_t in_batch_ = 0;
};

// DBx1000's abort buffer around `Inner` (abort_buffer.h): a conflict abort
// parks the request for a penalty uniform in [0, --abort_penalty_us]; before
// each new request of the inner source a parked one whose penalty is over
// runs; with every slot taken and none ready the worker idles until the
// first is.
template <class W, class Inner>
class AbortBufferSource {
 public:
  AbortBufferSource(Inner& inner, const EngineConfig& cfg, Random& rng)
      : inner_(inner), parked_(cfg.abort_buffer_size), penalty_us_(cfg.abort_penalty_us), rng_(rng) {}

  Ticket<W> next(bool measuring) {
    if (auto ready = parked_.take_ready(now_ns())) return *ready;
    if (parked_.full()) return {};
    return inner_.next(measuring);
  }
  uint64_t ready_ns() const { return parked_.earliest_ready_ns(); }
  void refresh() { inner_.refresh(); }
  void passed(const Ticket<W>& t) {
    if (!t.resumed()) inner_.passed(t);  // a resumed one left the inner source when it was parked
  }
  bool park(const Ticket<W>& t, uint32_t tries, uint64_t start_ns) {
    parked_.park_for_penalty({t.req, t.predicted, tries, start_ns}, now_ns(), rng_, penalty_us_);
    passed(t);
    return true;
  }
  void start_measuring() { inner_.start_measuring(); }
  void finish() { inner_.finish(); }

 private:
  Inner& inner_;
  AbortBuffer<Ticket<W>> parked_;
  const uint32_t penalty_us_;
  Random& rng_;
};

}  // namespace ccb
