// ec-rados lspools and df in-process against a real etcd (testing::EtcdServer): a map made with
// MapStore, OSD and PG reports published as the OSDs publish them; rados's table and JSON keys,
// -p of one pool, a missing pool, reports that do not decode.
#include "tools/ec_rados/pool_commands.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/etcd/etcd_test_server.h"
#include "cluster/map/map_store.h"
#include "cluster/map/osd_stats.h"
#include "cluster/map/pg_stats.h"
#include "cluster/map/pool_geometry.h"

namespace ec::tools::rados {
namespace {

using nlohmann::json;
constexpr std::int64_t kGiB = 1LL << 30;
constexpr const char* kPrefix = "/rdf/";

class RadosPoolCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    client_ = std::make_unique<etcd::Client>(server_.client_options());
    cluster::MapStore store(client_.get(), kPrefix);
    cluster::EcProfile rs{"rs", {{"plugin", "jerasure"}, {"k", "2"}, {"m", "1"}}};
    std::vector<cluster::MapChange> changes = {cluster::MapChange::PutProfile(rs)};
    for (const char* name : {"a", "b"}) {
      cluster::Pool p;
      p.name = name;
      p.profile = "rs";
      p.pg_num = 4;
      p.stripe_unit = 4096;
      p.min_size = 2;
      changes.push_back(cluster::MapChange::PutPool(p));
    }
    for (int id = 0; id < 3; ++id) {
      changes.push_back(cluster::MapChange::OsdBoot(id, "127.0.0.1:" + std::to_string(6800 + id),
                                                    "h" + std::to_string(id),
                                                    "u" + std::to_string(id), 1));
    }
    auto applied = store.Apply(changes);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    for (int id = 0; id < 3; ++id) {
      cluster::OsdStatsReport o;
      o.osd = id;
      o.statfs = {10 * kGiB, 9 * kGiB, kGiB - 4096, 0, 4096};
      o.pools[1] = {3, 3 * 4096, 2, 8192};
      ASSERT_TRUE(cluster::PublishOsdStats(*client_, kPrefix, o).ok());
      cluster::PgStatsReport r;
      r.osd = id;
      r.epoch = applied->epoch;
      for (std::uint32_t pg = 0; pg < 4; ++pg) {
        r.pgs[cluster::PgName(1, pg)].objects = 1;
        r.pgs[cluster::PgName(1, pg)].bytes = 4096;
      }
      ASSERT_TRUE(cluster::PublishPgStats(*client_, kPrefix, r).ok());
    }
  }

  etcd::testing::EtcdServer server_;
  std::unique_ptr<etcd::Client> client_;
};

TEST_F(RadosPoolCommands, LsPoolsAndDf) {
  auto ls = LsPools(*client_, kPrefix);
  ASSERT_TRUE(ls.ok()) << ls.status().ToString();
  EXPECT_EQ(*ls, "a\nb\n");

  auto plain = RadosDf(*client_, kPrefix, "", "plain");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(*plain,
            "POOL_NAME    USED  OBJECTS  CLONES  COPIES  MISSING_ON_PRIMARY  UNFOUND  DEGRADED  "
            "RD_OPS      RD  WR_OPS      WR  USED COMPR  UNDER COMPR\n"
            "a          24 KiB        4       0      12                   0        0         0  "
            "     9  36 KiB       6  24 KiB         0 B          0 B\n"
            "b             0 B        0       0       0                   0        0         0  "
            "     0     0 B       0     0 B         0 B          0 B\n"
            "\n"
            "total_objects    4\n"
            "total_used       3.0 GiB\n"
            "total_avail      27 GiB\n"
            "total_space      30 GiB\n")
      << *plain;

  auto text = RadosDf(*client_, kPrefix, "a", "json");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const json j = json::parse(*text);
  ASSERT_EQ(j["pools"].size(), 1u);
  const json& a = j["pools"][0];
  EXPECT_EQ(a["name"], "a");
  EXPECT_EQ(a["id"], 1);
  EXPECT_EQ(a["size_bytes"], 24576);
  EXPECT_EQ(a["num_objects"], 4);
  EXPECT_EQ(a["num_object_copies"], 12);
  EXPECT_EQ(a["read_ops"], 9);
  EXPECT_EQ(a["read_bytes"], 9 * 4096);
  EXPECT_EQ(a["write_ops"], 6);
  EXPECT_EQ(a["stored_data"], 16384);
  EXPECT_EQ(j["total_space"], 30 * kGiB / 1024);
  EXPECT_EQ(j["total_objects"], 4);
}

TEST_F(RadosPoolCommands, ErrorsAndBadReports) {
  auto missing = RadosDf(*client_, kPrefix, "nope", "plain");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ENOENT);
  // A report that does not decode is left out, never a crash.
  ASSERT_TRUE(client_->Put(etcd::PutRequest{cluster::OsdStatsKey(kPrefix, 0), "[1,2", 0}).ok());
  auto df = RadosDf(*client_, kPrefix, "", "json");
  ASSERT_TRUE(df.ok()) << df.status().ToString();
  EXPECT_EQ(json::parse(*df)["total_space"], 20 * kGiB / 1024);
  // An etcd that does not answer: the client's error.
  server_.Kill();
  auto down = LsPools(*client_, kPrefix);
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.status().code(), 0);
}

}  // namespace
}  // namespace ec::tools::rados
