// Helpers shared by the workloads of workloads/: parallel loading, sums of a
// row field, and the "counted effect = stored state" invariant they all check
// after a run (README.md, design property 5).
//
// Thread safety: parallel_for() runs `fn` concurrently on disjoint index
// ranges; sum_field() must not run concurrently with transactions (it reads
// rows without any protocol, after the run).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "engine/core/table.h"
#include "engine/workload.h"

namespace ccb {

// Calls fn(i) for every i in [0, n), splitting the range into `threads`
// contiguous chunks run in parallel (the calling thread takes none). Tables are
// loaded this way so that first-touch of row memory is spread over the loader
// threads and loading scales with --load_threads.
template <class Fn>
void parallel_for(int threads, uint64_t n, Fn fn) {
  if (threads < 1) threads = 1;
  if (n < uint64_t(threads) * 1024) threads = 1;  // not worth a thread
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([=, &fn] {
      for (uint64_t i = n * t / threads; i < n * (t + 1) / threads; ++i) fn(i);
    });
  }
  for (auto& th : pool) th.join();
}

// The payload of a loaded row, addressed by its load slot (no index lookup).
template <class CC>
uint8_t* slot_payload(const Table<CC>& table, uint64_t slot) {
  return table.slot_row(slot)->data() + kVersionBytes;
}

// Field of type T at byte `offset` of the payload.
template <class T>
T load_field(const uint8_t* payload, size_t offset) {
  static_assert(std::is_trivially_copyable_v<T>);
  T v;
  std::memcpy(&v, payload + offset, sizeof v);
  return v;
}
template <class T>
void store_field(uint8_t* payload, size_t offset, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::memcpy(payload + offset, &v, sizeof v);
}

// Sum of the T-typed field at `offset` over every loaded row of `table`.
// REQUIRES: all rows were placed by Table::load (slots 0..initial_rows-1).
template <class T, class CC>
T sum_field(const Table<CC>& table, size_t offset) {
  T sum{};
  for (uint64_t s = 0; s < table.initial_rows(); ++s) sum += load_field<T>(slot_payload(table, s), offset);
  return sum;
}

// Sum of one member over the per-worker states of a run.
template <class State, class T>
T sum_states(const std::vector<State>& states, T State::*member) {
  T sum{};
  for (const State& s : states) sum += s.*member;
  return sum;
}

// "What the database holds equals what committed transactions say they did":
// the shape of every counter/money invariant here. A lost update, a torn write
// or an effect applied by an aborted attempt makes the two sides differ.
template <class T>
InvariantResult equality_invariant(std::string name, const std::string& stored_what, T stored,
                                   const std::string& committed_what, T committed) {
  InvariantResult r;
  r.name = std::move(name);
  r.ok = stored == committed;
  r.detail = stored_what + " " + std::to_string(stored) + ", " + committed_what + " " + std::to_string(committed);
  return r;
}

}  // namespace ccb
