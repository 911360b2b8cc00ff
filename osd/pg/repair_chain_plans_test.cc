// ChainPlans (repair_chain.h): plans are kept per code and helper set, a code that is not
// pipelinable is refused every time it is asked, and two codes never share a plan, even of the
// same chunk size.
#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include "osd/pg/repair_chain.h"
#include "recovery/testing/encoded_object.h"

namespace ec::osd::pg {
namespace {

using recovery::testing::EncodedObject;
using recovery::testing::EncodeStripes;

TEST(ChainPlans, KeptPerCodeAndHelpersAndFailuresToo) {
  ChainPlans plans;
  const EncodedObject rs = EncodeStripes("plugin=isa k=4 m=2", 4096, 1, 1);
  const EncodedObject rs_again = EncodeStripes("plugin=isa k=4 m=2", 4096, 1, 2);
  const EncodedObject jer =
      EncodeStripes("plugin=jerasure k=4 m=2 technique=reed_sol_van", 4096, 1, 3);
  ASSERT_TRUE(rs.code && rs_again.code && jer.code);
  ASSERT_EQ(rs.layout.chunk_size(), jer.layout.chunk_size());

  auto a = plans.Get(*rs.code, rs.layout, 1, {0, 2, 3, 4});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = plans.Get(*rs.code, rs.layout, 1, {0, 2, 3, 4});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->get(), b->get()) << "the same code and helpers: the kept plan";
  // Another code object of the same profile is the same code: the same plan serves it.
  auto same_profile = plans.Get(*rs_again.code, rs_again.layout, 1, {0, 2, 3, 4});
  ASSERT_TRUE(same_profile.ok());
  EXPECT_EQ(a->get(), same_profile->get());
  // Other helpers, or another code of the same chunk size: another plan.
  auto other_helpers = plans.Get(*rs.code, rs.layout, 1, {0, 2, 3, 5});
  ASSERT_TRUE(other_helpers.ok());
  EXPECT_NE(a->get(), other_helpers->get());
  auto other_code = plans.Get(*jer.code, jer.layout, 1, {0, 2, 3, 4});
  ASSERT_TRUE(other_code.ok());
  EXPECT_NE(a->get(), other_code->get());

  // A code that is not pipelinable is refused, the second time as the first.
  const EncodedObject cauchy =
      EncodeStripes("plugin=jerasure technique=cauchy_good k=4 m=2 packetsize=32", 4096, 1, 4);
  ASSERT_TRUE(cauchy.code);
  for (int i = 0; i < 2; ++i) {
    auto refused = plans.Get(*cauchy.code, cauchy.layout, 0, {1, 2, 3, 5});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), EOPNOTSUPP) << refused.status().ToString();
  }
}

}  // namespace
}  // namespace ec::osd::pg
