// Test support: an object of random bytes encoded into shards by a plugin of this build
// (EC_PLUGIN_DIR), for tests of the repair engine and of object reads. Failures are gtest
// failures of the calling test.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ec/plugin.h"
#include "ec/repetition_code.h"
#include "ec/stripe_codec.h"
#include "ec/stripe_layout.h"
#include "recovery/testing/memory_shard_source.h"

namespace ec::recovery::testing {

struct EncodedObject {
  ErasureCodeInterfaceRef code;
  StripeLayout layout;
  std::vector<std::byte> object;               // object_size bytes
  std::vector<std::vector<std::byte>> shards;  // by chunk id
  std::uint64_t stripes = 0;
};

// The code of `profile`: a plugin's, or with plugin=replicated the repetition code of `size`
// copies (a replicated pool's, ec/repetition_code.h: no plugin has it).
inline Status MakeCode(Profile& profile, ErasureCodeInterfaceRef* code) {
  if (profile["plugin"] == "replicated") {
    int copies = 0;
    std::string err;
    if (!StrictToInt(profile["size"], &copies, &err) || copies < 1) {
      return Status::Invalid("size=" + profile["size"]);
    }
    auto made = MakeRepetitionCode(static_cast<unsigned>(copies));
    if (!made.ok()) return made.status();
    *code = *made;
    return Status::OK();
  }
  return PluginRegistry::instance().factory(profile["plugin"], PluginRegistry::default_directory(),
                                            profile, code);
}

inline EncodedObject EncodeObject(const std::string& profile_text, std::size_t stripe_unit,
                                  std::uint64_t object_size, unsigned seed) {
  EncodedObject o;
  auto profile = ParseProfile(profile_text);
  EXPECT_TRUE(profile.ok());
  if (!profile.ok()) return o;
  Status s = MakeCode(*profile, &o.code);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return o;
  auto layout = StripeLayout::Make(*o.code, stripe_unit);
  EXPECT_TRUE(layout.ok()) << layout.status().message();
  o.layout = *layout;
  o.stripes = o.layout.stripes_of(object_size);
  std::mt19937 rng(seed);
  o.object.resize(object_size);
  for (auto& b : o.object) b = static_cast<std::byte>(rng());
  auto shards = StripeCodec(*o.code, o.layout).EncodeToShards(o.object);
  EXPECT_TRUE(shards.ok());
  if (!shards.ok()) return o;
  for (const Buffer& b : *shards) o.shards.emplace_back(b.data(), b.data() + b.size());
  return o;
}

// `stripes` whole stripes of random bytes, encoded.
inline EncodedObject EncodeStripes(const std::string& profile_text, std::size_t stripe_unit,
                                   std::uint64_t stripes, unsigned seed) {
  auto profile = ParseProfile(profile_text);
  EXPECT_TRUE(profile.ok());
  if (!profile.ok()) return {};
  ErasureCodeInterfaceRef code;
  Status s = MakeCode(*profile, &code);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return {};
  auto layout = StripeLayout::Make(*code, stripe_unit);
  EXPECT_TRUE(layout.ok()) << layout.status().message();
  if (!layout.ok()) return {};
  return EncodeObject(profile_text, stripe_unit, layout->stripe_width() * stripes, seed);
}

// Bytes [off, off + n) of `v`.
inline std::vector<std::byte> Part(const std::vector<std::byte>& v, std::uint64_t off,
                                   std::uint64_t n) {
  return {v.begin() + static_cast<std::ptrdiff_t>(off),
          v.begin() + static_cast<std::ptrdiff_t>(off + n)};
}

inline std::vector<std::byte> Bytes(const Buffer& b) {
  return {b.data(), b.data() + b.size()};
}

// A fixture with a random seed per test, printed with every failure so that a run can be replayed.
class SeededTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = std::random_device{}();
    trace_ = std::make_unique<::testing::ScopedTrace>(__FILE__, __LINE__,
                                                      "seed=" + std::to_string(seed_));
  }
  unsigned seed_ = 0;
  std::unique_ptr<::testing::ScopedTrace> trace_;
};

// Every shard but `except` into `source`.
inline void LoadShards(const EncodedObject& o, MemoryShardSource& source, const ShardSet& except) {
  for (std::size_t id = 0; id < o.shards.size(); ++id)
    if (!except.count(static_cast<int>(id))) source.SetShard(static_cast<int>(id), o.shards[id]);
}

// Every shard but `except`, each of cost 1.
inline std::map<int, int> AvailableBut(const EncodedObject& o, const ShardSet& except) {
  std::map<int, int> costs;
  for (std::size_t id = 0; id < o.shards.size(); ++id)
    if (!except.count(static_cast<int>(id))) costs[static_cast<int>(id)] = 1;
  return costs;
}

// What `source` was asked, per shard: its extents in request order.
inline std::map<int, std::vector<Extent>> LoggedReads(const MemoryShardSource& source) {
  std::map<int, std::vector<Extent>> reads;
  for (const auto& logged : source.log())
    reads[logged.shard].insert(reads[logged.shard].end(), logged.extents.begin(),
                               logged.extents.end());
  return reads;
}

}  // namespace ec::recovery::testing
