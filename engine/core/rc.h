// Outcome of a transaction operation, and the reason when it is an abort.
// Every abort is counted under its reason in the results (aborts_by_reason).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ccb {

enum class RC : uint8_t {
  kOk = 0,
  kLockConflict,  // 2PL: a lock was not available (NoWait) or could not be taken
  kValidation,    // optimistic validation failed (read set changed, ts order)
  kWaitDie,       // wait-die killed the younger transaction
  kDeadlock,      // deadlock detector chose this transaction as victim
  kUser,          // the procedure itself asked to roll back (e.g. TPC-C 1%)
  kNotFound,      // a key the procedure looked up does not exist
  kPredictionMismatch,  // OLLP: the access set a reconnaissance read predicted was wrong (bundle executor)
  kHistoryMemory,  // BCC: a read-set table had to grow and its thread's bounded history memory had no room
  kCount
};

inline constexpr std::array<std::string_view, static_cast<size_t>(RC::kCount)> kRcNames = {
    "ok", "lock_conflict", "validation", "wait_die", "deadlock", "user_abort", "not_found",
    "prediction_mismatch", "history_memory"};

constexpr std::string_view rc_name(RC rc) { return kRcNames[static_cast<size_t>(rc)]; }

}  // namespace ccb
