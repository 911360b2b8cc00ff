// The auth database: sealed records (every change refused: tampering, a record filed under
// another entity, another mon. key, bad JSON), then against a real etcd: create-if-absent, load,
// remove, and the watcher an OSD authenticates with, following changes and leaving out what does
// not open.
#include "cluster/auth/auth_db.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/auth/auth_db_watcher.h"
#include "cluster/etcd/etcd_test_server.h"

namespace ec::cluster {
namespace {

using std::chrono::milliseconds;
namespace auth = msg::auth;

auth::CryptoKey NewKey() {
  auto k = auth::CryptoKey::Generate();
  EXPECT_TRUE(k.ok());
  return *k;
}

AuthDbKey DbKey(const auth::CryptoKey& mon) {
  auto k = AuthDbKey::From(mon);
  EXPECT_TRUE(k.ok());
  return *k;
}

AuthEntity App() {
  return AuthEntity{"client.app", NewKey(), {{"mon", "allow r"}, {"osd", "allow rw pool=a"}}};
}

TEST(AuthRecord, SealedRecordsOpenOnlyUnchangedWithTheMonKey) {
  const auth::CryptoKey mon = NewKey();
  const AuthDbKey key = DbKey(mon);
  const AuthEntity app = App();
  auto value = SealAuthEntity(key, app);
  ASSERT_TRUE(value.ok());
  // Nothing of the key or caps shows.
  EXPECT_EQ(value->find(app.key.ToBase64()), std::string::npos);
  EXPECT_EQ(value->find("allow"), std::string::npos);
  auto back = OpenAuthEntity(key, "/p/", "/p/auth/client.app", *value);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->key.SameSecret(app.key));
  EXPECT_EQ(back->caps, app.caps);
  // The same record twice seals differently (a fresh nonce).
  EXPECT_NE(*SealAuthEntity(key, app), *value);

  const auto refused = [&](std::string_view etcd_key, const std::string& v, const AuthDbKey& k,
                           std::string_view why) {
    auto r = OpenAuthEntity(k, "/p/", etcd_key, v);
    EXPECT_EQ(r.status().code(), EBADMSG) << why;
    EXPECT_NE(r.status().message().find(etcd_key), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
  };
  refused("/p/auth/client.app", *value, DbKey(NewKey()), "does not open");
  // Filed under another entity: the name inside differs, and with the name changed too the
  // associated data does.
  refused("/p/auth/client.evil", *value, key, "names entity 'client.app'");
  nlohmann::json j = nlohmann::json::parse(*value);
  j["entity"] = "client.evil";
  refused("/p/auth/client.evil", j.dump(), key, "does not open");
  // A byte of the sealed text changed.
  j = nlohmann::json::parse(*value);
  auto sealed = *auth::Base64Decode(j["sealed"].get<std::string>(), 4096);
  sealed[3] ^= std::byte{1};
  j["sealed"] = auth::Base64Encode(sealed);
  refused("/p/auth/client.app", j.dump(), key, "does not open");
  refused("/p/auth/client.app", "not json", key, "not {");
  refused("/p/auth/client.app", R"({"v":2,"entity":"client.app","nonce":"","sealed":""})", key,
          "not {");
  refused("/p/auth/bob", *value, key, "bad entity name");
  refused("/p/auth/client.app", std::string(kMaxAuthRecordBytes + 1, ' '), key, "more than");
}

TEST(AuthDb, CreateLoadRemoveInEtcd) {
  etcd::testing::EtcdServer server;
  ASSERT_TRUE(server.Start().ok());
  etcd::Client client(server.client_options());
  const AuthDbKey key = DbKey(NewKey());
  const AuthEntity app = App();
  bool created = false;
  auto first = CreateAuthEntityIfAbsent(client, "/p/", key, app, &created);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(created);
  // A second create finds the first record and keeps it.
  AuthEntity again = app;
  again.key = NewKey();
  auto second = CreateAuthEntityIfAbsent(client, "/p/", key, again, &created);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(created);
  EXPECT_TRUE(second->key.SameSecret(app.key));
  // A record that does not open is listed apart, not an error of the load.
  ASSERT_TRUE(client.Put(etcd::PutRequest{"/p/auth/client.bad", "{}", 0}).ok());
  auto db = LoadAuthDb(client, "/p/", key);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->entities.size(), 1u);
  ASSERT_EQ(db->bad.size(), 1u);
  EXPECT_EQ(db->bad[0].code(), EBADMSG);
  auto got = GetAuthEntity(client, "/p/", key, "client.app");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->caps, app.caps);
  EXPECT_FALSE(GetAuthEntity(client, "/p/", key, "client.none")->has_value());
  EXPECT_EQ(GetAuthEntity(client, "/p/", key, "client.bad").status().code(), EBADMSG);
  EXPECT_TRUE(*RemoveAuthEntity(client, "/p/", "client.app"));
  EXPECT_FALSE(*RemoveAuthEntity(client, "/p/", "client.app"));
}

