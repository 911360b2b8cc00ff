// ChainPlans (repair_chain.h): plans are kept per code and helper set, a code that is not
// pipelinable is refused every time it is asked, and two codes never share a plan, even of the
// same chunk size.
#include <gtest/gtest.h>

#include <cerrno>
#include <thread>
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

// The check at the pool's chunk size (PipelineRequest::check_layout) runs for the first plan of
// a code and chunk size only: the other lost chunks and helper sets of that code get plans with
// the same coefficients as a fully checked Make gives them.
TEST(ChainPlans, TheChunkSizeIsCheckedOncePerCodeAndSize) {
  ChainPlans plans;
  const EncodedObject rs = EncodeStripes("plugin=isa k=4 m=2", 65536, 1, 1);
  const EncodedObject small = EncodeStripes("plugin=isa k=4 m=2", 4096, 1, 2);
  ASSERT_TRUE(rs.code && small.code);
  EXPECT_EQ(plans.layout_checks(), 0u);
  ASSERT_TRUE(plans.Get(*rs.code, rs.layout, 1, {0, 2, 3, 4}).ok());
  EXPECT_EQ(plans.layout_checks(), 1u);
  for (int lost = 0; lost < 6; ++lost) {
    std::vector<int> helpers;
    for (int h = 0; h < 6; ++h) {
      if (h != lost) helpers.push_back(h);
    }
    auto got = plans.Get(*rs.code, rs.layout, lost, helpers);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    recovery::PipelineRequest request;
    request.lost = lost;
    for (int h : helpers) request.available[h] = 1;
    auto checked = recovery::PipelinePlan::Make(*rs.code, rs.layout, request);
    ASSERT_TRUE(checked.ok()) << checked.status().ToString();
    ASSERT_EQ((*got)->stages().size(), checked->stages().size()) << "lost " << lost;
    for (std::size_t i = 0; i < checked->stages().size(); ++i) {
      EXPECT_EQ((*got)->stages()[i].chunk, checked->stages()[i].chunk) << "lost " << lost;
      EXPECT_EQ((*got)->stages()[i].coefficients, checked->stages()[i].coefficients)
          << "lost " << lost;
    }
  }
  EXPECT_EQ(plans.layout_checks(), 1u) << "one check for RS(4,2) at 64 KiB chunks";
  // Another chunk size of the same code is checked at its size.
  ASSERT_TRUE(plans.Get(*small.code, small.layout, 1, {0, 2, 3, 4}).ok());
  EXPECT_EQ(plans.layout_checks(), 2u);
}

// The first plans after an OSD starts come at once (a chain's slices, several objects' pulls):
// Gets of one code and chunk size that overlap run its check at that size once, not once each
// (each was ~100 ms of CPU for RS(10,4) with 4 MiB chunks, and a new cluster's chains spent a
// third of their CPU on them). Every one gets a plan.
TEST(ChainPlans, OverlappingFirstGetsCheckTheChunkSizeOnce) {
  ChainPlans plans;
  const EncodedObject rs = EncodeStripes("plugin=isa k=4 m=2", 1 << 20, 1, 1);
  ASSERT_TRUE(rs.code);
  std::vector<std::thread> threads;
  std::vector<Status> got(6);
  for (int lost = 0; lost < 6; ++lost) {
    threads.emplace_back([&, lost] {
      std::vector<int> helpers;
      for (int h = 0; h < 6; ++h) {
        if (h != lost) helpers.push_back(h);
      }
      got[static_cast<std::size_t>(lost)] = plans.Get(*rs.code, rs.layout, lost, helpers).status();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int lost = 0; lost < 6; ++lost) {
    EXPECT_TRUE(got[static_cast<std::size_t>(lost)].ok())
        << "lost " << lost << ": " << got[static_cast<std::size_t>(lost)].ToString();
  }
  EXPECT_EQ(plans.layout_checks(), 1u);
}

}  // namespace
}  // namespace ec::osd::pg
