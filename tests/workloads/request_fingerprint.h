// A fingerprint of a request stream: FNV-1a over what each request's
// describe() predicts (type, read set, write set) and over the request fields
// it leaves out (amounts, quantities, ...), for `count` requests drawn from
// one Random(seed) with the generator's `thread` cycling through 0..3.
// generator_test.cpp pins the fingerprints the workloads produced before the
// generators were split from them (issue 28), so a change of any request for
// a seed shows up.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "engine/core/random.h"
#include "engine/core/txn_desc.h"

namespace ccb::test_support {

class Fingerprint {
 public:
  void add(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h_ ^= (v >> (8 * i)) & 0xFF;
      h_ *= 0x100000001b3ull;
    }
  }
  void add(const TxnDesc& d) {
    add(d.type);
    add(d.read_set.size());
    for (GlobalKey k : d.read_set) add(k);
    add(d.write_set.size());
    for (GlobalKey k : d.write_set) add(k);
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

// G: anything with generate(Random&, uint32_t, Request&) and describe();
// fields(request, fingerprint) adds what describe() leaves out.
template <class G, class Fields>
uint64_t stream_fingerprint(const G& g, uint64_t seed, int count, Fields fields) {
  Random rng(seed);
  Fingerprint f;
  for (int i = 0; i < count; ++i) {
    typename G::Request r{};
    g.generate(rng, static_cast<uint32_t>(i % 4), r);
    f.add(g.describe(r));
    fields(r, f);
  }
  return f.value();
}

}  // namespace ccb::test_support
