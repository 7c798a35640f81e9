// The protocols the C++ tests run over, and the properties that pick subsets
// of them.
//
// AllProtocols is every protocol of the registry, engine/cc/protocols.txt
// (CMake generates protocol_registry.h from it: every protocol's header and
// ccb::AllProtocolClasses). A typed suite over AllProtocols, or over a subset
// below, runs a newly registered protocol with no edit here. A subset is never
// a list of names: it is AllProtocols filtered by a named property
// (ProtocolsWhere<Property>).
//
// A property comes from the protocol where the protocol states it
// (protocol.h's concepts: HasLockService; PartCC's bind_workload), and is
// otherwise a test expectation: a default stated once here (for the
// expectations about conflicts, the optimistic protocols' behaviour, the
// largest family) and a specialisation, with a one-line why, for each
// protocol that differs, stated in the protocol's folder
// (engine/cc/<name>/test_expectations.h, included below through the generated
// protocol_test_expectations.h). A new protocol gets every default; its tests
// fail where a default does not describe it, and then it states its own value
// in its folder (CONTRIBUTING.md, "How to add a protocol").
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include <gtest/gtest.h>

#include "engine/txn/protocol.h"
#include "engine/config.h"
#include "engine/core/rc.h"
#include "engine/core/txn_desc.h"
#include "protocol_registry.h"

namespace ccb::test_support {

// ---- Type lists -------------------------------------------------------------

namespace detail {
template <class A, class B>
struct Concat;
template <class... A, class... B>
struct Concat<ProtocolList<A...>, ProtocolList<B...>> {
  using type = ProtocolList<A..., B...>;
};

template <template <class> class Keep, class List>
struct Filter;
template <template <class> class Keep>
struct Filter<Keep, ProtocolList<>> {
  using type = ProtocolList<>;
};
template <template <class> class Keep, class First, class... Rest>
struct Filter<Keep, ProtocolList<First, Rest...>> {
  using type = typename Concat<std::conditional_t<Keep<First>::value, ProtocolList<First>, ProtocolList<>>,
                               typename Filter<Keep, ProtocolList<Rest...>>::type>::type;
};

template <class List>
struct GtestTypes;
template <class... Ps>
struct GtestTypes<ProtocolList<Ps...>> {
  using type = ::testing::Types<Ps...>;
};
}  // namespace detail

// The registered protocols for which Property<CC>::value holds, in registry
// order, as a GoogleTest type list.
template <template <class> class Property>
using ProtocolsWhere = typename detail::GtestTypes<typename detail::Filter<Property, AllProtocolClasses>::type>::type;

// Every registered protocol.
using AllProtocols = typename detail::GtestTypes<AllProtocolClasses>::type;

// ---- Properties the protocols state ------------------------------------------

// One partition per key (local key mod n, for every table): the partitioning
// tests give a protocol that locks partitions when their workload has none of
// its own.
struct KeyPartitions {
  static constexpr const char* kName = "key_partitions";  // named in PartCC's refusal, which must compile
  static constexpr uint32_t kPartitions = 1024;
  uint32_t partition_count(uint32_t /*threads*/) const { return kPartitions; }
  uint32_t partition_of(GlobalKey k, uint32_t n) const { return static_cast<uint32_t>(local_key_of(k) % n); }
};

// The protocol binds the workload's partitioning before it runs (rundb/run.h):
// PartCC locks its partitions and refuses a workload that has none; Dora and
// Orthrus route their lock owners by it where the workload has one.
template <class CC>
concept NeedsPartitions = requires(CC cc, const EngineConfig& cfg, const KeyPartitions& w) {
  cc.bind_workload(cfg, w);
};

// ---- Test expectations ----------------------------------------------------------

// Whether the protocol keeps every history serializable: the registry's
// serializable field (no for NoCC, which runs without concurrency control by
// design, and for SI, which admits write skew).
template <class CC>
inline constexpr bool kSerializable = kRegisteredSerializable<CC>;

// What a transaction's access does when it conflicts with an access of an
// active transaction that began before it (read-write or write-write on one
// row), in the schedules of tests/engine/protocol_test.cpp. For protocols
// that lock a predicted access set, the access is that acquisition (their
// acquire_all() right after begin, as the executor calls it).
enum class OnConflict {
  kProceeds,  // the access succeeds; validation at commit decides (optimistic)
  kRefused,   // the access fails at once with kRefusal<CC>; the transaction aborts
  kWaits,     // the access waits until the earlier transaction finishes, then succeeds
};
template <class CC>
inline constexpr OnConflict kOnConflict = OnConflict::kProceeds;

// The failure of a refused access (kOnConflict == kRefused).
template <class CC>
inline constexpr RC kRefusal = RC::kLockConflict;

// "T1 reads A; T2 overwrites A and commits; T1 commits", for protocols whose
// writer proceeds: T1 < T2 is serializable, yet only protocols that can order
// T1 before an already committed writer commit T1; the others abort it at
// validation.
template <class CC>
inline constexpr bool kReaderCommitsBeforeOverwriter = false;

// Two transactions reading one row both proceed at once.
template <class CC>
inline constexpr bool kReadersShareRows = true;

// A reader of a key that an active transaction is inserting waits for the
// inserter (and then finds the row) instead of not finding it.
template <class CC>
inline constexpr bool kPendingInsertBlocksReaders = false;

// A set of abort reasons, one bit per RC.
constexpr uint32_t rc_set(std::initializer_list<RC> reasons) {
  uint32_t bits = 0;
  for (RC r : reasons) bits |= uint32_t{1} << static_cast<unsigned>(r);
  return bits;
}
constexpr bool contains(uint32_t set, RC rc) { return (set >> static_cast<unsigned>(rc)) & 1; }

// The abort reasons of a protocol's conflict rule alone: optimistic
// protocols fail validation, refusing ones are refused, waiting ones wait and
// never abort.
template <class CC>
inline constexpr uint32_t kRuleAborts = kOnConflict<CC> == OnConflict::kProceeds  ? rc_set({RC::kValidation})
                                        : kOnConflict<CC> == OnConflict::kRefused ? rc_set({kRefusal<CC>})
                                                                                   : rc_set({});

// The abort reasons a protocol may report under contention when every
// request's predicted access set is exact (YCSB): its rule's, and a second
// one where the protocol ends some conflicts otherwise. Any other reason is a
// bug.
template <class CC>
inline constexpr uint32_t kConflictAborts = kRuleAborts<CC>;

// A run aborted only for the reasons CC's conflict rule gives.
template <class CC>
void expect_only_conflict_aborts(const std::array<uint64_t, static_cast<size_t>(RC::kCount)>& aborts_by_reason) {
  for (size_t i = 1; i < aborts_by_reason.size(); ++i) {
    if (!contains(kConflictAborts<CC>, static_cast<RC>(i))) {
      EXPECT_EQ(aborts_by_reason[i], 0u) << CC::kName << " aborted for " << rc_name(static_cast<RC>(i));
    }
  }
}

// Every attempt of a declared read-only request sees a consistent state, even
// one that later aborts (tests/cc/stress_test.cpp's bank audits): true where
// conflicting accesses wait or are refused (reads under locks), false where
// they proceed and validation comes after the reads.
template <class CC>
inline constexpr bool kConsistentReadOnlyAttempts = kOnConflict<CC> != OnConflict::kProceeds;

// Commits a 0.4 s stress run on 4 workers must reach.
template <class CC>
inline constexpr uint64_t kMinStressCommits = 100;

}  // namespace ccb::test_support

