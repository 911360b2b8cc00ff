// Reads of shards stored without their zero tail (Fast EC): through StoredShardSource the repair
// engine and ReadObjectRange see whole padded shards, for every code, healthy or degraded, while
// the shards' holders are never asked for a byte past what they store.
#include "recovery/stored_shard_source.h"

#include <gtest/gtest.h>

#include <cstring>

#include "recovery/object_read.h"
#include "recovery/testing/encoded_object.h"

namespace ec::recovery {
namespace {

using testing::Bytes;
using testing::EncodedObject;
using testing::EncodeObject;
using testing::MemoryShardSource;
using testing::Part;

class StoredShardSourceTest : public testing::SeededTest {};

// The shards of `o` as an unpadded layout stores them, in `source`; their stored sizes.
std::map<int, std::uint64_t> LoadStored(const EncodedObject& o, const StripeLayout& unpadded,
                                        std::uint64_t size, const ShardSet& except,
                                        MemoryShardSource& source) {
  std::map<int, std::uint64_t> stored;
  for (std::size_t id = 0; id < o.shards.size(); ++id) {
    const int c = static_cast<int>(id);
    stored[c] = unpadded.stored_size(size, c);
    if (except.count(c)) continue;
    source.SetShard(c, Part(o.shards[id], 0, stored[c]));
  }
  return stored;
}

TEST_F(StoredShardSourceTest, EveryCodeReadsWholeAndDegradedFromStoredShards) {
  struct Code {
    const char* profile;
    std::size_t su;
    unsigned tolerates;
  };
  for (const Code& code :
       {Code{"plugin=isa k=4 m=2", 4096, 2},
        Code{"plugin=jerasure technique=cauchy_good k=4 m=2 packetsize=32", 4096, 2},
        Code{"plugin=clay k=4 m=2 d=5", 8192, 2}, Code{"plugin=lrc k=4 m=2 l=3", 4096, 1},
        Code{"plugin=shec k=4 m=3 c=2", 4096, 1}}) {
    for (std::uint64_t size : {std::uint64_t{1}, std::uint64_t{4096}, std::uint64_t{5000},
                               std::uint64_t{3 * 4096 + 17}, std::uint64_t{40000 + seed_ % 9000}}) {
      SCOPED_TRACE(std::string(code.profile) + " size " + std::to_string(size));
      const EncodedObject o = EncodeObject(code.profile, code.su, size, seed_);
      auto unpadded = StripeLayout::Make(*o.code, code.su, Padding::kNone);
      ASSERT_TRUE(unpadded.ok()) << unpadded.status().ToString();
      RepairEngine engine(o.code, o.layout);
      const unsigned n = o.layout.chunk_count();
      std::vector<ShardSet> losses = {{}};
      for (unsigned id = 0; id < n; ++id) losses.push_back({static_cast<int>(id)});
      if (code.tolerates >= 2) losses.push_back({0, 1});
      for (const ShardSet& lost : losses) {
        MemoryShardSource memory;
        auto stored = LoadStored(o, *unpadded, size, lost, memory);
        StoredShardSource source(&memory, stored);
        std::map<int, int> available;
        for (unsigned id = 0; id < n; ++id)
          if (!lost.count(static_cast<int>(id))) available[static_cast<int>(id)] = 1;
        const std::uint64_t off = size > 10 ? size / 3 : 0;
        for (auto [from, len] : {std::pair<std::uint64_t, std::uint64_t>{0, size},
                                 std::pair<std::uint64_t, std::uint64_t>{off, size - off}}) {
          auto got = ReadObjectRange(engine, source, {size, from, len, available});
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          EXPECT_EQ(Bytes(got->bytes), Part(o.object, from, len));
        }
        // Nothing past a shard's stored length was asked of its holder.
        for (const auto& logged : memory.log()) {
          for (const Extent& e : logged.extents) {
            EXPECT_LE(e.offset + e.length, stored[logged.shard])
                << "shard " << logged.shard << " asked for " << e.offset << "+" << e.length;
          }
        }
      }
    }
  }
}

TEST_F(StoredShardSourceTest, CutsScattersAndSendsNothingForAbsentBytes) {
  MemoryShardSource memory;
  std::vector<std::byte> shard0(100);
  for (std::size_t i = 0; i < shard0.size(); ++i) shard0[i] = static_cast<std::byte>(i + 1);
  memory.SetShard(0, shard0);
  memory.SetShard(1, {});
  StoredShardSource source(&memory, {{0, 100}, {1, 0}});
  std::vector<std::byte> a(30, std::byte{0xee}), b(20, std::byte{0xee}), c(8, std::byte{0xee});
  std::vector<ShardReadRequest> requests = {
      // Past the end first, then stored bytes: read into scratch and scattered.
      {0, {{95, 10}, {10, 20}}, a},
      // Wholly past the end: nothing is sent.
      {1, {{0, 20}}, b},
      // Wholly stored: passed through as is.
      {0, {{0, 8}}, c},
  };
  auto statuses = ReadAll(source, requests);
  ASSERT_EQ(statuses.size(), 3u);
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<std::byte> want_a(30, std::byte{0});
  for (int i = 0; i < 5; ++i) want_a[static_cast<std::size_t>(i)] = shard0[95 + i];
  for (int i = 0; i < 20; ++i) want_a[static_cast<std::size_t>(10 + i)] = shard0[10 + i];
  EXPECT_EQ(a, want_a);
  EXPECT_EQ(b, std::vector<std::byte>(20, std::byte{0}));
  EXPECT_EQ(c, Part(shard0, 0, 8));
  // Shard 1 was never asked; shard 0 only for its stored parts.
  auto log = memory.log();
  ASSERT_EQ(log.size(), 2u);
  for (const auto& l : log) EXPECT_EQ(l.shard, 0);
  EXPECT_EQ(log[0].extents, (std::vector<Extent>{{95, 5}, {10, 20}}));
}

TEST_F(StoredShardSourceTest, ErrorsOfTheStoredPartReachTheCaller) {
  MemoryShardSource memory;
  memory.SetShard(0, std::vector<std::byte>(50));  // shorter than the 100 it should store
  StoredShardSource source(&memory, {{0, 100}});
  std::vector<std::byte> a(120);
  std::vector<ShardReadRequest> requests = {{0, {{0, 120}}, a}};
  auto statuses = ReadAll(source, requests);
  ASSERT_EQ(statuses.size(), 1u);
  EXPECT_FALSE(statuses[0].ok());
}

}  // namespace
}  // namespace ec::recovery
