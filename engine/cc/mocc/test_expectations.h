// Mocc's expectations in the C++ protocol tests, where the defaults of
// tests/support/protocols.h do not describe it: one specialisation per
// expectation, each with why. Included by tests/support/protocols.h only (through
// the generated protocol_test_expectations.h, after the defaults' primary
// templates); a protocol whose defaults all hold has no such file.
#pragma once

namespace ccb::test_support {

// Cold rows validate; a hot row's lock taken out of order is tried once.
template <>
inline constexpr uint32_t kConflictAborts<Mocc> = rc_set({RC::kValidation, RC::kLockConflict});

}  // namespace ccb::test_support
