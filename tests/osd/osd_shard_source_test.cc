// The repair engine over real ec-osd processes (osd/pg/osd_shard_source.h): an object encoded
// with CLAY k=4 m=2 d=5, its six shards on six OSDs (shard i on OSD i), one shard dropped and
// rebuilt from the five others reading exactly d*C/q per stripe in one ReadShard per helper; then
// helpers killed: the engine plans again with Reed-Solomon reads of k whole chunks, and fails
// naming the dead OSDs when fewer than k remain.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "ec/plugin.h"
#include "ec/stripe_codec.h"
#include "msg/client.h"
#include "osd/pg/osd_shard_source.h"
#include "recovery/repair_engine.h"
#include "tests/osd/osd_process.h"
#include "tests/system_test_support.h"

namespace ectest {
namespace {

using ec::Buffer;
using ec::Status;
using ec::msg::OsdClient;

constexpr int kOsds = 6;
constexpr std::size_t kChunk = 4096;  // stripe unit: CLAY sub-chunks of 512 bytes
constexpr std::uint64_t kStripes = 300;
const char* const kCollection = "pg.1.0";
const char* const kObject = "obj";

class OsdShardSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = std::random_device{}();
    for (int i = 0; i < kOsds; ++i) {
      fs::create_directories(dir_ / ("osd" + std::to_string(i)));
      osds_.push_back(std::make_unique<OsdProcess>(dir_ / ("osd" + std::to_string(i)), i));
      ProcessResult mkfs = osds_.back()->Mkfs();
      ASSERT_EQ(mkfs.exit_code, 0) << mkfs.err;
      ASSERT_TRUE(osds_.back()->Start());
      ec::msg::ClientOptions o;
      o.port = osds_.back()->port();
      o.request_timeout = std::chrono::seconds(30);
      o.connect_timeout = std::chrono::seconds(5);
      auto client = OsdClient::Create(o);
      ASSERT_TRUE(client.ok()) << client.status().message();
      clients_.push_back(std::move(*client));
    }
    // The code, as a program gets it: from the plugins of EC_PLUGIN_DIR.
    ec::Profile profile = {{"k", "4"}, {"m", "2"}, {"d", "5"}};
    Status s = ec::PluginRegistry::instance().factory(
        "clay", ec::PluginRegistry::default_directory(), profile, &code_);
    ASSERT_TRUE(s.ok()) << s.message();
    auto layout = ec::StripeLayout::Make(*code_, kChunk);
    ASSERT_TRUE(layout.ok()) << layout.status().message();
    layout_ = *layout;

    // Encode an object of kStripes stripes (the last one partly padding) and store shard i on
    // OSD i.
    std::mt19937 rng(seed_);
    std::vector<std::byte> object(layout_.stripe_width() * kStripes - 1000);
    for (auto& b : object) b = static_cast<std::byte>(rng());
    auto shards = ec::StripeCodec(*code_, layout_).EncodeToShards(object);
    ASSERT_TRUE(shards.ok()) << shards.status().message();
    shards_ = std::move(*shards);
    for (int i = 0; i < kOsds; ++i) {
      ec::msg::WriteShardRequest w;
      w.collection = kCollection;
      w.object = kObject;
      w.shard = static_cast<std::uint32_t>(i);
      w.version = 1;
      w.flags = ec::msg::kWriteReplace;
      Status put = clients_[i]->WriteShard(w, {shards_[i]});
      ASSERT_TRUE(put.ok()) << put.message();
    }
  }

  void TearDown() override {
    clients_.clear();
    for (auto& osd : osds_)
      if (osd->running()) osd->Kill();
  }

  ec::msg::OsdShardSource Source() {
    ec::msg::OsdShardSource::Options o;
    o.collection = kCollection;
    o.object = kObject;
    for (int i = 0; i < kOsds; ++i) o.shards[i] = {clients_[i].get(), "osd." + std::to_string(i)};
    return ec::msg::OsdShardSource(std::move(o));
  }

  // Rebuild shard `lost` from every other shard (cost 1 each), as recovery would ask.
  ec::recovery::RepairRequest Request(int lost) const {
    ec::recovery::RepairRequest r;
    r.want = {lost};
    for (int i = 0; i < kOsds; ++i)
      if (i != lost) r.available[i] = 1;
    r.stripes = kStripes;
    return r;
  }

