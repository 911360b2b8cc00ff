// etcd's users (etcd_auth.h) against a real etcd with its auth enabled: a read-write user and a
// read-only one as the launcher makes them (osd and client), what etcd refuses each of them,
// a wrong password, a client without a user, tokens that expire (--auth-token-ttl=1), that etcd
// dropped (a password change) or that a restarted etcd forgot, renewed without the caller seeing
// it, by calls from several threads and by a watch; and the password file's checks.
#include "cluster/etcd/etcd_auth.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/etcd/etcd_watch.h"

namespace ec::etcd {
namespace {

using testing::EtcdServer;

constexpr const char* kPrefix = "/ecstore/";

// A temporary folder for password files, removed with it.
class TempFolder {
 public:
  TempFolder() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ec-etcd-auth-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempFolder() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  // Writes `text` to NAME with `mode`; returns its path.
  std::string Write(const std::string& name, const std::string& text, mode_t mode = 0600) const {
    const std::string file = path_ + "/" + name;
    std::ofstream(file, std::ios::trunc) << text;
    ::chmod(file.c_str(), mode);
    return file;
  }

 private:
  std::string path_;
};

bool Says(const Status& s, std::string_view what) {
  return s.message().find(what) != std::string::npos;
}

TEST(EtcdPasswordFile, ReadsOneLineOnlyFromAFileOnlyItsOwnerReads) {
  TempFolder dir;
  Result<std::string> pw = ReadPasswordFile(dir.Write("good", "s3cret\n"));
  ASSERT_TRUE(pw.ok()) << pw.status().ToString();
  EXPECT_EQ(*pw, "s3cret");
  pw = ReadPasswordFile(dir.Write("noeol", "s3cret"));
  ASSERT_TRUE(pw.ok()) << pw.status().ToString();
  EXPECT_EQ(*pw, "s3cret");

  const std::string open = dir.Write("open", "s3cret\n", 0644);
  Status s = ReadPasswordFile(open).status();
  EXPECT_EQ(s.code(), EACCES) << s.ToString();
  EXPECT_TRUE(Says(s, "etcd_password_file " + open + " is mode 0644")) << s.ToString();
  EXPECT_TRUE(Says(s, "chmod 600 " + open)) << s.ToString();
  EXPECT_EQ(ReadPasswordFile(dir.Write("group", "s3cret\n", 0640)).status().code(), EACCES);

  s = ReadPasswordFile("/nonexistent/etcd.pw").status();
  EXPECT_EQ(s.code(), ENOENT) << s.ToString();
  EXPECT_TRUE(Says(s, "cannot read etcd_password_file /nonexistent/etcd.pw")) << s.ToString();
  EXPECT_EQ(ReadPasswordFile(dir.Write("empty", "")).status().code(), EINVAL);
  EXPECT_EQ(ReadPasswordFile(dir.Write("blank", "\n")).status().code(), EINVAL);
  EXPECT_EQ(ReadPasswordFile(dir.Write("two", "a\nb\n")).status().code(), EINVAL);
  EXPECT_EQ(ReadPasswordFile(dir.Write("ctl", std::string("a\0b", 3))).status().code(), EINVAL);
  EXPECT_EQ(ReadPasswordFile(dir.Write("big", std::string(2000, 'x'))).status().code(), EINVAL);
  ::mkdir("/tmp/ec-etcd-auth-dir-test", 0700);
  EXPECT_EQ(ReadPasswordFile("/tmp/ec-etcd-auth-dir-test").status().code(), EINVAL);
  ::rmdir("/tmp/ec-etcd-auth-dir-test");
}

TEST(EtcdPasswordFile, ClientSettingsNeedTheUserAndTheFileTogether) {
  TempFolder dir;
  const std::string file = dir.Write("pw", "x\n");
  Status s = MakeClientOptions({"http://127.0.0.1:2379", {}, {}, "osd", ""}).status();
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_TRUE(Says(s, "etcd_user 'osd' needs etcd_password_file")) << s.ToString();
  s = MakeClientOptions({"http://127.0.0.1:2379", {}, {}, "", file}).status();
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_TRUE(Says(s, "etcd_password_file is set but etcd_user is not")) << s.ToString();
  Result<ClientOptions> o = MakeClientOptions({"http://127.0.0.1:2379", {}, {}, "osd", file});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ASSERT_NE(o->credentials, nullptr);
  EXPECT_EQ(o->credentials->user(), "osd");
  o = MakeClientOptions({"http://127.0.0.1:2379", {}, {}, "", ""});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->credentials, nullptr);
}

// A real etcd with users osd (readwrite on /ecstore/) and client (read on /ecstore/), tokens
// that expire after 1 s unused.
class EtcdAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.set_extra_args({"--auth-token-ttl=1"});
    Status s = server_.Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = server_.EnableAuth(
        "rootpw", {{"osd", "osdpw", kPrefix, true}, {"client", "clientpw", kPrefix, false}});
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  ClientOptions As(const std::string& user, const std::string& password) const {
    ClientOptions o = server_.client_options();
    o.credentials = std::make_shared<Credentials>(user, password);
    return o;
  }
  // Sets `user`'s password as root: etcd drops every token of that user.
  Status SetPassword(const std::string& user, const std::string& password) const {
    return Client(As("root", "rootpw"))
        .Call("/v3/auth/user/changepw", {{"name", user}, {"password", password}}, false)
        .status();
  }
  EtcdServer server_;
};

