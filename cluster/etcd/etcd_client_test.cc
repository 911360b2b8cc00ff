// The etcd client against a real etcd (cluster/etcd/etcd_test_server.h): KV, txn, leases,
// failover and timeouts.
#include "cluster/etcd/etcd_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "cluster/etcd/etcd_test_server.h"

namespace ec::etcd {
namespace {

using testing::EtcdServer;

class EtcdClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = server_.Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  Client client() const { return Client(server_.client_options()); }
  EtcdServer server_;
};

TEST(EtcdPrefixEnd, IncrementsLastByteAndDropsFF) {
  EXPECT_EQ(PrefixEnd("abc"), "abd");
  EXPECT_EQ(PrefixEnd(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixEnd(""), std::string(1, '\0'));
  EXPECT_EQ(PrefixEnd("\xff"), std::string(1, '\0'));
}

TEST(EtcdEndpoints, ParsesListsAndRefusesBadOnes) {
  auto eps = ParseEndpoints("http://127.0.0.1:2379, 10.0.0.2:2380");
  ASSERT_TRUE(eps.ok()) << eps.status().ToString();
  ASSERT_EQ(eps->size(), 2u);
  EXPECT_EQ((*eps)[0].host, "127.0.0.1");
  EXPECT_EQ((*eps)[0].port, 2379);
  EXPECT_EQ((*eps)[1].ToString(), "10.0.0.2:2380");
  EXPECT_FALSE((*eps)[0].tls);
  EXPECT_EQ(ParseEndpoints("").status().code(), EINVAL);
  EXPECT_EQ(ParseEndpoints("ftp://a:1").status().code(), EINVAL);
  EXPECT_EQ(ParseEndpoints("a:0").status().code(), EINVAL);
  EXPECT_EQ(ParseEndpoints("a:99999").status().code(), EINVAL);
  EXPECT_EQ(ParseEndpoints("nohost").status().code(), EINVAL);
  auto tls = ParseEndpoints("https://[::1]:2379/");
  ASSERT_TRUE(tls.ok()) << tls.status().ToString();
  EXPECT_TRUE((*tls)[0].tls);
  EXPECT_EQ((*tls)[0].host, "::1");
}

// etcd over TLS: what the config must give, refused before any connection (issue 32 item 3; the
// handshakes themselves, and etcd refusing a client without a certificate, are
// cluster_launcher_test's).
TEST(EtcdEndpoints, TlsNeedsItsFilesAndOnlyWithHttps) {
  auto plain = ParseEndpointsWithTls("http://127.0.0.1:2379", {});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->tls, nullptr);
  const auto refused = [](std::string_view list, const TlsFiles& files) {
    return ParseEndpointsWithTls(list, files).status();
  };
  Status s = refused("https://127.0.0.1:2379", {});
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("needs etcd_ca_file"), std::string::npos) << s.message();
  s = refused("http://127.0.0.1:2379", {"/x/ca.crt", "", ""});
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("no etcd endpoint is https"), std::string::npos) << s.message();
  s = refused("https://127.0.0.1:2379", {"/x/ca.crt", "/x/c.crt", ""});
  EXPECT_NE(s.message().find("go together"), std::string::npos) << s.message();
  s = refused("https://127.0.0.1:2379", {"/nonexistent/ca.crt", "", ""});
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("etcd_ca_file /nonexistent/ca.crt"), std::string::npos) << s.message();
  // A connection without a TLS context refuses an https endpoint.
  HttpConnection conn;
  s = conn.Connect(Endpoint{"127.0.0.1", 1, true}, Clock::now() + std::chrono::seconds(1));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("needs etcd_ca_file"), std::string::npos) << s.message();
}

TEST_F(EtcdClientTest, PutGetPrefixDelete) {
  Client c = client();
  auto missing = c.Get("/t/none");
  EXPECT_EQ(missing.status().code(), ENOENT);
  auto empty = c.GetPrefix("/t/");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->kvs.empty());
  EXPECT_EQ(empty->count, 0);

  // Binary keys and values survive base64 both ways.
  const std::string bin("v\0\xff\n", 4);
  auto p1 = c.Put({"/t/a", bin, 0});
  ASSERT_TRUE(p1.ok()) << p1.status().ToString();
  auto p2 = c.Put({"/t/b", "two", 0});
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->revision, p1->revision + 1);
  ASSERT_TRUE(c.Put({"/u/c", "other", 0}).ok());

  auto a = c.Get("/t/a");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->value, bin);
  EXPECT_EQ(a->create_revision, p1->revision);
  EXPECT_EQ(a->mod_revision, p1->revision);
  EXPECT_EQ(a->version, 1);

  auto all = c.GetPrefix("/t/");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->kvs.size(), 2u);
  EXPECT_EQ(all->kvs[0].key, "/t/a");
  EXPECT_EQ(all->kvs[1].key, "/t/b");
  EXPECT_EQ(all->count, 2);
  EXPECT_FALSE(all->more);

  auto limited = c.Range({"/t/", PrefixEnd("/t/"), 1, 0});
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->kvs.size(), 1u);
  EXPECT_TRUE(limited->more);
  EXPECT_EQ(limited->count, 2);

  // A read at an old revision sees the old state.
  ASSERT_TRUE(c.Put({"/t/a", "new", 0}).ok());
  auto old = c.Range({"/t/a", {}, 0, p1->revision});
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->kvs.size(), 1u);
  EXPECT_EQ(old->kvs[0].value, bin);
  auto now = c.Get("/t/a");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->value, "new");
  EXPECT_EQ(now->version, 2);

  auto del = c.DeletePrefix("/t/");
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_EQ(del->deleted, 2);
  auto after = c.GetPrefix("/t/");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->kvs.empty());
  EXPECT_TRUE(c.Get("/u/c").ok());
  auto none = c.DeleteRange({"/t/a", {}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->deleted, 0);
}

