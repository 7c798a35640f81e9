// Distinct Zipf keys in bounded time (YCSB, SmallBank, micro). A
// transaction that needs k distinct keys draws again on a repeat. At high
// skew over few keys nearly every draw repeats one of the hottest keys
// (θ = 7 and 16 keys out of 100000: about 2e8 draws), so each generator
// refuses, before any O(keys) work, a combination whose expected number of
// draws exceeds kMaxDrawsPerTxn in the worst case: the keys already drawn are
// the hottest ones, so the m-th new key takes 1 / (1 - mass of the m hottest
// keys) draws on average. The masses are the Zipf law's; the samplers draw
// exactly that law for θ >= 1 and for the two hottest keys below 1
// (engine/core/zipf.h), where the bound is far from binding anyway (at most
// about 1300 draws, 64 keys out of 64).
#pragma once

#include <cstdint>
#include <string>

namespace ccb {

// At most this many Zipf draws per transaction on average (worst case):
// about 0.1 ms of generation. The papers' settings need at most ~60 (θ = 1.5,
// 16 keys); θ = 3 with 16 keys needs ~3300 and is refused.
inline constexpr double kMaxDrawsPerTxn = 2000;

// The worst-case expected number of Zipf(theta) draws over `keys` keys that
// yields `distinct` distinct ones (see above). O(distinct + 2^16); +inf when
// distinct > keys.
double worst_case_draws(uint64_t keys, double theta, uint32_t distinct);

// Throws ConfigError naming --theta when worst_case_draws(keys, theta,
// distinct) > kMaxDrawsPerTxn. `what` says what is drawn ("--req_per_txn=16
// distinct keys of --table_size=100 keys"), `remedy` which flags to change.
void require_bounded_distinct_draws(uint64_t keys, double theta, uint32_t distinct, const std::string& what,
                                    const std::string& remedy);

}  // namespace ccb
