// SHEC's recovery search: how many chunks minimum_to_decode reads (the point of SHEC), which ones,
// and how costs steer minimum_to_decode_with_cost.
#include <gtest/gtest.h>

#include "plugins/shec/shec_test_util.h"

namespace ec {
namespace {

using shec_test::MakeCode;

ShardSet AllBut(int n, const ShardSet& lost) {
  ShardSet s;
  for (int id = 0; id < n; ++id)
    if (!lost.count(id)) s.insert(id);
  return s;
}

ShardSet Keys(const SubChunkPlan& plan) {
  ShardSet s;
  for (const auto& [id, ranges] : plan) s.insert(id);
  return s;
}

ShardSet Minimum(const ErasureCodeShec& code, const ShardSet& want, const ShardSet& lost) {
  Result<SubChunkPlan> plan = code.minimum_to_decode(want, AllBut(code.get_chunk_count(), lost));
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? Keys(*plan) : ShardSet{};
}

TEST(ShecSearch, SingleLossReadsTheWindowNotK) {
  // k=4 m=3 c=2 (multiple): parities 4 = 1111, 5 = 1100, 6 = 0011.
  auto code = MakeCode("k=4 m=3 c=2");
  ASSERT_TRUE(code);
  EXPECT_EQ(Minimum(*code, {0}, {0}), (ShardSet{1, 5}));
  EXPECT_EQ(Minimum(*code, {1}, {1}), (ShardSet{0, 5}));
  EXPECT_EQ(Minimum(*code, {2}, {2}), (ShardSet{3, 6}));
  EXPECT_EQ(Minimum(*code, {3}, {3}), (ShardSet{2, 6}));
  // A lost parity is re-encoded from its window.
  EXPECT_EQ(Minimum(*code, {5}, {5}), (ShardSet{0, 1}));
  EXPECT_EQ(Minimum(*code, {4}, {4}), (ShardSet{0, 1, 2, 3}));
  // Two data losses in one window need the wide parity too.
  EXPECT_EQ(Minimum(*code, {0, 1}, {0, 1}), (ShardSet{2, 3, 4, 5}));
  // One loss in each window: {4, 5} and {5, 6} both give 4 x 4 systems; the first mask in
  // Ceph's order ({4, 5}) wins.
  EXPECT_EQ(Minimum(*code, {0, 2}, {0, 2}), (ShardSet{1, 3, 4, 5}));
  // Wanted chunks that are there are read as they are.
  EXPECT_EQ(Minimum(*code, {1, 2}, {0}), (ShardSet{1, 2}));
  EXPECT_EQ(Minimum(*code, {0, 3}, {0}), (ShardSet{1, 3, 5}));
}

TEST(ShecSearch, EverySingleDataLossReadsFewerThanK) {
  for (const char* profile : {"k=4 m=3 c=2", "k=6 m=3 c=2", "k=8 m=4 c=3", "k=12 m=7 c=4",
                              "k=6 m=3 c=2 technique=single", "k=10 m=4 c=2 w=16"}) {
    SCOPED_TRACE(profile);
    auto code = MakeCode(profile);
    ASSERT_TRUE(code);
    const int k = static_cast<int>(code->get_data_chunk_count());
    std::size_t total = 0;
    for (int lost = 0; lost < k; ++lost) {
      ShardSet read = Minimum(*code, {lost}, {lost});
      EXPECT_LT(read.size(), static_cast<std::size_t>(k)) << "lost " << lost;
      EXPECT_FALSE(read.count(lost));
      total += read.size();
    }
    std::cout << "[shec] " << profile << ": a single data loss reads "
              << static_cast<double>(total) / k << " chunks on average (RS reads " << k << ")\n";
  }
}

TEST(ShecSearch, NotDecodableIsEio) {
  auto code = MakeCode("k=4 m=3 c=2");
  ASSERT_TRUE(code);
  // Losing 0, 1 and the wide parity 4 leaves only parity 5 for two unknowns.
  Result<SubChunkPlan> plan = code->minimum_to_decode({0}, AllBut(7, {0, 1, 4}));
  EXPECT_EQ(plan.status().code(), EIO);
  EXPECT_EQ(
      code->minimum_to_decode_with_cost({0}, {{2, 1}, {3, 1}, {5, 1}, {6, 1}}).status().code(),
      EIO);
}

TEST(ShecSearch, CostsSteerTheChoiceAndTiesKeepShecsAnswer) {
  auto code = MakeCode("k=4 m=3 c=2");
  ASSERT_TRUE(code);
  std::map<int, int> equal;
  for (int id = 1; id < 7; ++id) equal[id] = 1;
  Result<ShardSet> tie = code->minimum_to_decode_with_cost({0}, equal);
  ASSERT_TRUE(tie.ok());
  EXPECT_EQ(*tie, (ShardSet{1, 5}));
  // Parity 5 far away: read the wide parity and the three data chunks instead.
  std::map<int, int> costly = equal;
  costly[5] = 100;
  Result<ShardSet> cheap = code->minimum_to_decode_with_cost({0}, costly);
  ASSERT_TRUE(cheap.ok());
  EXPECT_EQ(*cheap, (ShardSet{1, 2, 3, 4}));
  // Everything wanted is there: want itself.
  Result<ShardSet> direct = code->minimum_to_decode_with_cost({1, 5}, equal);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(*direct, (ShardSet{1, 5}));
}

}  // namespace
}  // namespace ec
