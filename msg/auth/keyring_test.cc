// Keys and keyring files in Ceph's format: a known key's bytes, round trips, and every refusal of
// the parser (each names the file and line).
#include "msg/auth/keyring.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "msg/auth/crypto.h"

namespace ec::msg::auth {
namespace {

// type 1, created 1700000000.000000123, length 16, secret 00 01 .. 0f: Ceph's CryptoKey encoding.
constexpr std::string_view kKnownKey = "AQAA8VNlewAAABAAAAECAwQFBgcICQoLDA0ODw==";

TEST(CryptoKey, KnownAnswerInCephsEncoding) {
  CryptoKey k;
  for (std::size_t i = 0; i < kSecretLen; ++i) k.secret[i] = static_cast<std::byte>(i);
  k.created_sec = 1700000000;
  k.created_nsec = 123;
  EXPECT_EQ(k.ToBase64(), kKnownKey);
  auto back = CryptoKey::FromBase64(kKnownKey);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->SameSecret(k));
  EXPECT_EQ(back->created_sec, 1700000000u);
  EXPECT_EQ(back->created_nsec, 123u);
}

TEST(CryptoKey, GeneratedKeysAreRandomAndLookLikeCephs) {
  auto a = CryptoKey::Generate();
  auto b = CryptoKey::Generate();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->SameSecret(*b));
  const std::string text = a->ToBase64();
  EXPECT_EQ(text.size(), 40u);
  EXPECT_EQ(text.substr(0, 2), "AQ");
  auto back = CryptoKey::FromBase64(text);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->SameSecret(*a));
}

TEST(CryptoKey, RefusesWhatIsNotACephxKey) {
  // Not base64; 27 bytes; type 2; length 32.
  for (std::string_view bad :
       {"not a key", "AQAA8VNlewAAABAAAAECAwQFBgcICQoLDA0O",
        "AgAA8VNlewAAABAAAAECAwQFBgcICQoLDA0ODw==", "AQAA8VNlewAAACAAAAECAwQFBgcICQoLDA0ODw=="}) {
    auto k = CryptoKey::FromBase64(bad);
    EXPECT_EQ(k.status().code(), EINVAL) << bad;
    EXPECT_NE(k.status().message().find("bad key"), std::string::npos) << k.status().message();
  }
}

TEST(EntityName, ParsesCephsNamesStrictly) {
  for (std::string_view good : {"client.admin", "client.app-1_x.y", "osd.0", "osd.12", "mon."}) {
    auto n = EntityName::Parse(good);
    ASSERT_TRUE(n.ok()) << good;
    EXPECT_EQ(n->ToString(), good);
  }
  EXPECT_TRUE(IsOsdEntity("osd.3"));
  EXPECT_FALSE(IsOsdEntity("client.osd.3"));
  EXPECT_FALSE(IsOsdEntity("osd.3-recovery"));
  for (std::string_view bad :
       {"admin", "client.", "client", "osd.", "osd.01", "osd.x", "osd.-1", "osd.99999999999",
        "mon.a", "mds.a", "client.a b", "client.a/b", "", "."}) {
    auto n = EntityName::Parse(bad);
    EXPECT_EQ(n.status().code(), EINVAL) << bad;
    EXPECT_NE(n.status().message().find("bad entity name"), std::string::npos);
  }
  EXPECT_EQ(EntityName::Parse("client." + std::string(65, 'a')).status().code(), EINVAL);
}

TEST(Keyring, ParsesCephsLayoutAndRendersIt) {
  const std::string text = std::string("# made by ec-admin\n[client.admin]\n\tkey = ") +
                           std::string(kKnownKey) +
                           "\n\tcaps mon = \"allow *\"\n\tcaps osd = \"allow *\"\n\n"
                           "[osd.3]\n  key=" +
                           std::string(kKnownKey) + "\n  caps osd = allow rw pool=a\n";
  auto ring = Keyring::Parse(text, "k");
  ASSERT_TRUE(ring.ok()) << ring.status().message();
  ASSERT_EQ(ring->entries.size(), 2u);
  const KeyringEntry* admin = ring->Find("client.admin");
  ASSERT_NE(admin, nullptr);
  EXPECT_EQ(admin->caps.at("mon"), "allow *");
  EXPECT_EQ(ring->Find("osd.3")->caps.at("osd"), "allow rw pool=a");
  EXPECT_EQ(ring->Find("client.nobody"), nullptr);
  EXPECT_EQ(ring->Render(), std::string("[client.admin]\n\tkey = ") + std::string(kKnownKey) +
                                "\n\tcaps mon = \"allow *\"\n\tcaps osd = \"allow *\"\n"
                                "[osd.3]\n\tkey = " +
                                std::string(kKnownKey) + "\n\tcaps osd = \"allow rw pool=a\"\n");
  auto again = Keyring::Parse(ring->Render(), "k2");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->Render(), ring->Render());
  EXPECT_EQ(RenderKeyringEntry("osd.3", *ring->Find("osd.3"), false),
            "[osd.3]\n\tkey = " + std::string(kKnownKey) + "\n");
}

TEST(Keyring, EveryRefusalNamesTheLine) {
  const std::string key = "key = " + std::string(kKnownKey) + "\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"key = " + std::string(kKnownKey) + "\n", "k:1: a setting before any [entity] section"},
      {"[client.a\n", "k:1: a section line must end with ']'"},
      {"[bob]\n" + key, "k:1: bad entity name 'bob'"},
      {"[client.a]\n" + key + "[client.a]\n" + key, "k:3: [client.a] appears twice"},
      {"[client.a]\n[client.b]\n" + key, "k:1: no key for [client.a]"},
      {"[client.a]\n", "k:1: no key for [client.a]"},
      {"[client.a]\n" + key + key, "k:3: a second key for [client.a]"},
      {"[client.a]\nkey = AQ==\n", "k:2: bad key"},
      {"[client.a]\n" + key + "auid = 0\n", "k:3: unknown setting 'auid'"},
      {"[client.a]\n" + key + "caps = x\n", "k:3: unknown setting 'caps'"},
      {"[client.a]\n" + key + "caps osd = a\ncaps osd = b\n", "k:4: caps osd given twice"},
      {"[client.a]\n" + key + "just words\n", "k:3: expected NAME = VALUE"},
  };
  for (const auto& [text, want] : cases) {
    auto r = Keyring::Parse(text, "k");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), EINVAL) << text;
    EXPECT_EQ(r.status().message().substr(0, want.size()), want) << r.status().message();
  }
  EXPECT_EQ(Keyring::Parse(std::string(kMaxKeyringBytes + 1, '#'), "k").status().code(), EFBIG);
}

TEST(Keyring, SaveIsPrivateAndLoadsBack) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ec_keyring_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "client.admin.keyring").string();
  Keyring ring;
  auto k = CryptoKey::Generate();
  ASSERT_TRUE(k.ok());
  ring.entries["client.admin"] = KeyringEntry{*k, {{"osd", "allow *"}}};
  ASSERT_TRUE(ring.Save(path).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto back = Keyring::Load(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->Render(), ring.Render());
  auto missing = Keyring::Load((dir / "nope").string());
  EXPECT_EQ(missing.status().code(), ENOENT);
  EXPECT_NE(missing.status().message().find("cannot read keyring"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ec::msg::auth
