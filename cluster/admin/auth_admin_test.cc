// ec-admin auth ... in process against a real etcd (issue 32 item 1): Ceph's output shapes and
// messages, the exit codes (ENOENT for a missing entity, EINVAL for bad caps or names), ecstore's
// auth init, and what etcd holds (sealed records: no key or caps in clear).
#include <unistd.h>

#include <filesystem>

#include "cluster/admin/admin_test_fixture.h"
#include "cluster/auth/auth_db.h"
#include "msg/auth/keyring.h"

namespace ec::cluster::admin::test_support {
namespace {

class AuthAdminTest : public AdminFixture {
 protected:
  void SetUp() override {
    AdminFixture::SetUp();
    keyring_ = (std::filesystem::temp_directory_path() /
                ("ec_auth_admin_" + std::to_string(::getpid()) +
                 prefix_.substr(1, prefix_.size() - 2) + ".keyring"))
                   .string();
    std::filesystem::remove(keyring_);
    ctx_.keyring = keyring_;
  }
  void TearDown() override { std::filesystem::remove(keyring_); }

  CommandResult Words(std::vector<std::string> words, Format format = Format::kPlain) {
    AdminContext ctx = ctx_;
    ctx.format = format;
    return RunCommand(words, ctx);
  }
  // The key in a one-section keyring as get-or-create prints it.
  static std::string KeyOf(const std::string& section) {
    const std::string tag = "\tkey = ";
    const auto at = section.find(tag);
    if (at == std::string::npos) return "";
    return section.substr(at + tag.size(), 40);
  }

  std::string keyring_;
};

TEST_F(AuthAdminTest, InitMakesTheClustersKeysOnce) {
  // Without the mon. key the database cannot be read.
  const std::string none = Fails("auth ls", "ENOENT");
  EXPECT_TRUE(Contains(none, "auth commands need the cluster's mon. key")) << none;
  EXPECT_TRUE(Contains(none, "cannot read keyring " + keyring_)) << none;
  const CommandResult init = Ok("auth init");
  EXPECT_EQ(init.err, "created " + keyring_ + " with the cluster's mon. key and client.admin's\n");
  auto ring = msg::auth::Keyring::Load(keyring_);
  ASSERT_TRUE(ring.ok()) << ring.status().message();
  ASSERT_NE(ring->Find("mon."), nullptr);
  ASSERT_NE(ring->Find("client.admin"), nullptr);
  EXPECT_EQ(std::filesystem::status(keyring_).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_TRUE(Contains(Fails("auth init", "EEXIST"), "exists already"));
  // Another keyring (lost, or another admin's) on a cluster that has its database: refused too.
  std::filesystem::remove(keyring_);
  EXPECT_TRUE(Contains(Fails("auth init", "EEXIST"), "has entries already"));
}

TEST_F(AuthAdminTest, CommandsInCephsShapes) {
  Ok("auth init");
  const auto ring = *msg::auth::Keyring::Load(keyring_);
  const std::string admin_key = ring.Find("client.admin")->key.ToBase64();

  const std::vector<std::string> create = {"auth",    "get-or-create", "client.app",     "mon",
                                           "allow r", "osd",           "allow rw pool=a"};
  const CommandResult made = Words(create);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string key = KeyOf(made.out);
  EXPECT_EQ(made.out, "[client.app]\n\tkey = " + key + "\n");
  EXPECT_EQ(key.substr(0, 2), "AQ");
  EXPECT_TRUE(msg::auth::CryptoKey::FromBase64(key).ok());
  // Again, with the same caps or none: the same key.
  EXPECT_EQ(Words(create).out, made.out);
  EXPECT_EQ(Ok("auth get-or-create client.app").out, made.out);
  EXPECT_EQ(Ok("auth get-or-create-key client.app").out, key);
  // Other caps: Ceph's refusal, nothing changed.
  const CommandResult other =
      Words({"auth", "get-or-create", "client.app", "osd", "allow r pool=a"});
  EXPECT_EQ(other.exit_code, EINVAL);
  EXPECT_EQ(other.err, "Error EINVAL: key for client.app exists but cap osd does not match\n");

  const CommandResult get = Ok("auth get client.app");
  EXPECT_EQ(get.out, "[client.app]\n\tkey = " + key +
                         "\n\tcaps mon = \"allow r\"\n\tcaps osd = \"allow rw pool=a\"\n");
  EXPECT_EQ(get.err, "exported keyring for client.app\n");
  EXPECT_EQ(Json("auth get client.app"),
            nlohmann::json::parse(R"([{"entity":"client.app","key":")" + key +
                                  R"(","caps":{"mon":"allow r","osd":"allow rw pool=a"}}])"));
  EXPECT_EQ(Ok("auth get-key client.app").out, key);  // no newline, as Ceph's
  EXPECT_EQ(Json("auth get-key client.app"), nlohmann::json::parse(R"({"key":")" + key + "\"}"));
  // The mon. key is the keyring's (Ceph's `auth get mon.`).
  EXPECT_EQ(Ok("auth get mon.").out, "[mon.]\n\tkey = " + ring.Find("mon.")->key.ToBase64() +
                                         "\n\tcaps mon = \"allow *\"\n");

