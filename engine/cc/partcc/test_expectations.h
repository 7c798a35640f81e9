// PartCC's expectations in the C++ protocol tests, where the defaults of
// tests/support/protocols.h do not describe it: one specialisation per
// expectation, each with why. Included by tests/support/protocols.h only (through
// the generated protocol_test_expectations.h, after the defaults' primary
// templates); a protocol whose defaults all hold has no such file.
#pragma once

namespace ccb::test_support {

template <>
inline constexpr OnConflict kOnConflict<PartCC> = OnConflict::kWaits;  // for the partition lock

template <>
inline constexpr bool kReadersShareRows<PartCC> = false;  // one exclusive lock per partition, readers included

template <>
inline constexpr bool kPendingInsertBlocksReaders<PartCC> = true;  // the new key's partition is locked

}  // namespace ccb::test_support
