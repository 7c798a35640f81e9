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
// starved their waiters that way). Natively every hook is an empty inline
// function: the native code is std::atomic's.
//
// The model's policy is declared with the word, not at each use:
//
//   Shared<T>          (Modelled::kYes) every operation is charged, just before
//                      the access:
//                        load               a read of the word's line   (sim::touch(&word, false))
//                        store              a write of it                (sim::touch(&word, true))
//                        exchange, compare_exchange_*, fetch_*
//                                           a read-modify-write of it    (sim::rmw(&word))
//   Shared<T, Modelled::kNo>
//                      no operation is charged. For words that are not lines
//                      of the modelled run: flags and counts written once per
//                      run or per epoch (a thread count, a regulator's
//                      schedule), and words whose object's line is charged as
//                      a whole by the code that owns it (charge_line_read /
//                      charge_line_write below: a thread's published slots,
//                      a history entry). Say which at the declaration.
//
// At a site, each one line: a group of accesses charged once, or an access
// whose line this core already holds:
//   LineAccess         a scope over one object (a row header, a thread's
//                      slot): read_line / write_line / rmw_line(obj) charge the
//                      object's line once, and its Shared words are then
//                      accessed plainly through the scope, line[word] (a word
//                      of another object is refused by an assertion);
//                      unshared_line(obj) for an object no other core can
//                      reach yet (an inserted row before it is published).
//   reread(), rewrite()
//                      a read or a store of a word whose line this core
//                      holds: it has just loaded the word (a seqlock's
//                      re-check), written the row, or holds the lock whose
//                      acquisition charged the line.
//   charge_read(), charge_write(), charge_rmw()
//                      the model's charge alone, for the core's latches
//                      (engine/core/latch.h): where it stands for an access
//                      the code skips (a test that found the bit set) or for a
//                      CAS loop the latch makes through unmodelled().
// and unmodelled(), the word without the model, for the few per-access
// opt-outs left, each with its reason at the site.

//
// Layout: a Shared<T> is its std::atomic<T> (same size, alignment and
// address), so rows and slots keep their layout and the model its lines.
//
// Thread safety: as std::atomic<T>.
#pragma once

#include <atomic>
#include <cassert>
#include <cstddef>

#include "engine/core/sim_hooks.h"

namespace ccb {

enum class Modelled : bool { kNo = false, kYes = true };

template <class T, Modelled kModel = Modelled::kYes>
class Shared {
  static constexpr bool kCharged = kModel == Modelled::kYes;

 public:
  constexpr Shared() noexcept = default;
  constexpr Shared(T initial) noexcept : word_(initial) {}  // NOLINT: implicit, as std::atomic's
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;

  [[gnu::always_inline]] T load(std::memory_order order = std::memory_order_seq_cst) const {
    if constexpr (kCharged) sim::touch(&word_, false);
    return word_.load(order);
  }
  [[gnu::always_inline]] void store(T v, std::memory_order order = std::memory_order_seq_cst) {
    if constexpr (kCharged) sim::touch(&word_, true);
    word_.store(v, order);
  }
  [[gnu::always_inline]] T exchange(T v, std::memory_order order = std::memory_order_seq_cst) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.exchange(v, order);
  }
  [[gnu::always_inline]] bool compare_exchange_strong(T& expected, T desired,
                                                      std::memory_order order = std::memory_order_seq_cst) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.compare_exchange_strong(expected, desired, order);
  }
  [[gnu::always_inline]] bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                                                      std::memory_order failure) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.compare_exchange_strong(expected, desired, success, failure);
  }
  [[gnu::always_inline]] bool compare_exchange_weak(T& expected, T desired,
                                                    std::memory_order order = std::memory_order_seq_cst) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.compare_exchange_weak(expected, desired, order);
  }
  [[gnu::always_inline]] bool compare_exchange_weak(T& expected, T desired, std::memory_order success,
                                                    std::memory_order failure) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.compare_exchange_weak(expected, desired, success, failure);
  }
  template <class D>
  [[gnu::always_inline]] T fetch_add(D d, std::memory_order order = std::memory_order_seq_cst) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.fetch_add(d, order);
  }
  template <class D>
  [[gnu::always_inline]] T fetch_sub(D d, std::memory_order order = std::memory_order_seq_cst) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.fetch_sub(d, order);
  }
  [[gnu::always_inline]] T fetch_and(T v, std::memory_order order = std::memory_order_seq_cst) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.fetch_and(v, order);
  }
  [[gnu::always_inline]] T fetch_or(T v, std::memory_order order = std::memory_order_seq_cst) {
    if constexpr (kCharged) sim::rmw(&word_);
    return word_.fetch_or(v, order);
  }

  // A read of a word whose line this core holds: it loaded the word just
  // before (a seqlock's re-check) or holds the row's lock, whose acquisition
  // charged the line. Not charged again (see the header comment).
  [[gnu::always_inline]] T reread(std::memory_order order = std::memory_order_relaxed) const {
    return word_.load(order);
  }

  // A store to a word whose line this core holds: it has just written the
  // row (Txn::install charged its line) or holds the lock whose acquisition
  // charged it. Not charged again (see the header comment).
  [[gnu::always_inline]] void rewrite(T v, std::memory_order order = std::memory_order_seq_cst) {
    word_.store(v, order);
  }

  // The model's charge alone (see the header comment).
  [[gnu::always_inline]] void charge_read() const requires kCharged { sim::touch(&word_, false); }
  [[gnu::always_inline]] void charge_write() const requires kCharged { sim::touch(&word_, true); }
  [[gnu::always_inline]] void charge_rmw() const requires kCharged { sim::rmw(&word_); }

  // The word without the model: for the core's own primitives (the latches)
  // that charge a loop of accesses themselves, and for a protocol's few
  // per-access opt-outs, each with its reason at the site.

  std::atomic<T>& unmodelled() { return word_; }
  const std::atomic<T>& unmodelled() const { return word_; }

 private:
  std::atomic<T> word_;
};