  const CommandResult ls = Ok("auth ls");
  EXPECT_EQ(ls.out, "client.admin\n\tkey: " + admin_key +
                        "\n\tcaps: [mon] allow *\n\tcaps: [osd] allow *\nclient.app\n\tkey: " +
                        key + "\n\tcaps: [mon] allow r\n\tcaps: [osd] allow rw pool=a\n");
  EXPECT_EQ(ls.err, "installed auth entries:\n");
  const nlohmann::json dump = Json("auth ls");
  ASSERT_EQ(dump["auth_dump"].size(), 2u);
  EXPECT_EQ(dump["auth_dump"][1]["entity"], "client.app");
  EXPECT_EQ(dump["auth_dump"][1]["caps"]["osd"], "allow rw pool=a");

  // What etcd holds: the entity's name, nothing of its key or caps.
  auto raw = client_->Get(prefix_ + "auth/client.app");
  ASSERT_TRUE(raw.ok());
  EXPECT_FALSE(Contains(raw->value, key));
  EXPECT_FALSE(Contains(raw->value, "allow"));

  EXPECT_EQ(Ok("auth rm client.app").err, "updated\n");
  EXPECT_EQ(Ok("auth rm client.app").err, "entity client.app does not exist\n");  // Ceph: exit 0
  EXPECT_EQ(Fails("auth get client.app", "ENOENT"),
            "Error ENOENT: failed to find client.app in keyring\n");
  EXPECT_EQ(Fails("auth get-key client.app", "ENOENT"), "Error ENOENT: don't have client.app\n");
  // A new get-or-create makes a new key.
  EXPECT_NE(KeyOf(Words(create).out), key);
}

TEST_F(AuthAdminTest, BadInputIsRefusedAndStoresNothing) {
  Ok("auth init");
  const auto refused = [&](std::vector<std::string> words, const std::string& err) {
    const CommandResult r = Words(words);
    EXPECT_EQ(r.exit_code, EINVAL) << err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "Error EINVAL: " + err + "\n");
  };
  refused({"auth", "get-or-create", "client.x", "osd", "allow rw pol=a"},
          "osd capability parse failed, stopped at 'pol=a' of 'allow rw pol=a'");
  refused({"auth", "get-or-create", "client.x", "mon", "allow all"},
          "mon capability parse failed, stopped at 'all' of 'allow all'");
  refused({"auth", "get-or-create", "client.x", "mds", "allow"}, "unknown cap type 'mds'");
  refused({"auth", "get-or-create", "client.x", "osd"},
          "bad capabilities request; odd number of arguments");
  refused({"auth", "get-or-create", "bob"}, "bad entity name 'bob'");
  refused({"auth", "get", "osd.x"}, "bad entity name 'osd.x'");
  EXPECT_TRUE(Contains(Fails("auth get-or-create mon.", "EINVAL"), "cluster's own key"));
  EXPECT_TRUE(Contains(Fails("auth rm mon.", "EINVAL"), "cluster's own key"));
  Fails("auth get", "EINVAL");
  Unknown("auth frob", "auth frob");
  EXPECT_EQ(Json("auth ls")["auth_dump"].size(), 1u);  // client.admin alone
  // A keyring without the mon. key: EACCES, saying so.
  msg::auth::Keyring only_admin = *msg::auth::Keyring::Load(keyring_);
  only_admin.entries.erase("mon.");
  ASSERT_TRUE(only_admin.Save(keyring_).ok());
  EXPECT_TRUE(Contains(Fails("auth ls", "EACCES"), "no [mon.] in " + keyring_));
}

// A record changed in etcd (by someone without the mon. key) is left out of `auth ls`, named on
// stderr; `auth get` of it is EBADMSG naming the key.
TEST_F(AuthAdminTest, ARecordChangedInEtcdIsNamed) {
  Ok("auth init");
  ASSERT_EQ(Words({"auth", "get-or-create", "client.app", "osd", "allow *"}).exit_code, 0);
  auto raw = client_->Get(prefix_ + "auth/client.admin");
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(client_->Put(etcd::PutRequest{prefix_ + "auth/client.app", raw->value, 0}).ok());
  const CommandResult ls = Ok("auth ls");
  EXPECT_TRUE(Contains(
      ls.err, "ignored auth record " + prefix_ + "auth/client.app: names entity 'client.admin'"))
      << ls.err;
  EXPECT_FALSE(Contains(ls.out, "client.app"));
  EXPECT_TRUE(Contains(Fails("auth get client.app", "EBADMSG"), "auth/client.app"));
}

}  // namespace
}  // namespace ec::cluster::admin::test_support
