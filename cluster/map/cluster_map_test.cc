// The cluster map's values without etcd (cluster_map.h): every type encoded and decoded back, and
// the strict decoder's refusals, each naming its key; a pool's optional allow_ec_optimizations.
#include <gtest/gtest.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cluster/map/cluster_map.h"

namespace ec::cluster {
namespace {

const std::string kPrefix = "/ecstore/";

Pool MakePool(std::string name, std::string profile = "rs") {
  Pool p;
  p.name = std::move(name);
  p.profile = std::move(profile);
  p.pg_num = 32;
  p.stripe_unit = 4096;
  p.min_size = 5;
  return p;
}
OsdEntry Osd(int id, std::string host) {
  OsdEntry o;
  o.id = id;
  o.addr = "127.0.0.1:" + std::to_string(6800 + id);
  o.host = std::move(host);
  o.weight = 1.5;
  o.in = true;
  return o;
}

// The pool decoded from `value` at pool/1, or the decoder's error.
Result<Pool> DecodePoolValue(const std::string& value) {
  ClusterMap map;
  bool is_map_key = false;
  EC_RETURN_IF_ERROR(ApplyKey(kPrefix, etcd::KeyValue{PoolKey(kPrefix, 1), value, 1, 1, 1, 0},
                              false, &map, &is_map_key));
  return map.pools.at(1);
}

TEST(MapCodec, RefusesBadValuesNamingTheKey) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"/ecstore/pool/1", "{"},
      {"/ecstore/pool/1", "[]"},
      {"/ecstore/pool/1", "null"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":"1","name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":2,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":0,"stripe_unit":4096,"min_size":1})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":1e400,"stripe_unit":4096,"min_size":1})"},
      {"/ecstore/pool/1",
       R"({"v":2,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1,"x":0})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1,"allow_ec_optimizations":1})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1,"data_chunks":[0,0]})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1,"data_chunks":[-1]})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1,"data_chunks":[64]})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1,"data_chunks":"0,1"})"},
      {"/ecstore/pool/1",
       R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":1,"data_chunks":[0.5]})"},
      {"/ecstore/pool/1", R"({"v":1,"id":1})"},
      {"/ecstore/pool/01", R"({"v":1})"},
      {"/ecstore/pool/x", R"({"v":1})"},
      {"/ecstore/pool/", R"({"v":1})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":-1,"in":true,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":1,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"","weight":1,"in":true,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false})"},
      {"/ecstore/osd/-3",
       R"({"v":1,"id":-3,"addr":"a","host":"h","weight":1,"in":true,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false})"},
      {"/ecstore/osd/3", R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":"yes","uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":true,"uuid":7,"up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":true,"uuid":"","up_stamp_ms":-5,"down_stamp_ms":0,"auto_out":false})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":true,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0.5,"auto_out":false})"},
      {"/ecstore/osd/99999999999", R"({"v":1})"},
      // network_bandwidth (issue 33): an integer of bytes/s, 0 .. 2^40.
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false,"network_bandwidth":-1})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false,"network_bandwidth":1099511627777})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false,"network_bandwidth":1.5e6})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false,"network_bandwidth":"1gbit"})"},
      {"/ecstore/osd/3",
       R"({"v":1,"id":3,"addr":"a","host":"h","weight":1,"in":true,"up":false,"uuid":"","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false,"network_bandwidth":18446744073709551615})"},
      {"/ecstore/profile/rs", R"({"v":1,"name":"other","profile":{}})"},
      {"/ecstore/profile/rs", R"({"v":1,"name":"rs","profile":{"k":4}})"},
      {"/ecstore/profile/rs", R"({"v":1,"name":"rs","profile":[]})"},
      {"/ecstore/profile/", R"({"v":1,"name":"","profile":{}})"},
      {"/ecstore/epoch", "-1"},
      {"/ecstore/epoch", "1x"},
      {"/ecstore/epoch", ""},
      {"/ecstore/epoch", "99999999999999999999999"},
  };
  for (const auto& [key, value] : bad) {
    ClusterMap map;
    bool is_map_key = false;
    etcd::KeyValue kv{key, value, 1, 1, 1, 0};
    Status st = ApplyKey(kPrefix, kv, false, &map, &is_map_key);
    EXPECT_EQ(st.code(), EBADMSG) << key << " = " << value;
    EXPECT_NE(st.message().find("'" + key + "'"), std::string::npos) << st.message();
  }
  // Not map keys: ignored.
  ClusterMap map;
  bool is_map_key = true;
  EXPECT_TRUE(ApplyKey(kPrefix, etcd::KeyValue{"/ecstore/up/3", "garbage", 1, 1, 1, 0}, false, &map,
                       &is_map_key)
                  .ok());
  EXPECT_FALSE(is_map_key);
}

