// Bcc's expectations in the C++ protocol tests, where the defaults of
// tests/support/protocols.h do not describe it: one specialisation per
// expectation, each with why. Included by tests/support/protocols.h only (through
// the generated protocol_test_expectations.h, after the defaults' primary
// templates); a protocol whose defaults all hold has no such file.
#pragma once

namespace ccb::test_support {

template <>
inline constexpr bool kReaderCommitsBeforeOverwriter<Bcc> = true;  // no dangerous structure: BCC saves T1

template <>
inline constexpr bool kConsistentReadOnlyAttempts<Bcc> = true;  // read-only requests run on snapshots

}  // namespace ccb::test_support
