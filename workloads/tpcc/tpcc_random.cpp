#include "workloads/tpcc/tpcc_random.h"

#include <cstring>

namespace ccb::tpcc {

NurandConstants NurandConstants::make(uint64_t seed) {
  Random rng(seed);
  NurandConstants c;
  c.c_last_load = uniform(rng, 0, 255);
  c.c_id = uniform(rng, 0, 1023);
  c.ol_i_id = uniform(rng, 0, 8191);
  // 2.1.6.1: C_Delta = |C_Run - C_Load| in [65, 119], not 96 or 112.
  for (;;) {
    const uint32_t run = uniform(rng, 0, 255);
    const uint32_t delta = run > c.c_last_load ? run - c.c_last_load : c.c_last_load - run;
    if (delta >= 65 && delta <= 119 && delta != 96 && delta != 112) {
      c.c_last_run = run;
      return c;
    }
  }
}

namespace {

// 64 symbols so that one 64-bit draw yields ten characters (6 bits each): the
// loader generates ~50 MB of text per warehouse, and drawing once per
// character would dominate load time.
constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
static_assert(sizeof(kAlphabet) - 1 == 64);

size_t pick_length(Random& rng, size_t min_len, size_t max_len) {
  return min_len == max_len ? min_len : static_cast<size_t>(rng.between(min_len, max_len));
}

}  // namespace

size_t random_astring(Random& rng, char* dst, size_t min_len, size_t max_len, size_t capacity) {
  const size_t len = pick_length(rng, min_len, max_len);
  size_t i = 0;
  while (i < len) {
    uint64_t bits = rng.next();
    for (int k = 0; k < 10 && i < len; ++k, bits >>= 6) dst[i++] = kAlphabet[bits & 63];
  }
  std::memset(dst + len, 0, capacity - len);
  return len;
}

size_t random_nstring(Random& rng, char* dst, size_t min_len, size_t max_len, size_t capacity) {
  const size_t len = pick_length(rng, min_len, max_len);
  for (size_t i = 0; i < len; ++i) dst[i] = static_cast<char>('0' + rng.below(10));
  std::memset(dst + len, 0, capacity - len);
  return len;
}

void place_original(Random& rng, char* dst, size_t len) { std::memcpy(dst + rng.below(len - 8 + 1), "ORIGINAL", 8); }

void random_zip(Random& rng, char (&zip)[9]) {
  random_nstring(rng, zip, 4, 4, 4);
  std::memcpy(zip + 4, "11111", 5);
}

size_t last_name(uint32_t n, char (&out)[16]) {
  static constexpr const char* kSyllables[10] = {"BAR", "OUGHT", "ABLE",  "PRI",   "PRES",
                                                 "ESE", "ANTI",  "CALLY", "ATION", "EING"};
  const uint32_t digits[3] = {n / 100, (n / 10) % 10, n % 10};
  size_t len = 0;
  for (uint32_t d : digits) {
    const size_t s = std::strlen(kSyllables[d]);
    std::memcpy(out + len, kSyllables[d], s);
    len += s;
  }
  std::memset(out + len, 0, sizeof out - len);
  return len;
}

}  // namespace ccb::tpcc
