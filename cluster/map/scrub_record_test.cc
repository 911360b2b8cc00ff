// The scrub record codecs (no etcd): requests and results round-trip, every malformed value is
// EBADMSG naming the key and the field, Ceph's list-inconsistent-obj shape, the keys and their
// pgids, and the kind names.
#include "cluster/map/scrub_record.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace ec::cluster {
namespace {

constexpr const char* kRequestKey = "/ecstore/scrub_requests/1.3";
constexpr const char* kResultKey = "/ecstore/scrub/1.3";

ScrubResult SampleRecord() {
  ScrubResult r;
  r.pgid = "1.3";
  r.osd = 2;
  r.epoch = 12;
  r.kind = ScrubKind::kDeepScrub;
  r.stamp_ms = 1'700'000'000'500;
  r.last_scrub_ms = 1'700'000'000'500;
  r.last_deep_scrub_ms = 1'699'000'000'000;
  r.objects = 40;
  r.errors = 4;
  r.repaired = 0;
  InconsistentObject a;
  a.name = "obj1";
  a.version = 123;
  a.errors = {scrub_error::kEcHashError};
  a.union_shard_errors = {scrub_error::kReadError};
  a.shards = {ShardScrubError{2, true, 0, {}, 4096, 123},
              ShardScrubError{3, false, 1, {scrub_error::kReadError}, 4096, 123},
              ShardScrubError{5, false, 2, {}, 4096, 123}};
  InconsistentObject b;
  b.name = "dir/obj two";
  b.version = 9;
  b.errors = {scrub_error::kVersionMismatch, scrub_error::kSizeMismatch};
  b.union_shard_errors = {scrub_error::kMissing, scrub_error::kSizeMismatchInfo};
  b.shards = {ShardScrubError{2, true, 0, {}, 8192, 9},
              ShardScrubError{3, false, 1, {scrub_error::kSizeMismatchInfo}, 100, 8},
              ShardScrubError{5, false, 2, {scrub_error::kMissing}, 0, 0}};
  InconsistentObject c;  // no shard entries at all
  c.name = "c";
  c.errors = {scrub_error::kStatError};
  r.inconsistents = {a, b, c};
  return r;
}

std::string Message(const Status& s) {
  return s.message();
}

void ExpectBadResult(const std::string& value, const std::string& why) {
  auto r = DecodeScrubResult(kResultKey, value);
  ASSERT_FALSE(r.ok()) << value;
  EXPECT_EQ(r.status().code(), EBADMSG) << value;
  EXPECT_NE(Message(r.status()).find(std::string("bad scrub result at ") + kResultKey + ": "),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(Message(r.status()).find(why), std::string::npos)
      << value << ": " << r.status().message();
}

void ExpectBadRequest(const std::string& value, const std::string& why) {
  auto r = DecodeScrubRequest(kRequestKey, value);
  ASSERT_FALSE(r.ok()) << value;
  EXPECT_EQ(r.status().code(), EBADMSG) << value;
  EXPECT_NE(Message(r.status()).find(std::string("bad scrub request at ") + kRequestKey + ": "),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(Message(r.status()).find(why), std::string::npos)
      << value << ": " << r.status().message();
}

TEST(ScrubKind, NamesAndParsing) {
  EXPECT_EQ(ScrubKindName(ScrubKind::kScrub), "scrub");
  EXPECT_EQ(ScrubKindName(ScrubKind::kDeepScrub), "deep-scrub");
  EXPECT_EQ(ScrubKindName(ScrubKind::kRepair), "repair");
  for (ScrubKind k : {ScrubKind::kScrub, ScrubKind::kDeepScrub, ScrubKind::kRepair}) {
    auto p = ParseScrubKind(ScrubKindName(k));
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(*p, k);
  }
  for (const char* name : {"", "deep_scrub", "deepscrub", "Scrub", "REPAIR", " scrub", "scrub ",
                           "deep-scrub\n", "unknown"}) {
    auto p = ParseScrubKind(name);
    ASSERT_FALSE(p.ok()) << name;
    EXPECT_EQ(p.status().code(), EINVAL) << name;
  }
}

TEST(ScrubRecord, Keys) {
  EXPECT_EQ(ScrubRequestPrefix("/ecstore/"), "/ecstore/scrub_requests/");
  EXPECT_EQ(ScrubResultPrefix("/ecstore/"), "/ecstore/scrub/");
  EXPECT_EQ(ScrubRequestKey("/ecstore/", "1.3"), kRequestKey);
  EXPECT_EQ(ScrubResultKey("/ecstore/", "1.3"), kResultKey);
  // Neither prefix's range holds the other's keys.
  EXPECT_NE(ScrubRequestKey("/ecstore/", "1.3").rfind(ScrubResultPrefix("/ecstore/"), 0), 0u);
  EXPECT_NE(ScrubResultKey("/ecstore/", "1.3").rfind(ScrubRequestPrefix("/ecstore/"), 0), 0u);
}

TEST(ScrubRecord, PgidOfKey) {
  const std::string results = ScrubResultPrefix("/ecstore/");
  const std::string requests = ScrubRequestPrefix("/ecstore/");
  EXPECT_EQ(PgidOfKey(results, "/ecstore/scrub/1.3"), "1.3");
  EXPECT_EQ(PgidOfKey(results, "/ecstore/scrub/12.1f"), "12.1f");
  EXPECT_EQ(PgidOfKey(requests, "/ecstore/scrub_requests/1.3"), "1.3");
  EXPECT_EQ(PgidOfKey(results, ScrubResultKey("/ecstore/", "2.0")), "2.0");
  EXPECT_EQ(PgidOfKey(results, "/ecstore/scrub/"), std::nullopt);  // the prefix itself
  EXPECT_EQ(PgidOfKey(results, "/ecstore/scrub"), std::nullopt);   // shorter
  EXPECT_EQ(PgidOfKey(results, "/ecstore/scrub_requests/1.3"), std::nullopt);
  EXPECT_EQ(PgidOfKey(requests, "/ecstore/scrub/1.3"), std::nullopt);
  EXPECT_EQ(PgidOfKey(results, "/other/scrub/1.3"), std::nullopt);
  EXPECT_EQ(PgidOfKey(results, "/ecstore/scrub/1.3/x"), std::nullopt);  // deeper
  EXPECT_EQ(PgidOfKey(results, "/ecstore/pgstats/3"), std::nullopt);
  EXPECT_EQ(PgidOfKey(results, ""), std::nullopt);
  EXPECT_EQ(PgidOfKey("", "1.3"), "1.3");
}

TEST(ScrubRecord, RequestRoundTrip) {
  for (ScrubKind k : {ScrubKind::kScrub, ScrubKind::kDeepScrub, ScrubKind::kRepair}) {
    for (std::int64_t ms : {std::int64_t{0}, std::int64_t{1'700'000'000'123}, INT64_MAX}) {
      const ScrubRequest req{k, ms};
      const std::string text = EncodeScrubRequest(req);
      auto back = DecodeScrubRequest(kRequestKey, text);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      EXPECT_EQ(*back, req);
    }
  }
  EXPECT_EQ(nlohmann::json::parse(EncodeScrubRequest({ScrubKind::kRepair, 7})),
            nlohmann::json::parse(R"({"v":1,"kind":"repair","requested_ms":7})"));
}

TEST(ScrubRecord, ResultRoundTrip) {
  // Empty (a clean PG's record) and default.
  ScrubResult empty;
  empty.pgid = "1.0";
  empty.osd = 0;
  auto back = DecodeScrubResult(kResultKey, EncodeScrubResult(empty));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, empty);

  const ScrubResult full = SampleRecord();
  const std::string text = EncodeScrubResult(full);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["v"], 1);
  EXPECT_EQ(j["kind"], "deep-scrub");
  EXPECT_EQ(j["inconsistents"][0]["object"], nlohmann::json::parse(R"({"name":"obj1",
      "version":123})"));
  back = DecodeScrubResult(kResultKey, text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, full);

  // Extremes and the other kinds.
  ScrubResult e = full;
  e.kind = ScrubKind::kRepair;
  e.repaired = 3;
  e.osd = INT32_MAX;
  e.epoch = INT64_MAX;
  e.errors = INT64_MAX;
  e.truncated = true;
  e.inconsistents[0].shards[0].shard = INT32_MAX;
  e.inconsistents[0].shards[0].size = INT64_MAX;
  back = DecodeScrubResult(kResultKey, EncodeScrubResult(e));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, e);
  e.kind = ScrubKind::kScrub;
  back = DecodeScrubResult(kResultKey, EncodeScrubResult(e));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, e);
}