  std::vector<std::byte> Bytes(const Buffer& b) { return {b.data(), b.data() + b.size()}; }

  unsigned seed_ = 0;
  TempDir dir_;
  std::vector<std::unique_ptr<OsdProcess>> osds_;
  std::vector<std::unique_ptr<OsdClient>> clients_;
  ec::ErasureCodeInterfaceRef code_;
  ec::StripeLayout layout_;
  std::vector<Buffer> shards_;
};

TEST_F(OsdShardSourceTest, ClayShardRebuiltFromFiveOsdsReadsDTimesCOverQ) {
  SCOPED_TRACE("seed=" + std::to_string(seed_));
  const int lost = 1;
  ASSERT_TRUE(clients_[lost]->Remove({kCollection, kObject, lost}).ok());
  ASSERT_EQ(clients_[lost]->Stat({kCollection, kObject, lost}).status().code(), ENOENT);

  std::vector<std::uint64_t> sent_before;
  for (auto& c : clients_) sent_before.push_back(c->counters().requests_sent);
  ec::msg::OsdShardSource source = Source();
  const ec::recovery::RepairEngine engine(code_, layout_);
  auto rebuilt = engine.Rebuild(Request(lost), source);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
  EXPECT_TRUE(Bytes(rebuilt->shards.at(lost)) == Bytes(shards_[lost]));

  const std::uint64_t d = 5, q = 2;  // q = d - k + 1
  const auto& stats = rebuilt->stats;
  EXPECT_EQ(stats.bytes_read(), d * kChunk / q * kStripes);
  EXPECT_EQ(stats.batches, 1u);
  EXPECT_EQ(stats.helpers_read(), (ec::ShardSet{0, 2, 3, 4, 5}));
  for (int h : {0, 2, 3, 4, 5}) {
    EXPECT_EQ(stats.helpers.at(h).requests, 1u) << "helper " << h;
    EXPECT_EQ(stats.helpers.at(h).bytes, kChunk / q * kStripes) << "helper " << h;
    // What went over the wire: one request to each helper OSD, none to the lost one.
    EXPECT_EQ(clients_[h]->counters().requests_sent - sent_before[h], 1u) << "osd." << h;
  }
  EXPECT_EQ(clients_[lost]->counters().requests_sent - sent_before[lost], 0u);

  // Put the rebuilt shard back and read it through the source like any other.
  ec::msg::WriteShardRequest w;
  w.collection = kCollection;
  w.object = kObject;
  w.shard = lost;
  w.version = 1;
  w.flags = ec::msg::kWriteReplace;
  ASSERT_TRUE(clients_[lost]->WriteShard(w, {rebuilt->shards.at(lost)}).ok());
  auto again = clients_[lost]->ReadShard({kCollection, kObject, lost, {{0, kChunk * kStripes}}});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(Bytes(again->extents.at(0)) == Bytes(shards_[lost]));
}

// A degraded read of a byte range of the lost shard: only the sub-chunks it needs cross the
// network.
TEST_F(OsdShardSourceTest, PartialRepairOfAByteRange) {
  const int lost = 4;
  ASSERT_TRUE(clients_[lost]->Remove({kCollection, kObject, lost}).ok());
  ec::msg::OsdShardSource source = Source();
  const ec::recovery::RepairEngine engine(code_, layout_);
  ec::recovery::RepairRequest r = Request(lost);
  r.offset = 10 * kChunk + 700;
  r.length = 1500;
  auto rebuilt = engine.Rebuild(r, source);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
  const std::byte* want = shards_[lost].data() + r.offset;
  EXPECT_TRUE(Bytes(rebuilt->shards.at(lost)) == std::vector<std::byte>(want, want + r.length));
  EXPECT_LT(rebuilt->stats.bytes_read(), 5 * kChunk / 2);  // less than one stripe's full repair
  EXPECT_EQ(rebuilt->stats.requests(), rebuilt->stats.helpers_read().size());
}

