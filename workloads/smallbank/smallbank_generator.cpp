#include "workloads/smallbank/smallbank_generator.h"

#include <stdexcept>

#include "workloads/distinct_keys.h"

namespace ccb {

SmallBankGenerator::SmallBankGenerator(const SmallBankOptions& o) : opt_(o) {
  uint64_t acc = 0;
  for (size_t t = 0; t < kSmallBankTxnTypes; ++t) cumulative_mix_[t] = acc += o.mix[t];
  const auto weight = [&](SmallBankTxn t) { return o.mix[static_cast<size_t>(t)]; };
  if (weight(SmallBankTxn::kAmalgamate) + weight(SmallBankTxn::kSendPayment) > 0)
    require_bounded_distinct_draws(o.customers, o.key_skew.theta, 2,
                                   "the two distinct customers of Amalgamate and SendPayment out of "
                                   "--smallbank_customers=" + std::to_string(o.customers),
                                   "lower --theta, or give Amalgamate and SendPayment weight 0 in --smallbank_mix");
}

void SmallBankGenerator::prepare() {
  if (!zipf_) zipf_.emplace(opt_.customers, opt_.key_skew.theta);
}

void SmallBankGenerator::generate(Random& rng, uint32_t /*thread*/, Request& r) const {
  if (!zipf_) throw std::logic_error("SmallBankGenerator::generate before prepare()");
  const uint64_t pick = rng.below(cumulative_mix_.back());
  uint32_t t = 0;
  while (cumulative_mix_[t] <= pick) ++t;
  r.type = t;
  r.c1 = static_cast<uint32_t>(zipf_->sample(rng));
  r.c2 = r.c1;
  if (r.two_customers()) {
    while (r.c2 == r.c1) r.c2 = static_cast<uint32_t>(zipf_->sample(rng));  // bounded by the constructor's check
  }
  switch (r.txn()) {
    case SmallBankTxn::kTransactSavings: {  // a deposit or a withdrawal (Alomari et al.)
      const int32_t v = static_cast<int32_t>(rng.between(1, 2 * kMaxAmount)) - kMaxAmount;
      r.amount = v <= 0 ? v - 1 : v;  // [-100, -1] u [1, 100]
      break;
    }
    case SmallBankTxn::kDepositChecking:
    case SmallBankTxn::kWriteCheck:
    case SmallBankTxn::kSendPayment:
      r.amount = static_cast<int32_t>(rng.between(1, kMaxAmount));
      break;
    default:
      r.amount = 0;
  }
}

TxnDesc SmallBankGenerator::describe(const Request& r) const {
  TxnDesc d;
  d.type = r.type;
  auto rd = [&](uint32_t table, uint32_t c) { d.read_set.push_back(make_global_key(table, c)); };
  auto wr = [&](uint32_t table, uint32_t c) { d.write_set.push_back(make_global_key(table, c)); };
  rd(kAccountsId, r.c1);
  if (r.two_customers()) rd(kAccountsId, r.c2);
  switch (r.txn()) {
    case SmallBankTxn::kBalance: rd(kSavingsId, r.c1), rd(kCheckingId, r.c1); break;
    case SmallBankTxn::kDepositChecking: wr(kCheckingId, r.c1); break;
    case SmallBankTxn::kTransactSavings: wr(kSavingsId, r.c1); break;
    case SmallBankTxn::kAmalgamate: wr(kSavingsId, r.c1), wr(kCheckingId, r.c1), wr(kCheckingId, r.c2); break;
    case SmallBankTxn::kWriteCheck: rd(kSavingsId, r.c1), wr(kCheckingId, r.c1); break;
    case SmallBankTxn::kSendPayment: wr(kCheckingId, r.c1), wr(kCheckingId, r.c2); break;
    default: break;
  }
  return d;
}

}  // namespace ccb
