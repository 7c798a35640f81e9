// Shared<T>: a word of protocol metadata that other threads read and write
// (a row's version or lock word, a global counter, a per-thread slot that
// others scan). The one type protocol code (engine/cc/) uses for shared
// state: a raw std::atomic there is rejected by CI (scripts/check-cc-primitives.sh).
//
// Why a type of its own: under the simulation (engine/core/sim_hooks.h) a virtual
// core's access to a shared word is a cache-line operation of the cost model
// (a read or write may move the line from another core; read-modify-writes
// of one line serialize). A shared word that no hook names is not a line of
// the model: its contention costs nothing in virtual time, and the simulated
// numbers are silently wrong (docs/sim.md, "Limits": PartCC's partition locks
// starved their waiters that way). So every operation of Shared<T> is modelled
// by default:
//   load               a read of the word's line   (sim::touch(&word, false))
//   store              a write of it                (sim::touch(&word, true))
//   exchange, compare_exchange_*, fetch_*
//                      a read-modify-write of it    (sim::rmw(&word))
// each charged just before the access, natively nothing (the hooks are empty
// inline functions: the native code is std::atomic's).
//
// Two explicit ways out, each visible at its call site:
//   unmodelled()       the std::atomic itself: an access the model does not
//                      charge (the line was charged by this core's preceding
//                      operation on it, e.g. a seqlock's re-check, or the
//                      word is not contended in the modelled run, e.g. a
//                      once-per-run flag). Say why in a comment.
//   charge_read(), charge_write(), charge_rmw()
//                      the model's charge alone, where one charge stands for
//                      a group of accesses (a CAS loop charged once) or for
//                      an access the code skips (a test that found the bit set).
//
// Layout: a Shared<T> is its std::atomic<T> (same size, alignment and
// address), so rows and slots keep their layout and the model its lines.
//
// Thread safety: as std::atomic<T>.
#pragma once

#include <atomic>

#include "engine/core/sim_hooks.h"

namespace ccb {

template <class T>
class Shared {
 public:
  constexpr Shared() noexcept = default;
  constexpr Shared(T initial) noexcept : word_(initial) {}  // NOLINT: implicit, as std::atomic's
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;

  [[gnu::always_inline]] T load(std::memory_order order = std::memory_order_seq_cst) const {
    sim::touch(&word_, false);
    return word_.load(order);
  }
  [[gnu::always_inline]] void store(T v, std::memory_order order = std::memory_order_seq_cst) {
    sim::touch(&word_, true);
    word_.store(v, order);
  }
  [[gnu::always_inline]] T exchange(T v, std::memory_order order = std::memory_order_seq_cst) {
    sim::rmw(&word_);
    return word_.exchange(v, order);
  }
  [[gnu::always_inline]] bool compare_exchange_strong(T& expected, T desired,
                                                      std::memory_order order = std::memory_order_seq_cst) {
    sim::rmw(&word_);
    return word_.compare_exchange_strong(expected, desired, order);
  }
  [[gnu::always_inline]] bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                                                      std::memory_order failure) {
    sim::rmw(&word_);
    return word_.compare_exchange_strong(expected, desired, success, failure);
  }
  [[gnu::always_inline]] bool compare_exchange_weak(T& expected, T desired,
                                                    std::memory_order order = std::memory_order_seq_cst) {
    sim::rmw(&word_);
    return word_.compare_exchange_weak(expected, desired, order);
  }
  [[gnu::always_inline]] bool compare_exchange_weak(T& expected, T desired, std::memory_order success,
                                                    std::memory_order failure) {
    sim::rmw(&word_);
    return word_.compare_exchange_weak(expected, desired, success, failure);
  }
  template <class D>
  [[gnu::always_inline]] T fetch_add(D d, std::memory_order order = std::memory_order_seq_cst) {
    sim::rmw(&word_);
    return word_.fetch_add(d, order);
  }
  template <class D>
  [[gnu::always_inline]] T fetch_sub(D d, std::memory_order order = std::memory_order_seq_cst) {
    sim::rmw(&word_);
    return word_.fetch_sub(d, order);
  }
  [[gnu::always_inline]] T fetch_and(T v, std::memory_order order = std::memory_order_seq_cst) {
    sim::rmw(&word_);
    return word_.fetch_and(v, order);
  }
  [[gnu::always_inline]] T fetch_or(T v, std::memory_order order = std::memory_order_seq_cst) {
    sim::rmw(&word_);
    return word_.fetch_or(v, order);
  }

  // The model's charge alone (see the header comment).
  [[gnu::always_inline]] void charge_read() const { sim::touch(&word_, false); }
  [[gnu::always_inline]] void charge_write() const { sim::touch(&word_, true); }
  [[gnu::always_inline]] void charge_rmw() const { sim::rmw(&word_); }

  // The word without the model (see the header comment).
  std::atomic<T>& unmodelled() { return word_; }
  const std::atomic<T>& unmodelled() const { return word_; }

 private:
  std::atomic<T> word_;
};

// The model's charge for the line of a plain object other cores read or
// write that is not a Shared word (a row version, a per-thread slot): a read
// of it, or a write. Natively nothing.
[[gnu::always_inline]] inline void charge_line_read(const void* object) { sim::touch(object, false); }
[[gnu::always_inline]] inline void charge_line_write(const void* object) { sim::touch(object, true); }

static_assert(sizeof(Shared<unsigned long>) == sizeof(std::atomic<unsigned long>));
static_assert(alignof(Shared<unsigned long>) == alignof(std::atomic<unsigned long>));

}  // namespace ccb