TEST(MapCodec, EncodeDecodeEveryType) {
  ClusterMap map;
  bool is_map_key = false;
  EcProfile prof{"clay",
                 {{"plugin", "clay"}, {"k", "8"}, {"m", "4"}, {"d", "11"}, {"x y", "\"q\""}}};
  Pool pool = MakePool("p\"1", "clay");
  pool.id = 12;
  pool.ec_optimizations = true;
  OsdEntry osd = Osd(7, "host-7");
  osd.weight = 0.125;
  osd.in = false;
  osd.up = true;
  osd.uuid = "0f0e0d0c-0b0a-0908-0706-050403020100";
  osd.up_stamp_ms = 1764000000123;
  osd.down_stamp_ms = 1764000000456;
  osd.auto_out = true;
  ASSERT_TRUE(ApplyKey(kPrefix, {ProfileKey(kPrefix, "clay"), EncodeProfile(prof), 1, 1, 1, 0},
                       false, &map, &is_map_key)
                  .ok());
  ASSERT_TRUE(ApplyKey(kPrefix, {PoolKey(kPrefix, 12), EncodePool(pool), 1, 1, 1, 0}, false, &map,
                       &is_map_key)
                  .ok());
  ASSERT_TRUE(
      ApplyKey(kPrefix, {OsdKey(kPrefix, 7), EncodeOsd(osd), 1, 1, 1, 0}, false, &map, &is_map_key)
          .ok());
  EXPECT_EQ(map.profiles.at("clay"), prof);
  EXPECT_EQ(map.pools.at(12), pool);
  EXPECT_EQ(map.osds.at(7), osd);
  // Its bandwidth unknown: not written, so an OSD of a version before it reads the record.
  EXPECT_EQ(EncodeOsd(osd).find("network_bandwidth"), std::string::npos);
  osd.network_bandwidth = 125'000'000;
  ASSERT_TRUE(
      ApplyKey(kPrefix, {OsdKey(kPrefix, 7), EncodeOsd(osd), 1, 1, 1, 0}, false, &map, &is_map_key)
          .ok());
  EXPECT_EQ(map.osds.at(7).network_bandwidth, 125'000'000u);
  osd.network_bandwidth = kMaxNetworkBandwidth;
  ASSERT_TRUE(
      ApplyKey(kPrefix, {OsdKey(kPrefix, 7), EncodeOsd(osd), 1, 1, 1, 0}, false, &map, &is_map_key)
          .ok());
  EXPECT_EQ(map.osds.at(7), osd);
  // A record written before the field: unknown.
  ASSERT_TRUE(
      ApplyKey(
          kPrefix,
          {OsdKey(kPrefix, 7),
           R"({"v":1,"id":7,"addr":"a","host":"h","weight":1,"in":true,"up":true,"uuid":"u","up_stamp_ms":0,"down_stamp_ms":0,"auto_out":false})",
           1, 1, 1, 0},
          false, &map, &is_map_key)
          .ok());
  EXPECT_EQ(map.osds.at(7).network_bandwidth, 0u);
  EXPECT_EQ(map.osds.at(7).host, "h");
}

// Both values of the flag survive a round trip, and Encode always writes the key as a JSON bool.
TEST(MapCodec, PoolEcOptimizationsRoundTrips) {
  for (bool flag : {true, false}) {
    Pool pool = MakePool("p");
    pool.id = 1;
    pool.ec_optimizations = flag;
    const std::string value = EncodePool(pool);
    const nlohmann::json j = nlohmann::json::parse(value);
    ASSERT_TRUE(j.contains("allow_ec_optimizations")) << value;
    EXPECT_EQ(j["allow_ec_optimizations"], nlohmann::json(flag)) << value;
    EXPECT_EQ(j["v"], 1) << value;
    Result<Pool> back = DecodePoolValue(value);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, pool);
    EXPECT_EQ(back->ec_optimizations, flag);
  }
}

// ec_min_object_size (issue 30): written only when set, read back, absent = 0; refused on a
// replicated pool's record and above its bound.
TEST(MapCodec, PoolEcMinObjectSizeRoundTrips) {
  Pool pool = MakePool("p");
  pool.id = 1;
  EXPECT_FALSE(nlohmann::json::parse(EncodePool(pool)).contains("ec_min_object_size"));
  pool.ec_min_object_size = 65536;
  const std::string value = EncodePool(pool);
  Result<Pool> back = DecodePoolValue(value);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->ec_min_object_size, 65536u);
  nlohmann::json j = nlohmann::json::parse(value);
  j["ec_min_object_size"] = kMaxEcMinObjectSize + 1;
  EXPECT_FALSE(DecodePoolValue(j.dump()).ok());
  j["ec_min_object_size"] = 4096;
  j["type"] = "replicated";
  j["size"] = 3;
  Result<Pool> rep = DecodePoolValue(j.dump());
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.status().message().find("erasure pools only"), std::string::npos);
}

