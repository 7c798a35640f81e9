// SmallBank (Alomari et al., ICDE 2008; H-Store's procedures), the second
// workload of the batching-and-reordering paper (ding Sec. 5.5: "100K
// customers, including 100K checking and 100K savings accounts", Zipfian
// choice of customers).
//
// Schema: three tables keyed by customer id c in [0, customers):
//   accounts  (table 20): c, name[16]       read-only (the name lookup of H-Store)
//   savings   (table 21): balance (int64)
//   checking  (table 22): balance (int64)
// Balances are integer money units; initial balances are uniform in
// [10000, 50000] (H-Store's MIN_BALANCE/MAX_BALANCE), a fixed function of the
// customer id so the database is the same for every seed and loader count.
//
// Transactions (enum SmallBankTxn; customers c1 != c2 drawn by Zipf(theta)):
//   Balance(c1)               read savings and checking
//   DepositChecking(c1, v)    checking += v                (v in [1, 100])
//   TransactSavings(c1, v)    savings += v; rolls back if it would go
//                             negative                     (v in [-100, 100] \ {0})
//   Amalgamate(c1, c2)        move all of c1's money into c2's checking
//   WriteCheck(c1, v)         checking -= v, or v + 1 (overdraft penalty) when
//                             savings + checking < v       (v in [1, 100])
//   SendPayment(c1, c2, v)    checking(c1) -= v, checking(c2) += v; rolls back
//                             if checking(c1) < v          (v in [1, 100])
// Every procedure first reads accounts(c) of each customer, as H-Store's
// procedures look the customer up before touching balances.
//
// Invariant (money conservation): after a run, the sum of all savings and
// checking balances equals the loaded total plus the net money that committed
// transactions brought in or took out. WriteCheck's net effect depends on the
// balances it read, so each procedure attempt stores its actual net effect in
// attempt_scratch and on_commit() adds the committed attempt's effect to the
// worker's ThreadState (workloads/common/attempt_scratch.h).
//
// The requests and predicted access sets come from SmallBankGenerator
// (smallbank_generator.h).
//
// Thread safety: run() from any number of worker threads after load();
// generate()/describe() are const and thread-safe.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/txn/txn.h"
#include "engine/core/keep_alive.h"
#include "engine/core/random.h"
#include "engine/core/json.h"
#include "workloads/common/attempt_scratch.h"
#include "workloads/common/table_util.h"
#include "workloads/smallbank/smallbank_generator.h"
#include "engine/workload.h"

namespace ccb {

template <class CC>
class SmallBankWorkload {
 public:
  static constexpr const char* kName = "smallbank";
  static constexpr uint32_t kAccountsId = SmallBankGenerator::kAccountsId, kSavingsId = SmallBankGenerator::kSavingsId,
                            kCheckingId = SmallBankGenerator::kCheckingId;
  static constexpr size_t kNameBytes = 16;
  static constexpr size_t kAccountPayload = 8 + kNameBytes;  // custid, name
  using Request = SmallBankRequest;
  struct ThreadState {
    int64_t net_money = 0;  // money committed transactions added (deposits) minus removed (checks)
  };

  // Cheap (no O(customers) work): the generator's checks only.
  explicit SmallBankWorkload(const SmallBankOptions& o) : opt_(o), generator_(o) {}

  std::vector<std::string> txn_types() const { return generator_.txn_types(); }

  MemoryEstimate memory_estimate() const {
    const uint64_t n = opt_.customers;
    return {Table<CC>::bytes_for(kAccountPayload, n, n) + 2 * Table<CC>::bytes_for(8, n, n), "smallbank_customers"};
  }

  void load(int threads) {
    generator_.prepare();
    const uint64_t n = opt_.customers;
    accounts_ = std::make_unique<Table<CC>>(kAccountsId, "accounts", kAccountPayload, n, n);
    savings_ = std::make_unique<Table<CC>>(kSavingsId, "savings", 8, n, n);
    checking_ = std::make_unique<Table<CC>>(kCheckingId, "checking", 8, n, n);
    parallel_for(threads, n, [this](uint64_t c) {
      uint8_t* a = accounts_->load(c, c);
      store_field<uint64_t>(a, 0, c);
      const std::string name = "cust" + std::to_string(c);  // loader only, not the measured path
      std::memcpy(a + 8, name.data(), std::min(name.size(), kNameBytes));
      store_field<int64_t>(savings_->load(c, c), 0, SmallBankGenerator::initial_balance(c, 0));
      store_field<int64_t>(checking_->load(c, c), 0, SmallBankGenerator::initial_balance(c, 1));
    });
    initial_total_ = total_money();
  }

  void generate(Random& rng, uint32_t thread, Request& r) const { generator_.generate(rng, thread, r); }