TEST(AuthDbWatcher, FollowsTheDatabaseAndLeavesOutWhatDoesNotOpen) {
  etcd::testing::EtcdServer server;
  ASSERT_TRUE(server.Start().ok());
  etcd::Client client(server.client_options());
  const auth::CryptoKey mon = NewKey();
  const AuthDbKey key = DbKey(mon);
  bool created = false;
  ASSERT_TRUE(CreateAuthEntityIfAbsent(client, "/w/", key, App(), &created).ok());
  std::mutex mu;
  std::vector<Status> errors;
  auto watcher = AuthDbWatcher::Start(
      server.client_options(), "/w/", mon,
      [&](const Status& st) {
        std::lock_guard lock(mu);
        errors.push_back(st);
      },
      milliseconds(100));
  ASSERT_TRUE(watcher.ok()) << watcher.status().message();
  auto app = (*watcher)->Find("client.app");
  ASSERT_TRUE(app.has_value());
  ASSERT_NE(app->osd_caps, nullptr);
  EXPECT_TRUE(app->osd_caps->Allows("a", auth::kCapWrite));
  const auto wait_for = [&](auto done) {
    const auto until = std::chrono::steady_clock::now() + milliseconds(3000);
    while (!done()) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return true;
  };
  // A new entity shows within a moment; a removed one goes.
  const AuthEntity osd{"osd.4", NewKey(), {{"osd", "allow *"}}};
  ASSERT_TRUE(CreateAuthEntityIfAbsent(client, "/w/", key, osd, &created).ok());
  EXPECT_TRUE(wait_for([&] { return (*watcher)->Find("osd.4").has_value(); }));
  ASSERT_TRUE(RemoveAuthEntity(client, "/w/", "client.app").ok());
  EXPECT_TRUE(wait_for([&] { return !(*watcher)->Find("client.app").has_value(); }));
  // client.admin's record copied under client.evil by a writer of etcd: left out, reported.
  auto osd_value = client.Get("/w/auth/osd.4");
  ASSERT_TRUE(osd_value.ok());
  ASSERT_TRUE(client.Put(etcd::PutRequest{"/w/auth/client.evil", osd_value->value, 0}).ok());
  EXPECT_TRUE(wait_for([&] {
    std::lock_guard lock(mu);
    for (const Status& e : errors) {
      if (e.message().find("client.evil") != std::string::npos) return true;
    }
    return false;
  }));
  EXPECT_FALSE((*watcher)->Find("client.evil").has_value());
  EXPECT_TRUE((*watcher)->Find("osd.4").has_value());
  EXPECT_EQ((*watcher)->size(), 1u);
  (*watcher)->Stop();
  // Another cluster's mon. key opens nothing: every record is left out.
  auto stranger = AuthDbWatcher::Start(server.client_options(), "/w/", NewKey(), nullptr);
  ASSERT_TRUE(stranger.ok());
  EXPECT_EQ((*stranger)->size(), 0u);
}

}  // namespace
}  // namespace ec::cluster
