#include "workloads/smallbank/smallbank_options.h"

#include <cstdlib>


namespace ccb {

OptionsTable<SmallBankOptions> SmallBankOptions::flags{"smallbank_flags"};

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
  flags.read(o);
  return o;
}

void SmallBankOptions::to_json(JsonWriter& w) const { flags.write(*this, w); }

namespace {
void read_mix(SmallBankOptions& o, const std::string& text) { o.mix = SmallBankOptions::parse_mix(text, "smallbank_mix"); }
void write_mix(const SmallBankOptions& o, JsonWriter& w) { w.key("smallbank_mix").value(o.mix_string()); }
}  // namespace

}  // namespace ccb

CCB_OPTION(ccb::SmallBankOptions::flags, customers, uint64, smallbank_customers, 100000,
           ccb::range(2, 0x1p32, "an integer", " (Amalgamate and SendPayment need two distinct customers)"),
           "SmallBank: customers, each with one checking and one savings account");
CCB_OPTION_GROUP(ccb::SmallBankOptions::flags, key_skew, ccb::KeySkewOptions::flags);  // --theta
CCB_PARSED_OPTION(ccb::SmallBankOptions::flags, string, smallbank_mix, "1,1,1,1,1,1", ccb::read_mix, ccb::write_mix,
                  R"({"type": "string"})",
                  "SmallBank: relative weights of Balance,DepositChecking,TransactSavings,Amalgamate,WriteCheck,"
                  "SendPayment (six non-negative integers, not all 0; H-Store's mix is 15,15,15,15,15,25)");
