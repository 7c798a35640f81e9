// SmallBank's request generator, without tables or protocol (the tables and
// the six procedures are SmallBankWorkload<CC>, smallbank.h): a transaction
// type by the --smallbank_mix weights, customers by Zipf(theta) (two distinct
// ones for Amalgamate and SendPayment), amounts uniform (see smallbank.h).
// Also the schema facts the predicted access sets and the loaded database
// need: table ids and the initial balances (a fixed function of the
// customer, so the middle tier loads PostgreSQL with the same database).
//
// Set-up in two steps, so a run is refused before any O(customers) work: the
// constructor only checks (ConfigError naming --theta when two distinct
// customers would take too many draws, workloads/distinct_keys.h), prepare()
// builds the Zipf distribution.
//
// Thread safety: after prepare(), generate() and describe() are const and
// may run concurrently, each caller with its own Random.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"
#include "engine/core/zipf.h"
#include "workloads/smallbank/smallbank_options.h"

namespace ccb {

struct SmallBankRequest {
  uint32_t type = 0;  // SmallBankTxn
  uint32_t c1 = 0, c2 = 0;
  int32_t amount = 0;
  SmallBankTxn txn() const { return static_cast<SmallBankTxn>(type); }
  bool two_customers() const { return txn() == SmallBankTxn::kAmalgamate || txn() == SmallBankTxn::kSendPayment; }
};

class SmallBankGenerator {
 public:
  using Request = SmallBankRequest;
  static constexpr uint32_t kAccountsId = 20, kSavingsId = 21, kCheckingId = 22;
  static constexpr int64_t kMinBalance = 10000, kMaxBalance = 50000;  // H-Store's MIN/MAX_BALANCE
  static constexpr int32_t kMaxAmount = 100;

  explicit SmallBankGenerator(const SmallBankOptions& o);
  void prepare();  // idempotent

  std::vector<std::string> txn_types() const {
    return {"Balance", "DepositChecking", "TransactSavings", "Amalgamate", "WriteCheck", "SendPayment"};
  }
  // REQUIRES: prepare() (std::logic_error otherwise).
  void generate(Random& rng, uint32_t thread, Request& r) const;
  TxnDesc describe(const Request& r) const;
  const SmallBankOptions& options() const { return opt_; }

  // The loaded balance of a customer's savings (account 0) or checking
  // (account 1): uniform in [kMinBalance, kMaxBalance], a fixed function of
  // the customer id.
  static int64_t initial_balance(uint64_t customer, uint64_t account) {
    uint64_t s = customer * 2 + account;
    return kMinBalance + static_cast<int64_t>(splitmix64(s) % (kMaxBalance - kMinBalance + 1));
  }

 private:
  SmallBankOptions opt_;
  std::array<uint64_t, kSmallBankTxnTypes> cumulative_mix_{};
  std::optional<ZipfDistribution> zipf_;
};

}  // namespace ccb
