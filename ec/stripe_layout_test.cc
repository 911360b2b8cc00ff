#include "ec/stripe_layout.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "ec/erasure_code.h"

namespace ec {
namespace {

// A code with a chosen geometry and no arithmetic: the layout only asks for sizes and mapping.
class GeometryCode final : public ErasureCode {
 public:
  GeometryCode(unsigned k, unsigned m, unsigned align, unsigned sub_chunks,
               std::vector<int> mapping = {})
      : align_(align), sub_chunks_(sub_chunks) {
    k_ = k;
    m_ = m;
    chunk_mapping_ = std::move(mapping);
  }
  Status init(Profile&) override { return Status::OK(); }
  unsigned get_sub_chunk_count() const override { return sub_chunks_; }
  unsigned get_chunk_size(unsigned stripe_width) const override {
    const unsigned per = (stripe_width + k_ - 1) / k_;
    return (per + align_ - 1) / align_ * align_;
  }
  Status encode_chunks(const ConstChunkSpans&, const ChunkSpans&) const override {
    return Status::OK();
  }
  Status decode_chunks(const ShardSet&, const ConstChunkSpans&, const ChunkSpans&) const override {
    return Status::OK();
  }

 private:
  unsigned align_;
  unsigned sub_chunks_;
};

TEST(StripeLayout, Geometry) {
  GeometryCode code(4, 2, 32, 8);
  auto layout = StripeLayout::Make(code, 4096);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  EXPECT_EQ(layout->k(), 4u);
  EXPECT_EQ(layout->m(), 2u);
  EXPECT_EQ(layout->chunk_count(), 6u);
  EXPECT_EQ(layout->chunk_size(), 4096u);
  EXPECT_EQ(layout->stripe_unit(), 4096u);
  EXPECT_EQ(layout->stripe_width(), 16384u);
  EXPECT_EQ(layout->data_ids(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(layout->parity_ids(), (std::vector<int>{4, 5}));
  EXPECT_EQ(layout->sub_chunk_count(), 8u);
  EXPECT_EQ(layout->sub_chunk_size(), 512u);
  EXPECT_EQ(layout->data_index(2), 2);
  EXPECT_EQ(layout->data_index(4), -1);
  EXPECT_EQ(layout->data_index(99), -1);
}

// k=3, m=2 over bytes: parity 3 = d0 ^ d1 ^ d2, parity 4 = d2 alone (a "local" parity, as LRC's
// and SHEC's parities read only some pieces); the granularity is chosen.
class XorCode final : public ErasureCode {
 public:
  explicit XorCode(std::size_t granularity) : granularity_(granularity) {
    k_ = 3;
    m_ = 2;
  }
  Status init(Profile&) override { return Status::OK(); }
  std::size_t get_minimum_granularity() const override { return granularity_; }
  unsigned get_chunk_size(unsigned stripe_width) const override {
    return (stripe_width + k_ - 1) / k_;
  }
  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const override {
    const std::size_t n = out.at(3).size();
    for (std::size_t b = 0; b < n; ++b) {
      out.at(3)[b] = in.at(0)[b] ^ in.at(1)[b] ^ in.at(2)[b];
      out.at(4)[b] = in.at(2)[b];
    }
    return Status::OK();
  }
  Status decode_chunks(const ShardSet&, const ConstChunkSpans&, const ChunkSpans&) const override {
    return Status::OK();
  }

 private:
  std::size_t granularity_;
};

TEST(StripeLayout, StoredSizesWithoutPadding) {
  XorCode code(8);
  auto padded = StripeLayout::Make(code, 100);
  ASSERT_TRUE(padded.ok()) << padded.status().message();
  EXPECT_EQ(padded->padding(), Padding::kWholeStripes);
  auto layout = StripeLayout::Make(code, 100, Padding::kNone);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  EXPECT_EQ(layout->padding(), Padding::kNone);
  EXPECT_EQ(layout->granularity(), 8u);
  struct Want {
    std::uint64_t size;
    std::vector<std::uint64_t> stored;  // chunks 0..4
  };
  for (const Want& w : std::vector<Want>{
           {0, {0, 0, 0, 0, 0}},
           {1, {1, 0, 0, 8, 0}},          // parity 3 rounded up to 8; parity 4 has no input
           {100, {100, 0, 0, 100, 0}},    // 100 rounded up to 8 is 104, at most the chunk
           {205, {100, 100, 5, 100, 8}},  // piece 2 reaches 5: parity 4 keeps 8
           {300, {100, 100, 100, 100, 100}},
           {301, {101, 100, 100, 108, 100}},
       }) {
    for (int id = 0; id < 5; ++id) {
      EXPECT_EQ(layout->stored_size(w.size, id), w.stored[static_cast<std::size_t>(id)])
          << "size " << w.size << " chunk " << id;
      EXPECT_EQ(padded->stored_size(w.size, id), padded->padded_shard_size(w.size));
    }
  }
  EXPECT_EQ(layout->stored_size(301, 5), 0u);
  EXPECT_EQ(layout->stored_size(301, -1), 0u);

  // Without a granularity (0: parity bytes depend on the whole chunk), a parity with any input
  // in the last stripe keeps the whole chunk.
  XorCode whole(0);
  auto w0 = StripeLayout::Make(whole, 100, Padding::kNone);
  ASSERT_TRUE(w0.ok());
  EXPECT_EQ(w0->stored_size(1, 3), 100u);
  EXPECT_EQ(w0->stored_size(1, 4), 0u);
  EXPECT_EQ(w0->stored_size(301, 4), 100u);
  EXPECT_EQ(w0->stored_size(301, 0), 101u);
}

TEST(StripeLayout, RefusesWhatCeph16Asserts) {
  GeometryCode code(4, 2, 32, 1);
  EXPECT_EQ(StripeLayout::Make(code, 0).status().message(), "invalid stripe unit");
  EXPECT_EQ(StripeLayout::Make(code, 100).status().message(),
            "invalid stripe unit: the plugin rounds it up to 128");
  EXPECT_EQ(StripeLayout::Make(code, std::uint64_t{1} << 31).status().message(),
            "invalid stripe unit: k * stripe_unit is too large");
  EXPECT_EQ(StripeLayout::Make(code, ~std::uint64_t{0}).status().code(), EINVAL);
  GeometryCode bad_mapping(2, 1, 1, 1, {0, 0, 2});
  EXPECT_EQ(StripeLayout::Make(bad_mapping, 64).status().message(),
            "the plugin's chunk mapping is not a permutation of 0..2");
  GeometryCode bad_sub(2, 1, 4, 3);  // chunk 4 is not a multiple of 3 sub-chunks
  EXPECT_EQ(StripeLayout::Make(bad_sub, 4).status().message(),
            "invalid stripe unit: 4 is not a multiple of the sub-chunk count 3");
}

TEST(StripeLayout, MappingSplitsDataAndParityIds) {
  GeometryCode code(4, 2, 1, 1, {1, 2, 4, 5, 0, 3});  // "_DD_DD"
  auto layout = StripeLayout::Make(code, 100);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->data_ids(), (std::vector<int>{1, 2, 4, 5}));
  EXPECT_EQ(layout->parity_ids(), (std::vector<int>{0, 3}));
  EXPECT_EQ(layout->data_index(4), 2);
  EXPECT_EQ(layout->data_index(0), -1);
  EXPECT_EQ(layout->locate(250).shard, 4);  // piece 2 of stripe 0
  EXPECT_EQ(layout->locate(250).offset, 50u);
  EXPECT_EQ(layout->locate(400 + 150).shard, 2);  // piece 1 of stripe 1
  EXPECT_EQ(layout->locate(400 + 150).offset, 150u);
  EXPECT_FALSE(layout->object_offset(0, 5).ok());  // parity
}

TEST(StripeLayout, SizesAndStripes) {
  GeometryCode code(3, 2, 1, 1);
  auto layout = StripeLayout::Make(code, 1000);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->stripes_of(0), 0u);
  EXPECT_EQ(layout->stripes_of(1), 1u);
  EXPECT_EQ(layout->stripes_of(3000), 1u);
  EXPECT_EQ(layout->stripes_of(3001), 2u);
  EXPECT_EQ(layout->padded_size(3001), 6000u);
  EXPECT_EQ(layout->padded_shard_size(3001), 2000u);
  EXPECT_EQ(layout->stripes_of(~std::uint64_t{0}), ~std::uint64_t{0} / 3000 + 1);
  EXPECT_EQ(*layout->stripes_in_shard(5000), 5u);
  EXPECT_EQ(layout->stripes_in_shard(5001).status().message(),
            "shard size 5001 is not a multiple of the chunk size 1000");
}

// Every byte of the range, located one at a time, must land exactly in the extents (and the
// extents must hold nothing else); seeded, printed for replay.
TEST(StripeLayout, DataExtentsMatchByteByByteLocation) {
  GeometryCode code(4, 2, 1, 1, {1, 2, 4, 5, 0, 3});
  auto layout = StripeLayout::Make(code, 7);
  ASSERT_TRUE(layout.ok());
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 500; ++round) {
    const std::uint64_t offset = rng() % 200;
    const std::uint64_t length = rng() % 120;
    auto extents = layout->data_extents(offset, length);
    ASSERT_TRUE(extents.ok());
    std::map<int, std::pair<std::uint64_t, std::uint64_t>> expect;  // shard -> [lo, hi)
    for (std::uint64_t b = offset; b < offset + length; ++b) {
      const ShardExtent at = layout->locate(b);
      ASSERT_EQ(*layout->object_offset(at.shard, at.offset), b);
      auto [it, fresh] = expect.try_emplace(at.shard, at.offset, at.offset + 1);
      if (!fresh) {
        ASSERT_EQ(it->second.second, at.offset) << "shard bytes of a range must be contiguous";
        it->second.second = at.offset + 1;
      }
    }
    ASSERT_EQ(extents->size(), expect.size()) << offset << "+" << length;
    for (const ShardExtent& e : *extents) {
      ASSERT_TRUE(expect.count(e.shard));
      EXPECT_EQ(e.offset, expect[e.shard].first);
      EXPECT_EQ(e.offset + e.length, expect[e.shard].second);
    }
    // Data piece order.
    for (std::size_t i = 1; i < extents->size(); ++i) {
      EXPECT_LT(layout->data_index((*extents)[i - 1].shard),
                layout->data_index((*extents)[i].shard));
    }
  }
  EXPECT_FALSE(layout->data_extents(~std::uint64_t{0}, 2).ok());
  EXPECT_TRUE(layout->data_extents(5, 0)->empty());
}

TEST(StripeLayout, ChunkRunsCutAtStripes) {
  GeometryCode code(2, 1, 1, 4);
  auto layout = StripeLayout::Make(code, 100);
  ASSERT_TRUE(layout.ok());
  using R = std::vector<ChunkRun>;
  EXPECT_EQ(*layout->chunk_runs(0, 300), (R{{0, 3, 0, 100}}));
  EXPECT_EQ(*layout->chunk_runs(150, 20), (R{{1, 1, 50, 20}}));
  EXPECT_EQ(*layout->chunk_runs(150, 50), (R{{1, 1, 50, 50}}));
  EXPECT_EQ(*layout->chunk_runs(150, 300), (R{{1, 1, 50, 50}, {2, 2, 0, 100}, {4, 1, 0, 50}}));
  EXPECT_EQ(*layout->chunk_runs(100, 130), (R{{1, 1, 0, 100}, {2, 1, 0, 30}}));
  EXPECT_EQ(*layout->chunk_runs(190, 20), (R{{1, 1, 90, 10}, {2, 1, 0, 10}}));
  EXPECT_TRUE(layout->chunk_runs(7, 0)->empty());
  EXPECT_FALSE(layout->chunk_runs(~std::uint64_t{0}, 2).ok());
}

TEST(StripeLayout, SubChunksCoverAByteRange) {
  GeometryCode code(2, 1, 8, 8);
  auto layout = StripeLayout::Make(code, 64);  // sub-chunks of 8 bytes
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->sub_chunks_of(0, 64), (SubChunkRange{0, 8}));
  EXPECT_EQ(layout->sub_chunks_of(0, 1), (SubChunkRange{0, 1}));
  EXPECT_EQ(layout->sub_chunks_of(7, 2), (SubChunkRange{0, 2}));
  EXPECT_EQ(layout->sub_chunks_of(8, 8), (SubChunkRange{1, 1}));
  EXPECT_EQ(layout->sub_chunks_of(63, 1), (SubChunkRange{7, 1}));
  EXPECT_EQ(layout->sub_chunks_of(17, 30), (SubChunkRange{2, 4}));
}

}  // namespace
}  // namespace ec
