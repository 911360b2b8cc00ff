// Allocator and Onode encoding: units under the store.
#include <gtest/gtest.h>

#include "osd/store/allocator.h"
#include "osd/store/onode.h"

namespace ec::osd::store {
namespace {

TEST(Allocator, AllocatesContiguouslyReleasesAndReportsNoSpace) {
  Allocator a(100);
  EXPECT_EQ(a.free_blocks(), 99u);  // block 0 is the superblock
  EXPECT_TRUE(a.IsUsed(0));
  auto r = a.Allocate(10);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0], (BlockRun{1, 10}));
  a.Release(BlockRun{3, 2});
  EXPECT_EQ(a.free_blocks(), 91u);
  auto all = a.Allocate(91);
  ASSERT_TRUE(all.ok());
  std::uint64_t n = 0;
  for (const BlockRun& run : *all) n += run.count;
  EXPECT_EQ(n, 91u);
  EXPECT_EQ(a.free_blocks(), 0u);
  auto none = a.Allocate(1);
  EXPECT_EQ(none.status().code(), ENOSPC);
  EXPECT_FALSE(a.MarkUsed(BlockRun{5, 1}));
}

TEST(Allocator, SegmentsPersistAndDiffFindsChanges) {
  Allocator a(10000);
  a.TakeDirtySegments();
  ASSERT_TRUE(a.Allocate(5000).ok());
  auto dirty = a.TakeDirtySegments();
  EXPECT_EQ(dirty, (std::set<std::uint64_t>{0, 1}));
  Allocator b(10000);
  for (std::uint64_t s = 0; s < a.num_segments(); ++s) {
    ASSERT_TRUE(b.DecodeSegment(s, a.EncodeSegment(s)).ok());
  }
  EXPECT_TRUE(Allocator::Diff(a, b, 10).empty());
  b.Release(BlockRun{4000, 3});
  auto d = Allocator::Diff(a, b, 10);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], (BlockRun{4000, 3}));
  EXPECT_EQ(b.DecodeSegment(0, "short").code(), EINVAL);
}

TEST(OnodeFormat, RoundTripsAndRejectsDamage) {
  Onode o;
  o.size = 5 * 4096 + 17;
  o.attrs["k"] = "v";
  o.attrs["empty"] = "";
  for (std::uint64_t lb : {0, 1, 2, 5})
    o.blocks[lb] = BlockRef{100 + lb, static_cast<std::uint32_t>(lb * 7)};
  std::string enc = o.Encode();
  auto back = Onode::Decode(enc);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, o);
  EXPECT_EQ(o.DeviceRuns(), (std::vector<BlockRun>{{100, 3}, {105, 1}}));
  EXPECT_TRUE(Onode::Decode(enc.substr(0, enc.size() - 1)).status().is_data_loss());
  EXPECT_TRUE(Onode::Decode(enc + "x").status().is_data_loss());
}

}  // namespace
}  // namespace ec::osd::store
