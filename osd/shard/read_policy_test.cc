// InlineReadPolicy's rules, driven with explicit times.
#include "osd/shard/read_policy.h"

#include <gtest/gtest.h>

namespace ec::osd::shard {
namespace {

using Clock = InlineReadPolicy::Clock;
using namespace std::chrono_literals;

TEST(InlineReadPolicyTest, SmallLoneReadsRunInline) {
  InlineReadPolicy p(4096);
  const Clock::time_point t0 = Clock::now();
  EXPECT_TRUE(p.MayInline(4096, false, 0, t0));
  p.OnInlineDone(t0 + 20us);
  EXPECT_TRUE(p.MayInline(1, false, 0, t0 + 100us));  // the client's next request, later
  EXPECT_FALSE(p.MayInline(4097, false, 0, t0 + 200us));
  EXPECT_TRUE(p.MayInline(0, false, 0, t0 + 300us));  // a refusal by size is no overlap

  InlineReadPolicy never(0);
  EXPECT_FALSE(never.MayInline(1, false, 0, t0));
}

// A write's own size limit, beside the reads' (and 0: never); an overlap seen by either turns
// both off for the backoff.
TEST(InlineReadPolicyTest, WritesHaveTheirOwnLimitAndShareTheOverlapRules) {
  InlineReadPolicy p(4096);
  const Clock::time_point t0 = Clock::now();
  EXPECT_TRUE(p.MayInline(65536, 65536, false, 0, t0));  // over the read limit, within its own
  EXPECT_FALSE(p.MayInline(65537, 65536, false, 0, t0 + 100us));
  EXPECT_FALSE(p.MayInline(1, 0, false, 0, t0 + 200us));      // writes inline disabled
  EXPECT_FALSE(p.MayInline(1, 65536, false, 1, t0 + 300us));  // another operation in flight
  EXPECT_FALSE(p.MayInline(1, false, 0, t0 + 400us));         // a read too: within the backoff
  EXPECT_TRUE(p.MayInline(1, 65536, false, 0, t0 + 300us + InlineReadPolicy::kBackoff));
}

TEST(InlineReadPolicyTest, OverlapTurnsInlineReadsOffForTheBackoff) {
  const Clock::time_point t0 = Clock::now();
  {
    InlineReadPolicy p(4096);
    EXPECT_FALSE(p.MayInline(10, false, 1, t0));  // another operation in flight
    EXPECT_FALSE(p.MayInline(10, false, 0, t0 + 1ms));
    EXPECT_FALSE(p.MayInline(10, false, 0, t0 + InlineReadPolicy::kBackoff - 1us));
    EXPECT_TRUE(p.MayInline(10, false, 0, t0 + InlineReadPolicy::kBackoff));
  }
  {
    InlineReadPolicy p(4096);
    EXPECT_FALSE(p.MayInline(10, true, 0, t0));  // more requests queued on the connection
    EXPECT_FALSE(p.MayInline(10, false, 0, t0 + 1ms));
  }
  {
    InlineReadPolicy p(4096);
    p.OnBegin(0, t0);  // alone: no overlap
    EXPECT_TRUE(p.MayInline(10, false, 0, t0 + 1us));
    p.OnBegin(2, t0 + 2us);  // begun while two are in flight
    EXPECT_FALSE(p.MayInline(10, false, 0, t0 + 3us));
  }
  {
    // The next request was already waiting while the inline read ran.
    InlineReadPolicy p(4096);
    EXPECT_TRUE(p.MayInline(10, false, 0, t0));
    p.OnInlineDone(t0 + 50us);
    EXPECT_FALSE(p.MayInline(10, false, 0, t0 + 52us));
    EXPECT_FALSE(p.MayInline(10, false, 0, t0 + 52us + InlineReadPolicy::kBackoff - 1us));
    EXPECT_TRUE(p.MayInline(10, false, 0, t0 + 52us + InlineReadPolicy::kBackoff));
  }
}

}  // namespace
}  // namespace ec::osd::shard
