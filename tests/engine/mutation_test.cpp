// The serializability checker must flag every deliberately broken protocol
// (tests/engine/mutants.h) under a high-contention YCSB run. A broken run is
// allowed a few tries to exhibit its anomaly (races are timing-dependent), but
// it must be caught; the real protocols pass the same run in stress_test.cpp.
#include <gtest/gtest.h>

#include "tests/engine/mutants.h"
#include "tests/engine/ycsb_run.h"

namespace ccb {
namespace {

template <class CC>
class MutationTest : public ::testing::Test {};
using Mutants = ::testing::Types<mutants::OccSkipsValidation, mutants::SiloSkipsReadValidation,
                                 mutants::NoWaitReleasesEarly>;
TYPED_TEST_SUITE(MutationTest, Mutants);

TYPED_TEST(MutationTest, CheckerFlagsTheBrokenProtocol) {
  bool flagged = false;
  std::string how;
  for (uint64_t attempt = 0; attempt < 5 && !flagged; ++attempt) {
    const auto r = testing_support::run_contended_ycsb<TypeParam>(0.3, 100 + attempt);
    ASSERT_GT(r.commits, 0u);
    if (!r.check.serializable) {
      flagged = true;
      how = r.check.violation.message;
    }
  }
  EXPECT_TRUE(flagged) << TypeParam::kName << " was never flagged as non-serializable";
  this->RecordProperty("violation", how);
}

}  // namespace
}  // namespace ccb