TEST_F(EtcdClientTest, TxnCreateIfAbsentAndCompareAndSwap) {
  Client c = client();
  auto create = [&](const std::string& v) {
    TxnRequest t;
    t.compare.push_back({Compare::Target::kCreate, Compare::Result::kEqual, "/x", {}, 0, {}});
    t.success.push_back(TxnOp::Put("/x", v));
    t.failure.push_back(TxnOp::Range("/x"));
    return c.Txn(t);
  };
  auto first = create("one");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->succeeded);
  ASSERT_EQ(first->responses.size(), 1u);
  EXPECT_EQ(first->responses[0].kind, TxnOp::Kind::kPut);
  const std::int64_t rev = first->revision;

  auto second = create("two");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->succeeded);  // the gateway omits "succeeded": false
  ASSERT_EQ(second->responses.size(), 1u);
  ASSERT_EQ(second->responses[0].kind, TxnOp::Kind::kRange);
  ASSERT_EQ(second->responses[0].range.kvs.size(), 1u);
  EXPECT_EQ(second->responses[0].range.kvs[0].value, "one");
  EXPECT_EQ(second->revision, rev);

  // Compare-and-swap on the mod revision: only the writer that saw rev wins.
  TxnRequest cas;
  cas.compare.push_back({Compare::Target::kMod, Compare::Result::kEqual, "/x", {}, rev, {}});
  cas.success.push_back(TxnOp::Put("/x", "swapped"));
  cas.success.push_back(TxnOp::Put("/y", "also"));
  auto won = c.Txn(cas);
  ASSERT_TRUE(won.ok());
  EXPECT_TRUE(won->succeeded);
  EXPECT_EQ(won->revision, rev + 1);
  ASSERT_EQ(won->responses.size(), 2u);
  auto lost = c.Txn(cas);
  ASSERT_TRUE(lost.ok());
  EXPECT_FALSE(lost->succeeded);
  EXPECT_TRUE(lost->responses.empty());
  EXPECT_EQ(c.Get("/x")->value, "swapped");

  // The other compare targets and results.
  auto check = [&](Compare cmp) {
    TxnRequest t;
    t.compare.push_back(std::move(cmp));
    auto r = c.Txn(t);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->succeeded;
  };
  using T = Compare::Target;
  using R = Compare::Result;
  EXPECT_TRUE(check({T::kValue, R::kEqual, "/x", {}, 0, "swapped"}));
  EXPECT_FALSE(check({T::kValue, R::kEqual, "/x", {}, 0, "one"}));
  EXPECT_TRUE(check({T::kValue, R::kNotEqual, "/x", {}, 0, "one"}));
  EXPECT_TRUE(check({T::kVersion, R::kEqual, "/x", {}, 2, {}}));
  EXPECT_TRUE(check({T::kVersion, R::kGreater, "/x", {}, 1, {}}));
  EXPECT_FALSE(check({T::kVersion, R::kLess, "/x", {}, 2, {}}));
  EXPECT_TRUE(check({T::kMod, R::kLess, "/x", {}, rev + 5, {}}));
  EXPECT_TRUE(check({T::kLease, R::kEqual, "/x", {}, 0, {}}));
  EXPECT_TRUE(check({T::kCreate, R::kNotEqual, "/x", {}, 0, {}}));

  // A delete-range op and its count.
  TxnRequest del;
  del.success.push_back(TxnOp::Delete("/", PrefixEnd("/")));
  auto d = c.Txn(del);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->responses.size(), 1u);
  EXPECT_EQ(d->responses[0].kind, TxnOp::Kind::kDelete);
  EXPECT_EQ(d->responses[0].del.deleted, 2);
}