// Options::shard_sizes (issue 28): a shard of another length than the one given is DataLoss
// (EIO) naming the OSD and both lengths, whether it is shorter or longer, even for extents it
// holds; the engine reads around it and still rebuilds.
TEST_F(OsdShardSourceTest, AShardOfTheWrongLengthIsDataLossAndReadAround) {
  SCOPED_TRACE("seed=" + std::to_string(seed_));
  const std::uint64_t size = shards_[0].size();
  // A source that expects every shard at its length but those in `wrong`.
  auto source_with = [&](std::map<int, std::uint64_t> wrong) {
    ec::msg::OsdShardSource::Options o;
    o.collection = kCollection;
    o.object = kObject;
    for (int i = 0; i < kOsds; ++i) {
      o.shards[i] = {clients_[i].get(), "osd." + std::to_string(i)};
      o.shard_sizes[i] = wrong.count(i) ? wrong[i] : size;
    }
    return ec::msg::OsdShardSource(std::move(o));
  };
  // Shard 2 is longer than it should be, shard 3 shorter.
  ec::msg::OsdShardSource source = source_with({{2, size - 4096}, {3, size + 1}});
  std::vector<std::byte> a(100), b(100), c(100);
  std::vector<ec::recovery::ShardReadRequest> requests = {
      {2, {{0, 100}}, a}, {3, {{0, 100}}, b}, {4, {{0, 100}}, c}};
  auto got = ec::recovery::ReadAll(source, requests);
  ASSERT_EQ(got.size(), 3u);
  for (int i : {0, 1}) {
    EXPECT_TRUE(got[i].is_data_loss()) << got[i].ToString();
    EXPECT_NE(got[i].message().find("a wrong length"), std::string::npos) << got[i].message();
  }
  EXPECT_NE(got[0].message().find("osd.2: shard 2 holds " + std::to_string(size) + " bytes"),
            std::string::npos)
      << got[0].message();
  EXPECT_TRUE(got[2].ok()) << got[2].ToString();
  // Rebuilding shard 1 goes around a shard of the wrong length (RS-style reads of the other
  // four: CLAY's repair needs d = 5 helpers) and gets the right bytes.
  ec::msg::OsdShardSource one_wrong = source_with({{2, size + 4096}});
  const ec::recovery::RepairEngine engine(code_, layout_);
  auto rebuilt = engine.Rebuild(Request(1), one_wrong);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
  EXPECT_TRUE(Bytes(rebuilt->shards.at(1)) == Bytes(shards_[1]));
  ASSERT_EQ(rebuilt->stats.failed.size(), 1u);
  EXPECT_TRUE(rebuilt->stats.failed.begin()->second.is_data_loss());
}

TEST_F(OsdShardSourceTest, DeadHelpersAreReplannedAroundThenNamed) {
  SCOPED_TRACE("seed=" + std::to_string(seed_));
  const int lost = 1;
  ASSERT_TRUE(clients_[lost]->Remove({kCollection, kObject, lost}).ok());
  // One helper dies: four shards remain, exactly k: Reed-Solomon reads of whole chunks.
  EXPECT_EQ(osds_[3]->Kill(), 128 + 9);
  ec::msg::OsdShardSource source = Source();
  const ec::recovery::RepairEngine engine(code_, layout_);
  auto rebuilt = engine.Rebuild(Request(lost), source);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
  EXPECT_TRUE(Bytes(rebuilt->shards.at(lost)) == Bytes(shards_[lost]));
  const auto& stats = rebuilt->stats;
  EXPECT_EQ(stats.plans, 2u);
  ASSERT_EQ(stats.failed.count(3), 1u);
  EXPECT_NE(stats.failed.at(3).message().find("osd.3"), std::string::npos)
      << stats.failed.at(3).message();
  EXPECT_EQ(stats.helpers_read(), (ec::ShardSet{0, 2, 4, 5}));
  for (int h : {0, 2, 4, 5}) {
    // The failed first round (C/q) and the Reed-Solomon round (whole chunks).
    EXPECT_EQ(stats.helpers.at(h).bytes, (kChunk / 2 + kChunk) * kStripes) << "helper " << h;
  }

  // A second helper dies: three shards cannot rebuild a k=4 code.
  EXPECT_EQ(osds_[5]->Kill(), 128 + 9);
  ec::recovery::RepairStats failed_stats;
  Status s = engine.Run(
      Request(lost), source, [](const ec::recovery::RebuiltBytes&) { return Status::OK(); },
      &failed_stats);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), EIO);
  EXPECT_NE(s.message().find("cannot rebuild shard(s) 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("3 (osd.3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("5 (osd.5"), std::string::npos) << s.message();
  EXPECT_EQ(failed_stats.batches, 0u);
}

}  // namespace
}  // namespace ectest