TEST_F(EtcdAuthTest, EachUserDoesWhatItsRoleAllowsAndNothingElse) {
  const Client osd(As("osd", "osdpw"));
  ASSERT_TRUE(osd.Put({"/ecstore/epoch", "1", 0}).ok());
  Result<KeyValue> kv = osd.Get("/ecstore/epoch");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(kv->value, "1");
  // Outside its prefix: refused.
  Status s = osd.Put({"/other/key", "x", 0}).status();
  EXPECT_EQ(s.code(), EACCES) << s.ToString();
  EXPECT_TRUE(Says(s, "etcdserver: permission denied")) << s.ToString();
  EXPECT_TRUE(Says(s, "etcd user 'osd'")) << s.ToString();

  // The client reads the map and writes nothing: no put, delete or txn, no user of its own.
  const ClientOptions client_options = As("client", "clientpw");
  const Client client(client_options);
  kv = client.Get("/ecstore/epoch");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(kv->value, "1");
  ASSERT_TRUE(client.GetPrefix(kPrefix).ok());
  s = client.Put({"/ecstore/epoch", "2", 0}).status();
  EXPECT_EQ(s.code(), EACCES) << s.ToString();
  EXPECT_TRUE(Says(s,
                   "etcdserver: permission denied (HTTP 403) (etcd user 'client': its roles do "
                   "not allow this)"))
      << s.ToString();
  EXPECT_EQ(client.DeletePrefix(kPrefix).status().code(), EACCES);
  TxnRequest txn;
  txn.success.push_back(TxnOp::Put("/ecstore/pool/1", "p"));
  EXPECT_EQ(client.Txn(txn).status().code(), EACCES);
  s = client.Call("/v3/auth/user/add", {{"name", "mallory"}, {"password", "x"}}, false).status();
  EXPECT_EQ(s.code(), EACCES) << s.ToString();
  EXPECT_TRUE(Says(s, "permission denied")) << s.ToString();
  s = client.Call("/v3/auth/disable", nlohmann::json::object(), false).status();
  EXPECT_EQ(s.code(), EACCES) << s.ToString();
  EXPECT_EQ(client.Get("/ecstore/epoch")->value, "1");
  EXPECT_EQ(client_options.credentials->authentications(), 1u);
}

TEST_F(EtcdAuthTest, AWrongPasswordOrNoUserIsAClearError) {
  const ClientOptions wrong = As("client", "not-the-password");
  Status s = Client(wrong).Get("/ecstore/epoch").status();
  EXPECT_EQ(s.code(), EACCES) << s.ToString();
  EXPECT_FALSE(s.is_retryable());
  EXPECT_TRUE(Says(s, "etcd user 'client' at " + server_.endpoint().ToString())) << s.ToString();
  EXPECT_TRUE(Says(s, "authentication failed")) << s.ToString();
  EXPECT_TRUE(Says(s, "check etcd_user and etcd_password_file")) << s.ToString();
  s = Client(As("nobody", "x")).Put({"/ecstore/k", "v", 0}).status();
  EXPECT_EQ(s.code(), EACCES) << s.ToString();

  // No user at all while etcd's auth is on.
  s = Client(server_.client_options()).Get("/ecstore/epoch").status();
  EXPECT_EQ(s.code(), EACCES) << s.ToString();
  EXPECT_TRUE(Says(s, "names no etcd user: set etcd_user and etcd_password_file")) << s.ToString();
}

TEST_F(EtcdAuthTest, AnExpiredOrForgottenTokenIsRenewedTransparently) {
  const ClientOptions options = As("osd", "osdpw");
  const Client osd(options);
  ASSERT_TRUE(osd.Put({"/ecstore/a", "1", 0}).ok());
  EXPECT_EQ(options.credentials->authentications(), 1u);
  // Unused for longer than --auth-token-ttl: etcd has dropped the token.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  Result<PutResponse> put = osd.Put({"/ecstore/a", "2", 0});  // a write, resent once
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_EQ(options.credentials->authentications(), 2u);
  EXPECT_EQ(osd.Get("/ecstore/a")->value, "2");
  // The put was applied once (the refused one applied nothing).
  EXPECT_EQ(osd.Get("/ecstore/a")->version, 2);

  // etcd drops a user's tokens when its password is set (to the same one here).
  ASSERT_TRUE(SetPassword("osd", "osdpw").ok());
  Result<KeyValue> kv = osd.Get("/ecstore/a");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(options.credentials->authentications(), 3u);

  // A restarted etcd has forgotten the tokens it issued (unless it replays their authentication
  // from its log, after a crash right after it): either way the next call succeeds.
  server_.Kill();
  Status s = server_.Restart();
  ASSERT_TRUE(s.ok()) << s.ToString();
  kv = osd.Get("/ecstore/a");
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  EXPECT_EQ(kv->value, "2");
  EXPECT_GE(options.credentials->authentications(), 3u);
}