TEST_F(EtcdClientTest, TxnLimitsAreCheckedLocallyAndByEtcd) {
  Client c = client();
  TxnRequest big;
  for (int i = 0; i < 129; ++i) big.success.push_back(TxnOp::Put("/k" + std::to_string(i), "v"));
  auto refused = c.Txn(big);
  EXPECT_EQ(refused.status().code(), EINVAL);
  EXPECT_NE(refused.status().message().find("128"), std::string::npos);
  EXPECT_EQ(c.GetPrefix("/k")->count, 0);  // nothing was sent
  big.success.pop_back();
  auto ok = c.Txn(big);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(c.GetPrefix("/k")->count, 128);

  // Above the request cap: refused locally; with the local cap lifted, etcd refuses it.
  std::string huge(1600u * 1024, 'x');  // above 1.5 MiB, below gRPC's own cap
  EXPECT_EQ(c.Put({"/huge", huge, 0}).status().code(), EINVAL);
  ClientOptions o = server_.client_options();
  o.max_request_bytes = 8u << 20;
  auto by_etcd = Client(o).Put({"/huge", huge, 0});
  EXPECT_FALSE(by_etcd.ok());
  EXPECT_EQ(by_etcd.status().code(), EINVAL) << by_etcd.status().ToString();
  EXPECT_NE(by_etcd.status().message().find("too large"), std::string::npos)
      << by_etcd.status().message();
}

TEST_F(EtcdClientTest, LeaseExpiryDeletesKeyAndKeepAliveKeepsIt) {
  Client c = client();
  auto kept = c.LeaseGrantTtl(2);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  auto expiring = c.LeaseGrantTtl(2);
  ASSERT_TRUE(expiring.ok());
  EXPECT_NE(kept->id, expiring->id);
  EXPECT_GE(kept->ttl, 2);
  ASSERT_TRUE(c.Put({"/kept", "v", kept->id}).ok());
  ASSERT_TRUE(c.Put({"/expiring", "v", expiring->id}).ok());
  EXPECT_EQ(c.Get("/kept")->lease, kept->id);

  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(4500);
  while (std::chrono::steady_clock::now() < until) {
    auto ttl = c.LeaseKeepAlive(kept->id);
    ASSERT_TRUE(ttl.ok()) << ttl.status().ToString();
    EXPECT_GE(*ttl, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  EXPECT_TRUE(c.Get("/kept").ok());
  EXPECT_EQ(c.Get("/expiring").status().code(), ENOENT);
  EXPECT_EQ(c.LeaseKeepAlive(expiring->id).status().code(), ENOENT);

  ASSERT_TRUE(c.LeaseRevoke(kept->id).ok());
  EXPECT_EQ(c.Get("/kept").status().code(), ENOENT);
  EXPECT_EQ(c.LeaseRevoke(kept->id).code(), ENOENT);
  EXPECT_EQ(c.Put({"/orphan", "v", kept->id}).status().code(), ENOENT);
  EXPECT_EQ(c.LeaseGrantTtl(0).status().code(), EINVAL);
}

TEST_F(EtcdClientTest, FailsOverToTheNextEndpoint) {
  ClientOptions o = server_.client_options();
  o.endpoints.insert(o.endpoints.begin(), Endpoint{"127.0.0.1", EtcdServer::FreePort()});
  Client c(o);
  auto put = c.Put({"/f", "v", 0});
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_EQ(c.Get("/f")->value, "v");

  // All dead: ECONNREFUSED naming every endpoint.
  server_.Kill();
  auto dead = c.Get("/f");
  EXPECT_EQ(dead.status().code(), ECONNREFUSED) << dead.status().ToString();
  EXPECT_TRUE(dead.status().is_retryable());
  for (const Endpoint& ep : o.endpoints) {
    EXPECT_NE(dead.status().message().find(ep.ToString()), std::string::npos)
        << dead.status().message();
  }
  // And back after a restart on the same ports and data.
  Status s = server_.Restart();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.Get("/f")->value, "v");
}

// A listener that accepts connections in the kernel but never reads or answers.
class SilentListener {
 public:
  SilentListener() { fd_ = testing::EtcdServer::BindLoopback(true, &port_); }
  ~SilentListener() { ::close(fd_); }
  std::uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
};

TEST_F(EtcdClientTest, TimesOutOnASilentListenerAndFailsOverOnlyForReads) {
  SilentListener silent;
  ASSERT_NE(silent.port(), 0);
  ClientOptions o;
  o.endpoints = {Endpoint{"127.0.0.1", silent.port()}};
  o.timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  auto r = Client(o).Get("/a");
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status().code(), ETIMEDOUT) << r.status().ToString();
  EXPECT_GE(took, std::chrono::milliseconds(290));
  EXPECT_LT(took, std::chrono::milliseconds(1500));

  o.endpoints.push_back(server_.endpoint());
  Client c(o);
  // A write was sent and not answered: not resent (it may have been applied).
  auto put = c.Put({"/w", "v", 0});
  EXPECT_EQ(put.status().code(), ETIMEDOUT) << put.status().ToString();
  // A read is resent to the next endpoint, which then stays preferred.
  auto get = c.Get("/w");
  EXPECT_EQ(get.status().code(), ENOENT) << get.status().ToString();
  auto put2 = c.Put({"/w", "v", 0});
  EXPECT_TRUE(put2.ok()) << put2.status().ToString();
}

}  // namespace
}  // namespace ec::etcd