  template <class TxnT>
  RC run(TxnT& txn, const Request& r) {
    int64_t& net = attempt_scratch<SmallBankWorkload, int64_t>();
    net = 0;
    {  // Each customer's account, savings and checking rows (Txn::prefetch).
      typename TxnT::PrefetchKey declared[6];
      size_t n = 0;
      for (uint64_t c : {r.c1, r.c2}) {
        declared[n++] = {accounts_.get(), c};
        declared[n++] = {savings_.get(), c};
        declared[n++] = {checking_.get(), c};
        if (!r.two_customers()) break;
      }
      txn.prefetch(declared, n);
    }
    // The customer lookup every H-Store procedure starts with.
    if (!lookup(txn, r.c1) || (r.two_customers() && !lookup(txn, r.c2))) return txn.failure();
    switch (r.txn()) {
      case SmallBankTxn::kBalance: {
        const uint8_t* s = txn.read(*savings_, r.c1);
        if (s == nullptr) return txn.failure();
        const uint8_t* c = txn.read(*checking_, r.c1);
        if (c == nullptr) return txn.failure();
        keep_alive(static_cast<uint64_t>(load_field<int64_t>(s, 0) + load_field<int64_t>(c, 0)));
        return RC::kOk;
      }
      case SmallBankTxn::kDepositChecking: {
        uint8_t* c = txn.update(*checking_, r.c1);
        if (c == nullptr) return txn.failure();
        store_field<int64_t>(c, 0, load_field<int64_t>(c, 0) + r.amount);
        net = r.amount;
        return RC::kOk;
      }
      case SmallBankTxn::kTransactSavings: {
        uint8_t* s = txn.update(*savings_, r.c1);
        if (s == nullptr) return txn.failure();
        const int64_t bal = load_field<int64_t>(s, 0) + r.amount;
        if (bal < 0) return RC::kUser;  // insufficient funds: roll back
        store_field<int64_t>(s, 0, bal);
        net = r.amount;
        return RC::kOk;
      }
      case SmallBankTxn::kAmalgamate: {
        uint8_t* s1 = txn.update(*savings_, r.c1);
        if (s1 == nullptr) return txn.failure();
        uint8_t* k1 = txn.update(*checking_, r.c1);
        if (k1 == nullptr) return txn.failure();
        uint8_t* k2 = txn.update(*checking_, r.c2);
        if (k2 == nullptr) return txn.failure();
        const int64_t total = load_field<int64_t>(s1, 0) + load_field<int64_t>(k1, 0);
        store_field<int64_t>(s1, 0, 0);
        store_field<int64_t>(k1, 0, 0);
        store_field<int64_t>(k2, 0, load_field<int64_t>(k2, 0) + total);
        return RC::kOk;
      }
      case SmallBankTxn::kWriteCheck: {
        const uint8_t* s = txn.read(*savings_, r.c1);
        if (s == nullptr) return txn.failure();
        uint8_t* c = txn.update(*checking_, r.c1);
        if (c == nullptr) return txn.failure();
        const int64_t checking = load_field<int64_t>(c, 0);
        // Overdraft: the check still clears, with a penalty of one unit.
        const int64_t debit = load_field<int64_t>(s, 0) + checking < r.amount ? r.amount + 1 : r.amount;
        store_field<int64_t>(c, 0, checking - debit);
        net = -debit;
        return RC::kOk;
      }
      case SmallBankTxn::kSendPayment: {
        uint8_t* from = txn.update(*checking_, r.c1);
        if (from == nullptr) return txn.failure();
        const int64_t bal = load_field<int64_t>(from, 0);
        if (bal < r.amount) return RC::kUser;  // insufficient funds: roll back
        uint8_t* to = txn.update(*checking_, r.c2);
        if (to == nullptr) return txn.failure();
        store_field<int64_t>(from, 0, bal - r.amount);
        store_field<int64_t>(to, 0, load_field<int64_t>(to, 0) + r.amount);
        return RC::kOk;
      }
      default:
        return RC::kUser;  // unreachable: generate() only makes the six types
    }
  }

  TxnDesc describe(const Request& r) const { return generator_.describe(r); }

  void on_commit(ThreadState& s, const Request&) const { s.net_money += attempt_scratch<SmallBankWorkload, int64_t>(); }

  std::vector<InvariantResult> check_invariants(const std::vector<ThreadState>& states) {
    return {equality_invariant("smallbank_money", "sum of balances", total_money(),
                               "loaded total + committed net deposits",
                               initial_total_ + sum_states(states, &ThreadState::net_money))};
  }

  // Balance only reads (BCC runs such requests as snapshot transactions).
  bool read_only(const Request& r) const { return r.txn() == SmallBankTxn::kBalance; }
  // For protocols that lock the predicted access set (engine/txn/protocol.h).
  Table<CC>* table_by_id(uint32_t id) const {
    switch (id) {
      case kAccountsId: return accounts_.get();
      case kSavingsId: return savings_.get();
      case kCheckingId: return checking_.get();
      default: return nullptr;
    }
  }

  void options_json(JsonWriter& w) const { opt_.to_json(w); }
  size_t memory_bytes() const {
    return accounts_ ? accounts_->memory_bytes() + savings_->memory_bytes() + checking_->memory_bytes() : 0;
  }

  // For tests and tools.
  Table<CC>& savings() { return *savings_; }
  Table<CC>& checking() { return *checking_; }
  Table<CC>& accounts() { return *accounts_; }
  int64_t total_money() const { return sum_field<int64_t>(*savings_, 0) + sum_field<int64_t>(*checking_, 0); }
  const SmallBankGenerator& generator() const { return generator_; }

 private:
  template <class TxnT>
  bool lookup(TxnT& txn, uint32_t c) {
    return txn.read(*accounts_, c) != nullptr;
  }

  SmallBankOptions opt_;
  SmallBankGenerator generator_;
  std::unique_ptr<Table<CC>> accounts_, savings_, checking_;
  int64_t initial_total_ = 0;
};

}  // namespace ccb
