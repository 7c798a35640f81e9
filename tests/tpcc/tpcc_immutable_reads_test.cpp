// --immutable_reads (TpccOptions::immutable_reads): NewOrder reads W_TAX and
// the customer's C_DISCOUNT, C_LAST, C_CREDIT from a copy made at load,
// outside the protocol, as the 1000-cores DBx1000 does (RD_RO under
// ALLOW_READ_ONLY). The copy holds the loaded values, and a Payment of the
// NewOrder's warehouse (another district) that commits while the NewOrder
// runs then no longer conflicts with it; through the protocol it does. One
// protocol per way of ending that conflict: Silo (the NewOrder's validation
// fails) and NoWait (the Payment meets the NewOrder's read lock).
#include <gtest/gtest.h>

#include <cstring>
#include <utility>

#include "engine/cc/nowait/nowait.h"
#include "engine/cc/silo/silo.h"
#include "tests/tpcc/tpcc_test_util.h"

namespace ccb {
namespace {

using namespace tpcc;
using namespace tpcc::testing;

template <class CC>
class TpccImmutableReadsTest : public ::testing::Test {};
using Protocols = ::testing::Types<Silo, NoWait>;
TYPED_TEST_SUITE(TpccImmutableReadsTest, Protocols);

// The NewOrder runs, then the Payment runs and ends, then the NewOrder ends:
// their outcomes {NewOrder, Payment}.
template <class CC>
std::pair<RC, RC> interleaved(bool immutable_reads) {
  TpccOptions o = small_options(1);
  o.immutable_reads = immutable_reads;
  TpccWorkload<CC> workload(o);
  workload.load(1);
  CC cc;
  Txn<CC> new_order(cc, 0, nullptr), payment(cc, 1, nullptr);
  new_order.begin();
  RC first = workload.run(new_order, new_order_request(1, 1, 7, {{11, 1, 3}, {12, 1, 4}}));
  EXPECT_EQ(first, RC::kOk);
  TpccRequest pay = payment_request(1, 2, 1, 2, 1234);  // the same warehouse, another district
  pay.c_id = 7;
  const RC paid = run_once(workload, payment, pay);
  if (first == RC::kOk) first = new_order.commit();
  else new_order.abort();
  return {first, paid};
}

TYPED_TEST(TpccImmutableReadsTest, APaymentOfTheSameWarehouseNoLongerConflictsWithANewOrder) {
  const auto [new_order, payment] = interleaved<TypeParam>(true);
  EXPECT_EQ(new_order, RC::kOk);
  EXPECT_EQ(payment, RC::kOk);
  const auto [tracked_new_order, tracked_payment] = interleaved<TypeParam>(false);
  EXPECT_FALSE(tracked_new_order == RC::kOk && tracked_payment == RC::kOk)
      << "through the protocol, the Payment's write of the warehouse row conflicts with the NewOrder's read";
}

TEST(TpccImmutableReads, TheCopyHoldsTheLoadedValues) {
  TpccOptions o = small_options(2);
  o.immutable_reads = true;
  TpccWorkload<Silo> workload(o);
  workload.load(2);
  auto& db = workload.db();
  for (uint32_t w = 1; w <= 2; ++w) {
    EXPECT_EQ(db.warehouse_tax(w), row<WarehouseRow>(db.warehouse, warehouse_key(w))->tax);
    for (uint32_t d : {1u, kDistrictsPerWarehouse})
      for (uint32_t c : {1u, 1500u, kCustomersPerDistrict}) {
        const auto* cr = row<CustomerRow>(db.customer, customer_key(w, d, c));
        const auto& terms = db.customer_terms(w, d, c);
        EXPECT_EQ(terms.discount, cr->discount);
        EXPECT_EQ(std::memcmp(terms.last, cr->last, sizeof terms.last), 0);
        EXPECT_EQ(std::memcmp(terms.credit, cr->credit, sizeof terms.credit), 0);
      }
  }
  EXPECT_TRUE(db.immutable_reads());
}

}  // namespace
}  // namespace ccb
