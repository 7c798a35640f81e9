#include "workloads/smallbank/smallbank_options.h"

#include <gflags/gflags.h>

#include <cmath>
#include <cstdlib>

#include "engine/config.h"
#include "workloads/key_skew.h"
#include "engine/core/json.h"

DEFINE_uint64(smallbank_customers, 100000,
              "SmallBank: customers, each with one checking and one savings account (>= 2)");
DEFINE_string(smallbank_mix, "1,1,1,1,1,1",
              "SmallBank: relative weights of Balance,DepositChecking,TransactSavings,Amalgamate,WriteCheck,"
              "SendPayment (six non-negative integers, not all 0; H-Store's mix is 15,15,15,15,15,25)");

namespace ccb {

std::array<uint32_t, kSmallBankTxnTypes> SmallBankOptions::parse_mix(const std::string& s, const std::string& flag) {
  std::array<uint32_t, kSmallBankTxnTypes> mix{};
  const std::string allowed = "six comma-separated non-negative integers (weights), not all 0";
  size_t pos = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < kSmallBankTxnTypes; ++i) {
    const size_t end = s.find(',', pos);
    const std::string part = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    char* stop = nullptr;
    const unsigned long v = part.empty() ? 0 : std::strtoul(part.c_str(), &stop, 10);
    const bool last = i + 1 == kSmallBankTxnTypes;
    if (part.empty() || *stop != '\0' || part[0] == '-' || v > 1000000 || (end == std::string::npos) != last)
      require(false, flag, allowed);
    mix[i] = static_cast<uint32_t>(v);
    total += v;
    pos = end + 1;
  }
  require(total > 0, flag, allowed);
  return mix;
}

std::string SmallBankOptions::mix_string() const {
  std::string s;
  for (uint32_t w : mix) s += (s.empty() ? "" : ",") + std::to_string(w);
  return s;
}

SmallBankOptions SmallBankOptions::from_flags() {
  SmallBankOptions o;
  o.customers = in_range(FLAGS_smallbank_customers, 2, uint64_t{1} << 32, "smallbank_customers", "an integer",
                         " (Amalgamate and SendPayment need two distinct customers)");
  o.theta = theta_flag();
  o.mix = parse_mix(FLAGS_smallbank_mix, "smallbank_mix");
  return o;
}

void SmallBankOptions::to_json(JsonWriter& w) const {
  w.key("smallbank_customers").value(customers);
  w.key("theta").value(theta);
  w.key("smallbank_mix").value(mix_string());
}

}  // namespace ccb
