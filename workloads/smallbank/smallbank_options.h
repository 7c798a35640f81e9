// SmallBank knobs, validated from flags (--smallbank_* and --theta, workloads/key_skew.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "engine/core/options.h"
#include "workloads/key_skew.h"

namespace ccb {

// The six SmallBank transactions (Alomari et al., "The Cost of Serializability
// on Platforms That Use Snapshot Isolation", ICDE 2008; H-Store's version).
enum class SmallBankTxn : uint32_t {
  kBalance,
  kDepositChecking,
  kTransactSavings,
  kAmalgamate,
  kWriteCheck,
  kSendPayment,
  kCount
};
inline constexpr size_t kSmallBankTxnTypes = static_cast<size_t>(SmallBankTxn::kCount);

struct SmallBankOptions {
  uint64_t customers = 100000;  // ding Sec. 5.5: "100K customers"
  KeySkewOptions key_skew;      // --theta: Zipf skew of customer choice (ding sweeps it)
  // Relative weights of the transaction types in enum order; uniform by
  // default because ding does not state a mix [INF].
  std::array<uint32_t, kSmallBankTxnTypes> mix{1, 1, 1, 1, 1, 1};

  static OptionsTable<SmallBankOptions> flags;  // its rows: smallbank_options.cpp
  static SmallBankOptions from_flags();
  void to_json(JsonWriter& w) const;
  std::string mix_string() const;  // "1,1,1,1,1,1"
  // Parses "w0,w1,...,w5"; throws ConfigError naming `flag` when malformed.
  static std::array<uint32_t, kSmallBankTxnTypes> parse_mix(const std::string& s, const std::string& flag);
};

}  // namespace ccb
