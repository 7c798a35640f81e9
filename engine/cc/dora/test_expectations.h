// Dora's expectations in the C++ protocol tests, where the defaults of
// tests/support/protocols.h do not describe it: one specialisation per
// expectation, each with why. Included by tests/support/protocols.h only (through
// the generated protocol_test_expectations.h, after the defaults' primary
// templates); a protocol whose defaults all hold has no such file.
#pragma once

namespace ccb::test_support {

template <>
inline constexpr OnConflict kOnConflict<Dora> = OnConflict::kWaits;  // the owner queues the request

template <>
inline constexpr bool kPendingInsertBlocksReaders<Dora> = true;  // owners lock keys, whether the row exists or not

// Dora's 4 owners are the workers: on the CI machine's 2 cores (and under
// TSan) each cross-partition lock request waits until its owner thread is
// scheduled again, so its floor only proves progress.
template <>
inline constexpr uint64_t kMinStressCommits<Dora> = 10;

}  // namespace ccb::test_support