TEST(ScrubRecord, EncodeCapsTheInconsistents) {
  ScrubResult r = SampleRecord();
  InconsistentObject o = r.inconsistents[0];
  r.inconsistents.clear();
  for (std::size_t i = 0; i < kMaxInconsistentsRecorded; ++i) {
    o.name = "obj" + std::to_string(i);
    r.inconsistents.push_back(o);
  }
  r.errors = 5000;
  // Exactly the cap: kept whole, not truncated.
  auto back = DecodeScrubResult(kResultKey, EncodeScrubResult(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  EXPECT_FALSE(back->truncated);
  // One more: the first kMax kept, truncated set, errors unchanged.
  ScrubResult over = r;
  o.name = "one-too-many";
  over.inconsistents.push_back(o);
  back = DecodeScrubResult(kResultKey, EncodeScrubResult(over));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ScrubResult want = r;
  want.truncated = true;
  EXPECT_EQ(*back, want);
  EXPECT_EQ(back->errors, 5000);
}

// The cap keeps a record of a 6-shard code with 64-byte names under etcd's 1.5 MiB request.
TEST(ScrubRecord, FullRecordFitsEtcdRequest) {
  ScrubResult r = SampleRecord();
  r.inconsistents.clear();
  for (std::size_t i = 0; i < kMaxInconsistentsRecorded; ++i) {
    InconsistentObject o;
    o.name = std::string(60, 'x') + std::to_string(1000 + i);
    o.version = 1'000'000'000;
    o.errors = {scrub_error::kEcHashError};
    o.union_shard_errors = {scrub_error::kReadError, scrub_error::kSizeMismatchInfo};
    for (int s = 0; s < 6; ++s) {
      o.shards.push_back(
          ShardScrubError{100 + s, s == 0, s, {scrub_error::kReadError}, 4 << 20, 1'000'000'000});
    }
    r.inconsistents.push_back(std::move(o));
  }
  const std::string text = EncodeScrubResult(r);
  EXPECT_LT(text.size(), 1536u * 1024) << text.size();
  auto back = DecodeScrubResult(kResultKey, text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
}

TEST(ScrubRecord, BadRequestsAreEbadmsg) {
  ASSERT_TRUE(DecodeScrubRequest(kRequestKey, R"({"v":1,"kind":"scrub","requested_ms":1})").ok());
  ExpectBadRequest("", "not a JSON object");
  ExpectBadRequest("{", "not a JSON object");
  ExpectBadRequest("[]", "not a JSON object");
  ExpectBadRequest("null", "not a JSON object");
  ExpectBadRequest(R"("scrub")", "not a JSON object");
  ExpectBadRequest(R"({"v":1,"kind":"scrub","requested_ms":1} x)", "not a JSON object");
  for (const char* v : {"0", "2", "-1", "1.0", "\"1\"", "true", "null"}) {
    ExpectBadRequest(std::string(R"({"v":)") + v + R"(,"kind":"scrub","requested_ms":1})", "v");
  }
  for (const char* kind : {"\"\"", "\"deep_scrub\"", "\"Repair\"", "1", "null", "[\"scrub\"]"}) {
    ExpectBadRequest(std::string(R"({"v":1,"kind":)") + kind + R"(,"requested_ms":1})", "kind");
  }
  for (const char* ms : {"-1", "1.5", "\"1\"", "9223372036854775808", "false", "null", "{}"}) {
    ExpectBadRequest(std::string(R"({"v":1,"kind":"scrub","requested_ms":)") + ms + "}",
                     "requested_ms");
  }
  ExpectBadRequest(R"({"kind":"scrub","requested_ms":1})", "v");
  ExpectBadRequest(R"({"v":1,"requested_ms":1})", "kind");
  ExpectBadRequest(R"({"v":1,"kind":"scrub"})", "requested_ms");
  ExpectBadRequest(R"({"v":1,"kind":"scrub","requested_ms":1,"pgid":"1.3"})", "unknown field");
  ExpectBadRequest(R"({"v":1,"kind":"scrub","kind":"repair","requested_ms":1})",
                   "not a JSON object");
}

// A valid result as JSON, for damaging one field at a time.
nlohmann::json Good() {
  return nlohmann::json::parse(EncodeScrubResult(SampleRecord()));
}

TEST(ScrubRecord, BadResultsAreEbadmsg) {
  ASSERT_TRUE(DecodeScrubResult(kResultKey, Good().dump()).ok());
  ExpectBadResult("", "not a JSON object");
  ExpectBadResult("{\"v\":1", "not a JSON object");
  ExpectBadResult("[1]", "not a JSON object");
  ExpectBadResult("42", "not a JSON object");

  const auto with = [](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = Good();
    damage(j);
    return j.dump();
  };
  // Wrong version.
  for (const nlohmann::json& v : {nlohmann::json(0), nlohmann::json(2), nlohmann::json(-1),
                                  nlohmann::json(1.0), nlohmann::json("1"), nlohmann::json(true)}) {
    ExpectBadResult(with([&](nlohmann::json& j) { j["v"] = v; }), "v");
  }
  // Each top-level field missing; an extra one.
  for (const char* field :
       {"v", "pgid", "osd", "epoch", "kind", "stamp_ms", "last_scrub_ms", "last_deep_scrub_ms",
        "objects", "errors", "repaired", "inconsistents", "truncated"}) {
    ExpectBadResult(with([&](nlohmann::json& j) { j.erase(field); }), field);
  }
  ExpectBadResult(with([](nlohmann::json& j) { j["state"] = "active+clean"; }), "unknown field");
  // pgid: a non-empty string.
  for (const nlohmann::json& v : {nlohmann::json(""), nlohmann::json(13), nlohmann::json(nullptr),
                                  nlohmann::json::array({"1.3"})}) {
    ExpectBadResult(with([&](nlohmann::json& j) { j["pgid"] = v; }), "pgid");
  }
  // The kind: a known name.
  for (const nlohmann::json& v :
       {nlohmann::json("deep"), nlohmann::json(""), nlohmann::json(1), nlohmann::json(nullptr)}) {
    ExpectBadResult(with([&](nlohmann::json& j) { j["kind"] = v; }), "kind");
  }
  // Every integer: negative, fractional, a string, a bool, null, above its range.
  const nlohmann::json bad_ints[] = {nlohmann::json(-1),
                                     nlohmann::json(1.5),
                                     nlohmann::json(2.0),
                                     nlohmann::json("1"),
                                     nlohmann::json(true),
                                     nlohmann::json(nullptr),
                                     nlohmann::json(std::uint64_t{9223372036854775808u})};
  for (const char* field : {"osd", "epoch", "stamp_ms", "last_scrub_ms", "last_deep_scrub_ms",
                            "objects", "errors", "repaired"}) {
    for (const nlohmann::json& v : bad_ints) {
      ExpectBadResult(with([&](nlohmann::json& j) { j[field] = v; }), field);
    }
  }
  ExpectBadResult(with([](nlohmann::json& j) { j["osd"] = std::int64_t{INT32_MAX} + 1; }), "osd");
  // truncated: a bool.
  for (const nlohmann::json& v :
       {nlohmann::json(0), nlohmann::json("false"), nlohmann::json(nullptr)}) {
    ExpectBadResult(with([&](nlohmann::json& j) { j["truncated"] = v; }), "truncated");
  }
  // inconsistents: an array of objects, at most the cap.
  ExpectBadResult(with([](nlohmann::json& j) { j["inconsistents"] = nlohmann::json::object(); }),
                  "inconsistents");
  ExpectBadResult(with([](nlohmann::json& j) { j["inconsistents"][1] = 5; }),
                  "inconsistents[1] not an object");
  ExpectBadResult(with([](nlohmann::json& j) {
                    const nlohmann::json one = j["inconsistents"][0];
                    j["inconsistents"] = nlohmann::json::array();
                    for (std::size_t i = 0; i <= kMaxInconsistentsRecorded; ++i) {
                      j["inconsistents"].push_back(one);
                    }
                  }),
                  "inconsistents: more than 1000");
  // A key twice in one object, at the top and deep inside.
  std::string twice = Good().dump();
  twice.insert(1, R"("errors":0,)");
  ExpectBadResult(twice, "not a JSON object");
  twice = Good().dump();
  const std::string shard0 = R"({"errors":[],"osd":2,)";
  ASSERT_NE(twice.find(shard0), std::string::npos);
  twice.replace(twice.find(shard0), shard0.size(), R"({"errors":[],"osd":2,"osd":7,)");
  ExpectBadResult(twice, "not a JSON object");
}

TEST(ScrubRecord, BadInconsistentObjectsAreEbadmsg) {
  const auto with = [](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = Good();
    damage(j["inconsistents"][1]);
    return j.dump();
  };
  const std::string at = "inconsistents[1] ";
  for (const char* field : {"object", "errors", "union_shard_errors", "shards"}) {
    ExpectBadResult(with([&](nlohmann::json& o) { o.erase(field); }), at + field);
  }
  ExpectBadResult(with([](nlohmann::json& o) { o["selected_object_info"] = 1; }),
                  at + "unknown field");
  // The object's id.
  ExpectBadResult(with([](nlohmann::json& o) { o["object"] = "obj"; }), at + "object");
  ExpectBadResult(with([](nlohmann::json& o) { o["object"].erase("name"); }), at + "object name");
  ExpectBadResult(with([](nlohmann::json& o) { o["object"].erase("version"); }),
                  at + "object version");
  ExpectBadResult(with([](nlohmann::json& o) { o["object"]["snap"] = "head"; }),
                  at + "object unknown field");
  for (const nlohmann::json& v : {nlohmann::json(""), nlohmann::json(5), nlohmann::json(nullptr)}) {
    ExpectBadResult(with([&](nlohmann::json& o) { o["object"]["name"] = v; }), at + "object name");
  }
  for (const nlohmann::json& v :
       {nlohmann::json(-1), nlohmann::json(0.5), nlohmann::json("9"), nlohmann::json(false)}) {
    ExpectBadResult(with([&](nlohmann::json& o) { o["object"]["version"] = v; }),
                    at + "object version");
  }
  // Error name lists: arrays of non-empty strings.
  for (const char* list : {"errors", "union_shard_errors"}) {
    for (const nlohmann::json& v :
         {nlohmann::json("read_error"), nlohmann::json::array({1}),
          nlohmann::json::array({"read_error", nullptr}), nlohmann::json::array({""}),
          nlohmann::json::array({nlohmann::json::array({"x"})}), nlohmann::json::object()}) {
      ExpectBadResult(with([&](nlohmann::json& o) { o[list] = v; }), at + list);
    }
  }
  ExpectBadResult(with([](nlohmann::json& o) { o["shards"] = nlohmann::json::object(); }),
                  at + "shards");
  ExpectBadResult(with([](nlohmann::json& o) { o["shards"][2] = "shard"; }),
                  at + "shards[2] not an object");
}

TEST(ScrubRecord, BadShardsAreEbadmsg) {
  const auto with = [](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = Good();
    damage(j["inconsistents"][0]["shards"][1]);
    return j.dump();
  };
  const std::string at = "inconsistents[0] shards[1] ";
  for (const char* field : {"osd", "primary", "shard", "errors", "size", "version"}) {
    ExpectBadResult(with([&](nlohmann::json& s) { s.erase(field); }), at + field);
  }
  ExpectBadResult(with([](nlohmann::json& s) { s["object_info"] = nlohmann::json::object(); }),
                  at + "unknown field");
  for (const char* field : {"osd", "shard", "size", "version"}) {
    for (const nlohmann::json& v :
         {nlohmann::json(-1), nlohmann::json(1.5), nlohmann::json("1"), nlohmann::json(true),
          nlohmann::json(nullptr), nlohmann::json(std::uint64_t{1} << 63)}) {
      ExpectBadResult(with([&](nlohmann::json& s) { s[field] = v; }), at + field);
    }
  }
  for (const char* field : {"osd", "shard"}) {
    ExpectBadResult(with([&](nlohmann::json& s) { s[field] = std::int64_t{INT32_MAX} + 1; }),
                    at + field);
  }
  for (const nlohmann::json& v :
       {nlohmann::json(0), nlohmann::json("true"), nlohmann::json(nullptr)}) {
    ExpectBadResult(with([&](nlohmann::json& s) { s["primary"] = v; }), at + "primary");
  }
  for (const nlohmann::json& v :
       {nlohmann::json("read_error"), nlohmann::json::array({7}), nlohmann::json::array({""}),
        nlohmann::json::array({"read_error", false})}) {
    ExpectBadResult(with([&](nlohmann::json& s) { s["errors"] = v; }), at + "errors");
  }
}

TEST(ScrubRecord, ListInconsistentObjJsonShape) {
  const nlohmann::json want = nlohmann::json::parse(R"({
    "epoch": 12,
    "inconsistents": [
      {"object": {"name": "obj1", "nspace": "", "locator": "", "snap": "head", "version": 123},
       "errors": ["ec_hash_error"],
       "union_shard_errors": ["read_error"],
       "shards": [{"osd": 2, "primary": true, "shard": 0, "errors": [], "size": 4096},
                  {"osd": 3, "primary": false, "shard": 1, "errors": ["read_error"], "size": 4096},
                  {"osd": 5, "primary": false, "shard": 2, "errors": [], "size": 4096}]},
      {"object": {"name": "dir/obj two", "nspace": "", "locator": "", "snap": "head",
                  "version": 9},
       "errors": ["version_mismatch", "size_mismatch"],
       "union_shard_errors": ["missing", "size_mismatch_info"],
       "shards": [{"osd": 2, "primary": true, "shard": 0, "errors": [], "size": 8192},
                  {"osd": 3, "primary": false, "shard": 1, "errors": ["size_mismatch_info"],
                   "size": 100},
                  {"osd": 5, "primary": false, "shard": 2, "errors": ["missing"], "size": 0}]},
      {"object": {"name": "c", "nspace": "", "locator": "", "snap": "head", "version": 0},
       "errors": ["stat_error"],
       "union_shard_errors": [],
       "shards": []}
    ]})");
  EXPECT_EQ(ListInconsistentObjJson(SampleRecord()), want)
      << ListInconsistentObjJson(SampleRecord()).dump(2);

  ScrubResult clean;
  clean.epoch = 7;
  EXPECT_EQ(ListInconsistentObjJson(clean),
            nlohmann::json::parse(R"({"epoch":7,"inconsistents":[]})"));
}

// Random damage to a valid value: a clean EBADMSG or a decoded result, never a crash.
TEST(ScrubRecord, DamagedValuesNeverCrash) {
  const std::string good = EncodeScrubResult(SampleRecord());
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  int rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string v = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % v.size();
      switch (rng() % 3) {
        case 0:
          v[at] = static_cast<char>(rng() % 128);
          break;
        case 1:
          v.erase(at, 1 + rng() % 8);
          break;
        default:
          v.insert(at, 1, "{}[],:\"-09e."[rng() % 12]);
      }
      if (v.empty()) v = "x";
    }
    auto r = DecodeScrubResult(kResultKey, v);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), EBADMSG) << v;
      EXPECT_NE(Message(r.status()).find(kResultKey), std::string::npos);
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace ec::cluster