// The data chunks (direct reads) survive a round trip; a record without them has none.
TEST(MapCodec, PoolDataChunksRoundTrip) {
  Pool pool = MakePool("p");
  pool.id = 1;
  pool.data_chunks = {0, 1, 4, 5};  // LRC's mapping DD__DD__ style
  Result<Pool> back = DecodePoolValue(EncodePool(pool));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->data_chunks, pool.data_chunks);
  Result<Pool> old = DecodePoolValue(
      R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":3})");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_TRUE(old->data_chunks.empty());
}

// A record written before the flag existed (no key) is a padded pool, still readable.
TEST(MapCodec, PoolWithoutTheFlagIsPadded) {
  Result<Pool> old = DecodePoolValue(
      R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":3})");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_FALSE(old->ec_optimizations);
  EXPECT_EQ(old->name, "p");
  EXPECT_EQ(old->min_size, 3);
}

// Any value but a JSON bool is refused as other bad fields are: EBADMSG naming key and field.
TEST(MapCodec, PoolFlagOfTheWrongTypeIsRefused) {
  for (const char* bad : {"1", "0", "\"true\"", "null", "[]", "{}", "1.5"}) {
    const std::string value =
        std::string(R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,)") +
        R"("min_size":3,"allow_ec_optimizations":)" + bad + "}";
    Result<Pool> p = DecodePoolValue(value);
    ASSERT_FALSE(p.ok()) << value;
    EXPECT_EQ(p.status().code(), EBADMSG) << value;
    EXPECT_EQ(p.status().message(),
              "cluster map key '/ecstore/pool/1': field 'allow_ec_optimizations' is not a boolean")
        << value;
  }
}

// A replicated pool (issue 30) round-trips with its type and size; an erasure pool's record has
// neither (as before them); a record without "type" is erasure.
TEST(MapCodec, ReplicatedPoolRoundTrips) {
  Pool pool = MakePool("rep", "");
  pool.id = 1;
  pool.type = PoolType::kReplicated;
  pool.size = 3;
  pool.min_size = 2;
  pool.data_chunks = {0};
  const std::string value = EncodePool(pool);
  const nlohmann::json j = nlohmann::json::parse(value);
  EXPECT_EQ(j["type"], "replicated") << value;
  EXPECT_EQ(j["size"], 3) << value;
  Result<Pool> back = DecodePoolValue(value);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, pool);
  Pool ec = MakePool("p");
  ec.id = 1;
  const nlohmann::json ej = nlohmann::json::parse(EncodePool(ec));
  EXPECT_FALSE(ej.contains("type"));
  EXPECT_FALSE(ej.contains("size"));
  Result<Pool> typed = DecodePoolValue(
      R"({"v":1,"id":1,"name":"p","profile":"rs","pg_num":8,"stripe_unit":4096,"min_size":3,)"
      R"("type":"erasure"})");
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  EXPECT_EQ(typed->type, PoolType::kErasure);
  EXPECT_EQ(PoolTypeName(PoolType::kReplicated), "replicated");
  EXPECT_EQ(PoolTypeName(PoolType::kErasure), "erasure");
}

TEST(MapCodec, BadPoolTypesAndSizesAreRefused) {
  const std::string head =
      R"({"v":1,"id":1,"name":"p","profile":"","pg_num":8,"stripe_unit":4096,"min_size":1,)";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"("type":"mirrored","size":2})", "field 'type' is 'mirrored', not erasure or replicated"},
      {R"("type":3,"size":2})", "field 'type' is not a string"},
      {R"("type":"replicated"})", "missing field 'size'"},
      {R"("type":"replicated","size":0})", "field 'size' = 0 is outside 1..64"},
      {R"("type":"replicated","size":65})", "field 'size' = 65 is outside 1..64"},
      {R"("type":"replicated","size":"3"})", "field 'size' is not an integer"},
      {R"("size":3})", "field 'size' is for replicated pools only"},
  };
  for (const auto& [tail, why] : bad) {
    Result<Pool> p = DecodePoolValue(head + tail);
    ASSERT_FALSE(p.ok()) << tail;
    EXPECT_EQ(p.status().code(), EBADMSG) << tail;
    EXPECT_EQ(p.status().message(), "cluster map key '/ecstore/pool/1': " + why) << tail;
  }
}

}  // namespace
}  // namespace ec::cluster
