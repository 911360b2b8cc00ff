#include "osd/pg/write_plan.h"

#include <gtest/gtest.h>

#include "ec/plugin.h"

namespace ec::osd::pg {
namespace {

using msg::ObjWriteMode;

// isa k=4 m=2, stripe unit 4096: stripe width 16384.
StripeLayout Layout() {
  Profile profile{{"plugin", "isa"}, {"k", "4"}, {"m", "2"}};
  ErasureCodeInterfaceRef code;
  Status s = PluginRegistry::instance().factory("isa", PluginRegistry::default_directory(), profile,
                                                &code);
  EXPECT_TRUE(s.ok()) << s.message();
  auto layout = StripeLayout::Make(*code, 4096);
  EXPECT_TRUE(layout.ok());
  return *layout;
}

constexpr std::uint64_t kMax = 1ull << 30;

TEST(WritePlan, WriteFullRewritesEveryStripe) {
  auto p = PlanWrite(Layout(), true, 100000, ObjWriteMode::kWriteFull, 0, 20000, kMax);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->full);
  EXPECT_EQ(p->new_size, 20000u);
  EXPECT_EQ(p->stripes, 2u);
  EXPECT_TRUE(p->old_reads.empty());
}

TEST(WritePlan, SmallOverwriteTouchesOnlyItsStripeAndReadsTheRest) {
  // 4 KiB at 20000 of a 100000-byte object: stripe 1 only ([16384, 32768)).
  auto p = PlanWrite(Layout(), true, 100000, ObjWriteMode::kWrite, 20000, 4096, kMax);
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->full);
  EXPECT_EQ(p->first_stripe, 1u);
  EXPECT_EQ(p->stripes, 1u);
  EXPECT_EQ(p->new_size, 100000u);
  EXPECT_EQ(p->old_reads,
            (std::vector<ObjectRange>{{16384, 20000 - 16384}, {24096, 32768 - 24096}}));
}

TEST(WritePlan, AppendReadsOnlyTheOldPartOfTheLastStripe) {
  auto p = PlanWrite(Layout(), true, 20000, ObjWriteMode::kAppend, 0, 30000, kMax);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->write_offset, 20000u);
  EXPECT_EQ(p->new_size, 50000u);
  EXPECT_EQ(p->first_stripe, 1u);
  EXPECT_EQ(p->stripes, 3u);  // stripes 1..3 ([16384, 65536))
  EXPECT_EQ(p->old_reads, (std::vector<ObjectRange>{{16384, 20000 - 16384}}));
}

TEST(WritePlan, WritePastTheEndLeavesAZeroGapAndReadsNothingPastTheOldEnd) {
  auto p = PlanWrite(Layout(), true, 1000, ObjWriteMode::kWrite, 40000, 10, kMax);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->new_size, 40010u);
  EXPECT_EQ(p->first_stripe, 2u);
  EXPECT_TRUE(p->old_reads.empty());
}

TEST(WritePlan, ZeroLengthWriteChangesNothing) {
  auto p = PlanWrite(Layout(), true, 1000, ObjWriteMode::kWrite, 5000, 0, kMax);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->stripes, 0u);
  EXPECT_EQ(p->new_size, 1000u);
}

TEST(WritePlan, Errors) {
  auto big = PlanWrite(Layout(), false, 0, ObjWriteMode::kWrite, kMax, 1, kMax);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), EFBIG);
  auto offset = PlanWrite(Layout(), false, 0, ObjWriteMode::kAppend, 5, 1, kMax);
  EXPECT_EQ(offset.status().code(), EINVAL);
  auto overflow = PlanWrite(Layout(), false, 0, ObjWriteMode::kWrite, UINT64_MAX, 2, kMax);
  EXPECT_EQ(overflow.status().code(), EINVAL);
}

// The small-object class (issue 30 item 2): copies below the size, shards from it on; shards turn
// back only by a whole rewrite; 0 keeps everything as shards.
TEST(FormAfter, CopiesBelowTheSizeShardsFromIt) {
  using msg::ObjectForm;
  constexpr ObjectForm kEc = ObjectForm::kErasure;
  constexpr ObjectForm kRep = ObjectForm::kReplicas;
  EXPECT_EQ(FormAfter(kEc, false, false, 100, 0), kEc);  // off
  EXPECT_EQ(FormAfter(kEc, false, false, 0, 0), kEc);
  EXPECT_EQ(FormAfter(kEc, false, false, 4095, 4096), kRep);  // new, small
  EXPECT_EQ(FormAfter(kEc, false, true, 4096, 4096), kEc);    // new, at the size
  EXPECT_EQ(FormAfter(kRep, true, false, 4095, 4096), kRep);  // stays small
  EXPECT_EQ(FormAfter(kRep, true, false, 4096, 4096), kEc);   // grows: converted
  EXPECT_EQ(FormAfter(kRep, true, false, 10, 0), kEc);        // the class turned off
  EXPECT_EQ(FormAfter(kEc, true, false, 10, 4096), kEc);      // partial write: stays shards
  EXPECT_EQ(FormAfter(kEc, true, true, 10, 4096), kRep);      // write_full: turned back
  EXPECT_EQ(FormAfter(kEc, true, true, 5000, 4096), kEc);
}

}  // namespace
}  // namespace ec::osd::pg