// Each registered protocol's engine/cc/<name>/test_expectations.h, where it
// has one: its specialisations of the defaults above. They must precede the
// subsets below, which instantiate the expectations.
#include "protocol_test_expectations.h"

namespace ccb::test_support {

// ---- Subsets ----------------------------------------------------------------------

template <class CC>
struct IsSerializable : std::bool_constant<kSerializable<CC>> {};
using SerializableProtocols = ProtocolsWhere<IsSerializable>;

// Protocols whose threads are all workers (no lock-service threads,
// protocol.h HasLockService): the only ones the bundle executor runs.
template <class CC>
struct RunsOnWorkersAlone : std::bool_constant<!HasLockService<CC>> {};

// Serializable protocols whose conflicting accesses proceed and are validated
// at commit: OCC and its descendants, where TSKD applies TsDEFER (its Fig 4b
// runs OCC, Silo and TicToc).
template <class CC>
struct IsOptimistic : std::bool_constant<kSerializable<CC> && kOnConflict<CC> == OnConflict::kProceeds> {};
using OptimisticProtocols = ProtocolsWhere<IsOptimistic>;

// One serializable protocol per conflict rule (kOnConflict: proceed and
// validate, be refused, wait): the first in registry order whose conflicts end
// only by its rule (kConflictAborts == kRuleAborts: not DlDetect, whose waits
// can end in a deadlock abort, nor MOCC). For the suites whose subject is not
// the protocol (a workload's invariants and rollbacks, a procedure's effects):
// how a conflict ends (an abort at access, an abort at commit, a wait) is what
// they meet of it. Each protocol's own correctness is the engine's stress
// test's (every serializable protocol) and the verify tier's (every workload
// under every serializable protocol, tests/engine/CMakeLists.txt).
namespace detail {
template <class CC>
struct EndsConflictsByItsRule : std::bool_constant<kSerializable<CC> && kConflictAborts<CC> == kRuleAborts<CC>> {};

template <class List, class Kept>
struct FirstPerConflictRule;
template <class... Kept>
struct FirstPerConflictRule<ProtocolList<>, ProtocolList<Kept...>> {
  using type = ProtocolList<Kept...>;
};
template <class First, class... Rest, class... Kept>
struct FirstPerConflictRule<ProtocolList<First, Rest...>, ProtocolList<Kept...>> {
  static constexpr bool kNewRule = ((kOnConflict<Kept> != kOnConflict<First>) && ...);
  using type = typename FirstPerConflictRule<
      ProtocolList<Rest...>, std::conditional_t<kNewRule, ProtocolList<Kept..., First>, ProtocolList<Kept...>>>::type;
};
}  // namespace detail
using OnePerConflictRule = typename detail::GtestTypes<typename detail::FirstPerConflictRule<
    typename detail::Filter<detail::EndsConflictsByItsRule, AllProtocolClasses>::type, ProtocolList<>>::type>::type;

}  // namespace ccb::test_support