TEST_F(EtcdAuthTest, ThreadsShareOneTokenAcrossItsExpiry) {
  const ClientOptions options = As("osd", "osdpw");
  const Client osd(options);
  ASSERT_TRUE(osd.Put({"/ecstore/shared", "v", 0}).ok());
  std::atomic<int> failures{0};
  std::mutex mu;
  Status first_failure;
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3; ++i) {
        // Each round waits past the token's TTL (etcd drops expired tokens once a second), so
        // the threads find it expired together.
        std::this_thread::sleep_for(std::chrono::milliseconds(2200 + 10 * t));
        Status s = i % 2 == 0 ? osd.Get("/ecstore/shared").status()
                              : osd.Put({"/ecstore/t" + std::to_string(t), "x", 0}).status();
        if (!s.ok() && failures.fetch_add(1) == 0) {
          std::lock_guard lock(mu);
          first_failure = s;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0) << first_failure.ToString();
  // Renewed a few times, not once per call.
  EXPECT_GE(options.credentials->authentications(), 2u);
  EXPECT_LE(options.credentials->authentications(), 1u + 3u * 6u);
}

TEST_F(EtcdAuthTest, WatchesAuthenticateAndResumeAfterTheirTokenIsGone) {
  const ClientOptions options = As("client", "clientpw");
  const Client writer(As("osd", "osdpw"));
  std::mutex mu;
  std::vector<std::string> values;
  std::vector<Status> errors;
  WatchOptions wo;
  wo.key = kPrefix;
  wo.range_end = PrefixEnd(kPrefix);
  Watch watch(
      options, wo,
      [&](const Event& e) {
        std::lock_guard lock(mu);
        values.push_back(e.kv.value);
      },
      [&](const Status& s) {
        std::lock_guard lock(mu);
        errors.push_back(s);
      });
  auto wait_values = [&](std::size_t n) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard lock(mu);
        if (values.size() >= n) return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };
  // Until the watch is created, writes are not seen: wait for the first.
  for (int i = 0; i < 100 && watch.next_revision() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(writer.Put({"/ecstore/w", "1", 0}).ok());
  wait_values(1);
  // The watch's token dropped (its user's password set again), then etcd restarted: the stream
  // breaks, the old token is refused, the watch authenticates again and delivers what was written
  // meanwhile, once.
  ASSERT_TRUE(SetPassword("client", "clientpw").ok());
  server_.Kill();
  ASSERT_TRUE(server_.Restart().ok());
  ASSERT_TRUE(writer.Put({"/ecstore/w", "2", 0}).ok());
  ASSERT_TRUE(writer.Put({"/ecstore/w", "3", 0}).ok());
  wait_values(3);
  watch.Stop();
  std::lock_guard lock(mu);
  EXPECT_EQ(values, (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_GE(options.credentials->authentications(), 2u);
  EXPECT_FALSE(watch.finished());
}

TEST_F(EtcdAuthTest, AWatchOutsideTheUsersKeysKeepsReportingEacces) {
  std::mutex mu;
  std::vector<Status> errors;
  WatchOptions wo;
  wo.key = "/other/";
  wo.range_end = PrefixEnd("/other/");
  Watch watch(
      As("client", "clientpw"), wo, [](const Event&) {},
      [&](const Status& s) {
        std::lock_guard lock(mu);
        errors.push_back(s);
      });
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard lock(mu);
      if (!errors.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  watch.Stop();
  std::lock_guard lock(mu);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front().code(), EACCES) << errors.front().ToString();
  EXPECT_TRUE(errors.front().is_retryable());
  EXPECT_TRUE(Says(errors.front(), "etcd user 'client'")) << errors.front().ToString();
  EXPECT_FALSE(watch.finished());
}

// A user configured while etcd's auth is still off (the launcher enables it after the users are
// made): no token is sent; once auth is on, the client authenticates.
TEST(EtcdAuthOff, AUserWorksBeforeAndAfterAuthIsEnabled) {
  EtcdServer server;
  ASSERT_TRUE(server.Start().ok());
  ClientOptions options = server.client_options();
  options.credentials = std::make_shared<Credentials>("osd", "osdpw");
  const Client osd(options);
  Status s = osd.Put({"/ecstore/before", "1", 0}).status();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(options.credentials->authentications(), 0u);
  s = server.EnableAuth("rootpw", {{"osd", "osdpw", kPrefix, true}});
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = osd.Put({"/ecstore/after", "2", 0}).status();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(options.credentials->authentications(), 1u);
  EXPECT_EQ(Client(server.client_options()).Get("/ecstore/after").status().code(), EACCES);
}

}  // namespace
}  // namespace ec::etcd
