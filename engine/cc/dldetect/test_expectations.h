// DlDetect's expectations in the C++ protocol tests, where the defaults of
// tests/support/protocols.h do not describe it: one specialisation per
// expectation, each with why. Included by tests/support/protocols.h only (through
// the generated protocol_test_expectations.h, after the defaults' primary
// templates); a protocol whose defaults all hold has no such file.
#pragma once

namespace ccb::test_support {

template <>
inline constexpr OnConflict kOnConflict<DlDetect> = OnConflict::kWaits;  // queued until the holder releases

template <>
inline constexpr uint32_t kConflictAborts<DlDetect> = rc_set({RC::kDeadlock});  // waits, but a deadlock has a victim

}  // namespace ccb::test_support
