#include "partitioners/reorder/policy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace ccb::reorder {
namespace {

constexpr std::array<std::pair<std::string_view, Policy>, 8> kNames{{
    {"max_degree", Policy::kMaxDegree},
    {"sum_degree", Policy::kSumDegree},
    {"prod_degree", Policy::kProdDegree},
    {"mc", Policy::kProdDegree},
    {"random", Policy::kRandom},
    {"rct", Policy::kRct},
    {"rdeg", Policy::kRdeg},
    {"value", Policy::kValue},
}};

}  // namespace

Policy parse_policy(std::string_view name) {
  for (auto [n, p] : kNames) {
    if (n == name) return p;
  }
  throw std::invalid_argument("policy: unknown value '" + std::string(name) +
                              "'; allowed: " + policy_names());
}

std::string_view policy_name(Policy p) {
  for (auto [n, q] : kNames) {
    if (q == p) return n;
  }
  return "?";
}

std::string policy_names() {
  std::string s;
  for (auto [n, p] : kNames) {
    if (!s.empty()) s += ", ";
    s += n;
  }
  return s;
}

uint64_t random_key(uint64_t seed, uint32_t v) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL + v + 1;
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Rank rank(Policy p, const VertexInfo& v) {
  const double in = v.in_degree, out = v.out_degree, prod = in * out;
  switch (p) {
    case Policy::kMaxDegree:  // §4.2 "max-degree"
      return {std::max(in, out), 0};
    case Policy::kSumDegree:  // §4.2 "sum-degree"
      return {in + out, 0};
    case Policy::kProdDegree:  // §4.2 "prod-degree"; §5.3 calls it mc
      return {prod, 0};
    case Policy::kRandom:  // §4.2 "assigns all nodes random rankings"
      return {static_cast<double>(v.random_key >> 11), 0};
    case Policy::kRct:  // §5.3: smallest number of restarts, ties by prod-degree
      return {-static_cast<double>(v.restarts), prod};
    case Policy::kRdeg:  // §4.2: in * out divided by an exponential of restarts
      return {std::ldexp(prod, -static_cast<int>(std::min<uint32_t>(v.restarts, 1000))), 0};
    case Policy::kValue:  // §4.2: add the lowest-value transaction to the FVS
      return {-v.priority, prod};
  }
  return {};
}

}  // namespace ccb::reorder