// The model's charge for the line of a plain object other cores read or
// write that is not a Shared word (a row version, a per-thread slot), or of
// an object whose words are Shared<T, Modelled::kNo>: a read of it, or a
// write, or a read-modify-write. Natively nothing.
[[gnu::always_inline]] inline void charge_line_read(const void* object) { sim::touch(object, false); }
[[gnu::always_inline]] inline void charge_line_write(const void* object) { sim::touch(object, true); }
[[gnu::always_inline]] inline void charge_line_rmw(const void* object) { sim::rmw(object); }

// A group of accesses to the Shared words of one object (a row header's
// stamps, a thread's slot), charged once: made by read_line / write_line /
// rmw_line,
// which charge the object's line, then line[word] is the word itself. A word
// outside the object is a modelling error (its line was never charged) and
// fails the assertion.
template <class Object>
class LineAccess {
 public:
  template <class T, Modelled M>
  [[gnu::always_inline]] std::atomic<T>& operator[](Shared<T, M>& word) const {
    assert(inside(&word));
    return word.unmodelled();
  }
  template <class T, Modelled M>
  [[gnu::always_inline]] const std::atomic<T>& operator[](const Shared<T, M>& word) const {
    assert(inside(&word));
    return word.unmodelled();
  }

 private:
  template <class O>
  friend LineAccess<O> read_line(O& object);
  template <class O>
  friend LineAccess<O> write_line(O& object);
  template <class O>
  friend LineAccess<O> rmw_line(O& object);
  template <class O>
  friend LineAccess<O> unshared_line(O& object);
  explicit LineAccess(Object& object) : object_(&object) {}
  bool inside(const void* word) const {
    const auto* p = static_cast<const std::byte*>(word);
    const auto* o = reinterpret_cast<const std::byte*>(object_);
    return p >= o && p < o + sizeof(Object);
  }
  Object* object_;
};
template <class Object>
inline LineAccess<Object> read_line(Object& object) {
  sim::touch(&object, false);
  return LineAccess<Object>(object);
}
template <class Object>
inline LineAccess<Object> write_line(Object& object) {
  sim::touch(&object, true);
  return LineAccess<Object>(object);
}

// One read-modify-write of the object's line for a loop of accesses (a CAS
// loop that may retry: one charge, a hot line's RMWs serialize).
template <class Object>
inline LineAccess<Object> rmw_line(Object& object) {
  sim::rmw(&object);
  return LineAccess<Object>(object);
}

// An object no other core can reach yet (a row before its insert is
// published in the index): its words are accessed plainly, with nothing to
// charge.
template <class Object>
inline LineAccess<Object> unshared_line(Object& object) {
  return LineAccess<Object>(object);
}

static_assert(sizeof(Shared<unsigned long>) == sizeof(std::atomic<unsigned long>));
static_assert(alignof(Shared<unsigned long>) == alignof(std::atomic<unsigned long>));
static_assert(sizeof(Shared<unsigned long, Modelled::kNo>) == sizeof(std::atomic<unsigned long>));

}  // namespace ccb
