// OsdService in-process: requests handed to Handle as the messenger would, a real ObjectStore on
// a device file under /tmp, replies caught by a test Responder. No sockets.
#include "osd/shard/osd_service.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <set>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "osd/shard/shard_meta.h"
#include "osd/store/transaction.h"

namespace ec::osd::shard {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct Reply {
  msg::ReplyBody body;
  std::vector<Buffer> payload;
  bool dropped = false;  // the service let go of the responder without answering

  Status status() const { return msg::StatusOf(body); }
  std::string Data() const {
    std::string s;
    for (const Buffer& b : payload) s.append(reinterpret_cast<const char*>(b.data()), b.size());
    return s;
  }
};

// Collects replies by tag.
class Inbox {
 public:
  void Put(std::uint64_t tag, Reply r) {
    std::lock_guard lock(mu_);
    replies_[tag] = std::move(r);
    cv_.notify_all();
  }
  bool Has(std::uint64_t tag) {
    std::lock_guard lock(mu_);
    return replies_.count(tag) != 0;
  }
  Reply Take(std::uint64_t tag) {
    std::unique_lock lock(mu_);
    const bool got = cv_.wait_for(lock, 30s, [&] { return replies_.count(tag) != 0; });
    EXPECT_TRUE(got) << "no reply to tag " << tag;
    if (!got) return Reply{msg::PingReply{Status::IOError("no reply")}, {}, true};
    Reply r = std::move(replies_[tag]);
    replies_.erase(tag);
    return r;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::uint64_t, Reply> replies_;
};

class TestResponder : public msg::Responder {
 public:
  TestResponder(msg::MsgType type, std::uint64_t tag, Inbox& inbox)
      : Responder(type, tag), inbox_(inbox) {}
  ~TestResponder() override {
    if (!sent()) {
      inbox_.Put(tag(),
                 Reply{msg::ErrorReply(request_type(), Status::IOError("dropped")), {}, true});
    }
  }

 private:
  Status Deliver(msg::ReplyBody body, std::vector<Buffer> payload) override {
    EXPECT_EQ(msg::TypeOf(body), msg::ReplyTypeOf(request_type()));
    inbox_.Put(tag(), Reply{std::move(body), std::move(payload), false});
    return Status::OK();
  }
  Inbox& inbox_;
};

Buffer Bytes(const std::string& s) {
  return Buffer::Copy(std::span(reinterpret_cast<const std::byte*>(s.data()), s.size()));
}

class OsdServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ec-osd-service-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    store::StoreOptions o;
    o.device_path = (dir_ / "block").string();
    o.db_path = (dir_ / "db").string();
    o.device_size = 32ull << 20;
    Status s = store::ObjectStore::Mkfs(o);
    ASSERT_TRUE(s.ok()) << s.ToString();
    auto opened = store::ObjectStore::Open(o);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
    Start(OsdServiceOptions{});
  }
  void TearDown() override {
    service_.reset();
    shards_.reset();
    store_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  void Start(OsdServiceOptions options, ShardServiceOptions shard_options = {}) {
    service_.reset();
    shards_.reset();
    metrics_ = std::make_unique<MetricsRegistry>();
    shards_ = std::make_unique<ShardService>(store_.get(), metrics_.get(), nullptr, shard_options);
    service_ = std::make_unique<OsdService>(shards_.get(), metrics_.get(), nullptr, options);
  }

  // Hands a request to the service; the reply is collected under the returned tag.
  std::uint64_t Submit(msg::RequestBody body, Buffer payload = {}, std::string peer_name = "") {
    msg::Request req;
    req.tag = next_tag_++;
    req.body = std::move(body);
    req.payload = std::move(payload);
    req.peer_name = std::move(peer_name);
    const auto type = msg::TypeOf(req.body);
    const std::uint64_t tag = req.tag;
    service_->Handle(std::move(req), std::make_shared<TestResponder>(type, tag, inbox_));
    return tag;
  }
  Reply Call(msg::RequestBody body, Buffer payload = {}) {
    return inbox_.Take(Submit(std::move(body), std::move(payload)));
  }

  static msg::WriteShardRequest Write(const std::string& coll, const std::string& obj,
                                      std::uint32_t shard, std::uint64_t version,
                                      std::uint64_t offset = 0,
                                      std::uint32_t flags = msg::kWriteReplace,
                                      std::vector<msg::Attr> attrs = {}) {
    return msg::WriteShardRequest{coll, obj, shard, version, offset, flags, std::move(attrs)};
  }

  fs::path dir_;
  std::unique_ptr<store::ObjectStore> store_;
  std::unique_ptr<MetricsRegistry> metrics_;
  std::unique_ptr<ShardService> shards_;
  std::unique_ptr<OsdService> service_;
  Inbox inbox_;
  std::uint64_t next_tag_ = 1;
};

TEST_F(OsdServiceTest, WriteReadStatListRemove) {
  auto w =
      Call(Write("pg.1", "obj", 2, 5, 0, msg::kWriteReplace, {{"k", "v"}}), Bytes("hello world"));
  ASSERT_TRUE(w.status().ok()) << w.status().ToString();

  auto r = Call(msg::ReadShardRequest{"pg.1", "obj", 2, {{0, 5}, {6, 100}, {50, 10}}});
  ASSERT_TRUE(r.status().ok()) << r.status().ToString();
  const auto& rr = std::get<msg::ReadShardReply>(r.body);
  EXPECT_EQ(rr.object_size, 11u);
  EXPECT_EQ(rr.version, 5u);
  EXPECT_EQ(rr.lengths, (std::vector<std::uint64_t>{5, 5, 0}));
  EXPECT_EQ(r.Data(), "helloworld");

  // A write without replace keeps the data around it and merges the attributes.
  auto w2 = Call(Write("pg.1", "obj", 2, 6, 6, 0, {{"k", "v2"}, {"k3", "x"}}), Bytes("WORLD!"));
  ASSERT_TRUE(w2.status().ok()) << w2.status().ToString();
  auto st = Call(msg::StatRequest{"pg.1", "obj", 2});
  ASSERT_TRUE(st.status().ok()) << st.status().ToString();
  const auto& sr = std::get<msg::StatReply>(st.body);
  EXPECT_EQ(sr.size, 12u);
  EXPECT_EQ(sr.version, 6u);
  EXPECT_EQ(sr.attrs, (std::vector<msg::Attr>{{"k", "v2"}, {"k3", "x"}}));
  EXPECT_EQ(Call(msg::ReadShardRequest{"pg.1", "obj", 2, {{0, 100}}}).Data(), "hello WORLD!");

  // List: shards only, in pages.
  for (std::uint32_t s : {0u, 1u, 3u}) {
    ASSERT_TRUE(Call(Write("pg.1", "obj", s, 1), Bytes("x")).status().ok());
  }
  {
    store::Transaction t;
    t.Touch("pg.1", "not-a-shard");
    ASSERT_TRUE(store_->Apply(t).ok());
  }
  std::vector<msg::ListEntry> all;
  std::string cursor;
  int pages = 0;
  while (true) {
    auto l = Call(msg::ListRequest{"pg.1", cursor, 3});
    ASSERT_TRUE(l.status().ok()) << l.status().ToString();
    const auto& lr = std::get<msg::ListReply>(l.body);
    EXPECT_LE(lr.entries.size(), 3u);
    all.insert(all.end(), lr.entries.begin(), lr.entries.end());
    ++pages;
    if (lr.end) break;
    cursor = lr.next_cursor;
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(all, (std::vector<msg::ListEntry>{{"obj", 0}, {"obj", 1}, {"obj", 2}, {"obj", 3}}));
  EXPECT_EQ(pages, 2);

  ASSERT_TRUE(Call(msg::RemoveRequest{"pg.1", "obj", 2}).status().ok());
  EXPECT_EQ(Call(msg::StatRequest{"pg.1", "obj", 2}).status().code(), ENOENT);
  EXPECT_EQ(Call(msg::RemoveRequest{"pg.1", "obj", 2}).status().code(), ENOENT);
  EXPECT_EQ(Call(msg::ReadShardRequest{"pg.1", "obj", 2, {{0, 1}}}).status().code(), ENOENT);

  auto ping = Call(msg::PingRequest{3000000});
  ASSERT_TRUE(ping.status().ok());
  EXPECT_EQ(ping.Data(), std::string(3000000, '\0'));

  shards_->Drain();  // an operation is accounted just after its reply
  const auto status = shards_->StatusJson();
  EXPECT_EQ(status["collections"], 1);
  EXPECT_EQ(status["ops"]["write"]["completed"], 5);
  EXPECT_EQ(status["inflight_ops"], 0);
}

// A SubReadBatch answers each item as a ReadShard would, on its own: bytes of the OK items back to
// back, ESTALE for a shard at another version than expected (no bytes), ENOENT for a missing one.
TEST_F(OsdServiceTest, ReadBatchAnswersEveryItemOnItsOwn) {
  ASSERT_TRUE(Call(Write("pg.1", "a", 0, 5), Bytes("alpha-shard")).status().ok());
  ASSERT_TRUE(Call(Write("pg.1", "b", 0, 6), Bytes("bravo")).status().ok());
  ASSERT_TRUE(Call(Write("pg.2", "c", 3, 7), Bytes("charlie")).status().ok());
  msg::SubReadBatchRequest batch;
  batch.items = {{"pg.1", "a", 0, 5, {{0, 5}, {6, 5}}},
                 {"pg.1", "b", 0, 5, {{0, 5}}},     // at version 6: ESTALE
                 {"pg.1", "gone", 0, 0, {{0, 1}}},  // ENOENT
                 {"pg.2", "c", 3, 0, {{4, 100}}}};  // any version; shorter at the end
  auto r = Call(batch);
  ASSERT_TRUE(r.status().ok()) << r.status().ToString();
  const auto& reply = std::get<msg::SubReadBatchReply>(r.body);
  ASSERT_EQ(reply.results.size(), 4u);
  EXPECT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(reply.results[0].version, 5u);
  EXPECT_EQ(reply.results[0].object_size, 11u);
  EXPECT_EQ(reply.results[0].lengths, (std::vector<std::uint64_t>{5, 5}));
  EXPECT_EQ(reply.results[1].status.code(), ESTALE) << reply.results[1].status.ToString();
  EXPECT_EQ(reply.results[1].version, 6u);
  EXPECT_TRUE(reply.results[1].lengths.empty());
  EXPECT_EQ(reply.results[2].status.code(), ENOENT) << reply.results[2].status.ToString();
  EXPECT_TRUE(reply.results[2].lengths.empty());
  EXPECT_TRUE(reply.results[3].status.ok()) << reply.results[3].status.ToString();
  EXPECT_EQ(reply.results[3].version, 7u);
  EXPECT_EQ(reply.results[3].lengths, (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(r.Data(), "alphashardlie");
  // One operation, not an error: its items' failures are theirs.
  shards_->Drain();
  const auto ops = shards_->StatusJson()["ops"];
  EXPECT_EQ(ops["sub_read_batch"]["completed"], 1);
  EXPECT_EQ(ops["sub_read_batch"]["errors"], 0);
}

TEST_F(OsdServiceTest, RequestsOfOneShardRunInArrivalOrder) {
  Start({}, [] {
    ShardServiceOptions o;
    o.worker_threads = 4;
    return o;
  }());
  // Writes and reads of two shards interleaved, nothing awaited in between: each read sees the
  // write handed over just before it, on its own shard.
  struct Pending {
    std::uint64_t read_tag;
    std::string want;
    std::uint64_t version;
  };
  std::vector<Pending> reads;
  std::vector<std::uint64_t> writes;
  for (std::uint64_t i = 1; i <= 150; ++i) {
    for (std::uint32_t shard : {0u, 1u}) {
      const std::string data = "v" + std::to_string(i) + "s" + std::to_string(shard);
      writes.push_back(Submit(Write("pg.order", "o", shard, i), Bytes(data)));
      reads.push_back({Submit(msg::ReadShardRequest{"pg.order", "o", shard, {{0, 64}}}), data, i});
    }
  }
  for (std::uint64_t tag : writes) {
    EXPECT_TRUE(inbox_.Take(tag).status().ok());
  }
  for (const Pending& p : reads) {
    Reply r = inbox_.Take(p.read_tag);
    ASSERT_TRUE(r.status().ok()) << r.status().ToString();
    EXPECT_EQ(r.Data(), p.want);
    EXPECT_EQ(std::get<msg::ReadShardReply>(r.body).version, p.version);
  }
  shards_->Drain();
  EXPECT_EQ(shards_->StatusJson()["inflight_ops"], 0);
}

TEST_F(OsdServiceTest, ErrorsComeBackAsStatuses) {
  EXPECT_EQ(Call(msg::ReadShardRequest{"pg.none", "o", 0, {{0, 1}}}).status().code(), ENOENT);
  EXPECT_EQ(Call(msg::StatRequest{"pg.none", "o", 0}).status().code(), ENOENT);
  EXPECT_EQ(Call(msg::ListRequest{"pg.none", "", 10}).status().code(), ENOENT);

  std::vector<msg::Attr> many;
  for (int i = 0; i <= 64; ++i) many.push_back({"k" + std::to_string(i), "v"});
  auto big = Call(Write("pg.1", "o", 0, 1, 0, msg::kWriteReplace, many), Bytes("x"));
  EXPECT_EQ(big.status().code(), E2BIG) << big.status().ToString();
  auto far = Call(Write("pg.1", "o", 0, 1, std::uint64_t{1} << 63), Bytes("x"));
  EXPECT_EQ(far.status().code(), EINVAL) << far.status().ToString();

  // A corrupt "_meta" is data loss, for reads and stats, and counted as such.
  ASSERT_TRUE(Call(Write("pg.1", "o", 0, 1), Bytes("data")).status().ok());
  {
    store::Transaction t;
    t.SetAttr("pg.1", ShardObjectName("o", 0), kShardMetaAttr, "garbage");
    ASSERT_TRUE(store_->Apply(t).ok());
  }
  auto r = Call(msg::ReadShardRequest{"pg.1", "o", 0, {{0, 4}}});
  EXPECT_TRUE(r.status().is_data_loss()) << r.status().ToString();
  EXPECT_TRUE(r.payload.empty());
  EXPECT_TRUE(Call(msg::StatRequest{"pg.1", "o", 0}).status().is_data_loss());
  shards_->Drain();  // an operation is accounted just after its reply
  EXPECT_EQ(shards_->StatusJson()["checksum_errors"], 2);
}

TEST_F(OsdServiceTest, RejectedWritesChangeNothing) {
  const std::uint64_t free_before = store_->free_bytes();
  const Buffer too_big = Buffer::Allocate(30ull << 20, true);  // more than the device has free
  std::vector<msg::Attr> many;
  for (int i = 0; i <= 64; ++i) many.push_back({"k" + std::to_string(i), "v"});
  std::vector<std::uint64_t> tags;
  for (int i = 0; i < 3000; ++i) {
    const std::string coll = "pg.rejected." + std::to_string(i);
    switch (i % 3) {
      case 0:
        tags.push_back(Submit(Write(coll, "o", 0, 1, std::uint64_t{1} << 63), Bytes("x")));
        break;
      case 1:
        tags.push_back(Submit(Write(coll, "o", 0, 1, 0, msg::kWriteReplace, many), Bytes("x")));
        break;
      default:
        if (i % 300 == 2) tags.push_back(Submit(Write(coll, "o", 0, 1), too_big));
        break;
    }
  }
  std::map<int, int> codes;
  for (std::uint64_t tag : tags) ++codes[inbox_.Take(tag).status().code()];
  EXPECT_EQ(codes[0], 0);
  EXPECT_EQ(codes[EINVAL], 1000);
  EXPECT_EQ(codes[E2BIG], 1000);
  EXPECT_EQ(codes[ENOSPC], 10);

  auto colls = store_->ListCollections();
  ASSERT_TRUE(colls.ok());
  EXPECT_TRUE(colls->empty()) << colls->size() << " collections, first " << colls->front();
  EXPECT_EQ(shards_->StatusJson()["collections"], 0);
  EXPECT_EQ(store_->free_bytes(), free_before);

  // Many first writes into one new collection at once (on different strands): all succeed and
  // the collection is created once.
  tags.clear();
  for (std::uint32_t shard = 0; shard < 64; ++shard) {
    tags.push_back(Submit(Write("pg.new", "o", shard, 1), Bytes("shard")));
  }
  for (std::uint64_t tag : tags) {
    Status s = inbox_.Take(tag).status();
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  colls = store_->ListCollections();
  ASSERT_TRUE(colls.ok());
  EXPECT_EQ(*colls, std::vector<std::string>{"pg.new"});
  EXPECT_EQ(shards_->StatusJson()["collections"], 1);
}

TEST_F(OsdServiceTest, SmallLoneReadsRunInlineWithTheSameAnswer) {
  OsdServiceOptions one_thread;
  one_thread.single_io_thread = true;
  Start(one_thread, [] {
    ShardServiceOptions o;
    o.inline_read_max_bytes = 4096;
    return o;
  }());
  ASSERT_TRUE(Call(Write("pg.1", "o", 0, 3), Bytes("inline")).status().ok());
  std::this_thread::sleep_for(20ms);  // past the policy's back-off after the write
  // Handle returns only after an inline read has been answered: the reply is there at once.
  const std::uint64_t tag = Submit(msg::ReadShardRequest{"pg.1", "o", 0, {{0, 100}}});
  EXPECT_TRUE(inbox_.Has(tag));
  Reply r = inbox_.Take(tag);
  ASSERT_TRUE(r.status().ok()) << r.status().ToString();
  EXPECT_EQ(r.Data(), "inline");
  EXPECT_EQ(std::get<msg::ReadShardReply>(r.body).version, 3u);
  shards_->Drain();
  const std::string page = metrics_->RenderPrometheus();
  EXPECT_NE(page.find("ecstore_osd_inline_reads_total 1"), std::string::npos) << page;
  // A large read goes to a worker.
  ASSERT_TRUE(Call(msg::ReadShardRequest{"pg.1", "o", 0, {{0, 8192}}}).status().ok());
  shards_->Drain();
  EXPECT_NE(metrics_->RenderPrometheus().find("ecstore_osd_inline_reads_total 1"),
            std::string::npos);
}

TEST_F(OsdServiceTest, SubScanListsWhatSubWritesLeft) {
  auto sub = [](const std::string& obj, std::uint32_t shard, std::uint64_t v, std::uint64_t prev,
                msg::SubWriteKind kind, std::uint64_t size) {
    return msg::SubWriteRequest{
        "pg.3.1",
        obj,
        shard,
        v,
        prev,
        kind,
        size,
        size,
        size ? std::vector<msg::ByteExtent>{{0, size}} : std::vector<msg::ByteExtent>{}};
  };
  ASSERT_TRUE(Call(sub("x", 1, 5, 0, msg::SubWriteKind::kFull, 3), Bytes("xxx")).status().ok());
  ASSERT_TRUE(Call(sub("y", 1, 6, 0, msg::SubWriteKind::kFull, 2), Bytes("yy")).status().ok());
  ASSERT_TRUE(Call(sub("y", 1, 7, 6, msg::SubWriteKind::kRemove, 0)).status().ok());
  ASSERT_TRUE(Call(sub("z", 0, 8, 0, msg::SubWriteKind::kFull, 1), Bytes("z")).status().ok());

  Reply r = Call(msg::SubScanRequest{"pg.3.1", 1, "", 1});
  ASSERT_TRUE(r.status().ok()) << r.status().ToString();
  const auto& first = std::get<msg::SubScanReply>(r.body);
  ASSERT_EQ(first.entries.size(), 1u);
  EXPECT_EQ(first.entries[0], (msg::SubScanEntry{"x", msg::ShardState::kPresent, 5, 3, 3, 5}));
  EXPECT_FALSE(first.end);
  r = Call(msg::SubScanRequest{"pg.3.1", 1, first.next_cursor, 10});
  const auto& second = std::get<msg::SubScanReply>(r.body);
  ASSERT_EQ(second.entries.size(), 1u);
  EXPECT_EQ(second.entries[0], (msg::SubScanEntry{"y", msg::ShardState::kRemoved, 7, 0, 0, 7}));
  EXPECT_TRUE(second.end);
  // A collection this OSD never had: an empty last page.
  r = Call(msg::SubScanRequest{"pg.none", 0, "", 10});
  ASSERT_TRUE(r.status().ok());
  EXPECT_TRUE(std::get<msg::SubScanReply>(r.body).entries.empty());
  EXPECT_TRUE(std::get<msg::SubScanReply>(r.body).end);
  shards_->Drain();
  EXPECT_EQ(shards_->StatusJson()["ops"]["sub_scan"]["completed"], 3);
}

// A SubScan raises the PG's fence to its epoch: sub-operations of older epochs are refused after
// it (a resumed old primary cannot write behind the new primary's peering), newer ones go on.
TEST_F(OsdServiceTest, SubOperationsFromBeforeTheLastScansEpochAreRefused) {
  auto full = [](const std::string& obj, std::uint64_t v, std::uint64_t epoch) {
    msg::SubWriteRequest w{"pg.4.2", obj, 1, v, 0, msg::SubWriteKind::kFull, 1, 1, {{0, 1}}};
    w.epoch = epoch;
    return w;
  };
  ASSERT_TRUE(Call(full("a", 10, 3), Bytes("a")).status().ok());
  msg::SubScanRequest scan{"pg.4.2", 1, "", 10};
  scan.epoch = 5;
  Reply r = Call(scan);
  ASSERT_TRUE(r.status().ok()) << r.status().ToString();
  ASSERT_EQ(std::get<msg::SubScanReply>(r.body).entries.size(), 1u);

  r = Call(full("b", 11, 4), Bytes("b"));
  EXPECT_EQ(r.status().code(), ESTALE) << r.status().ToString();
  EXPECT_TRUE(r.status().is_retryable());
  msg::SubResolveRequest rollback{"pg.4.2", "a", 1, 10, msg::SubResolveAction::kRollback};
  rollback.epoch = 4;
  EXPECT_EQ(Call(rollback).status().code(), ESTALE);
  // Nothing of either reached the store: "b" is absent, "a" still at 10.
  msg::SubScanRequest again{"pg.4.2", 1, "", 10};
  r = Call(again);
  ASSERT_EQ(std::get<msg::SubScanReply>(r.body).entries.size(), 1u);
  EXPECT_EQ(std::get<msg::SubScanReply>(r.body).entries[0].version, 10u);

  EXPECT_TRUE(Call(full("b", 12, 5), Bytes("b")).status().ok());
  rollback.version = 12;
  rollback.object = "b";
  rollback.epoch = 6;
  EXPECT_TRUE(Call(rollback).status().ok());
  // Another PG has its own fence.
  msg::SubWriteRequest other = full("c", 13, 1);
  other.collection = "pg.4.3";
  EXPECT_TRUE(Call(other, Bytes("c")).status().ok());
  shards_->Drain();
  EXPECT_NE(metrics_->RenderPrometheus().find("ecstore_osd_fenced_subops_total 2"),
            std::string::npos);
}

TEST_F(OsdServiceTest, SubPullIsNotSupportedWithoutARecoveryHandler) {
  const msg::SubPullRequest pull{
      1, 1, "pg.1.0", 2, msg::SubPullMode::kRebuild, {{0, 1}}, {{"o", 2, 10, 0}}};
  Reply r = Call(pull);
  EXPECT_EQ(r.status().code(), ENOTSUP) << r.status().ToString();
  EXPECT_TRUE(std::holds_alternative<msg::SubPullReply>(r.body));
  EXPECT_FALSE(r.dropped);
  shards_->Drain();
  EXPECT_EQ(shards_->StatusJson()["ops"]["sub_pull"]["errors"], 1);
}

// The recovery handler gets SubPull requests (and nothing else); its replies are accounted.
TEST_F(OsdServiceTest, SubPullGoesToTheRecoveryHandler) {
  struct Recovery : msg::RequestHandler {
    void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override {
      const auto& p = std::get<msg::SubPullRequest>(request.body);
      msg::SubPullReply reply;
      for (const msg::SubPullObject& o : p.objects) {
        reply.results.push_back({o.object, Status::OK(), 100, 4096, 50});
      }
      ++calls;
      if (p.objects.empty()) return;  // dropped unanswered
      (void)responder->Send(std::move(reply));
    }
    std::atomic<int> calls{0};
  } recovery;
  OsdServiceOptions options;
  options.recovery = &recovery;
  Start(options);
  Reply r = Call(msg::SubPullRequest{
      1, 1, "pg.1.0", 2, msg::SubPullMode::kRebuild, {{0, 1}}, {{"a", 2, 10, 0}, {"b", 3, 10, 0}}});
  ASSERT_TRUE(r.status().ok()) << r.status().ToString();
  const auto& reply = std::get<msg::SubPullReply>(r.body);
  ASSERT_EQ(reply.results.size(), 2u);
  EXPECT_EQ(reply.results[1].object, "b");
  EXPECT_EQ(reply.results[1].rebuilt_bytes, 50u);
  // A request the handler drops is answered EIO (by the messenger's responder) and counted.
  r = Call(msg::SubPullRequest{1, 1, "pg.1.0", 2, msg::SubPullMode::kRebuild, {{0, 1}}, {}});
  EXPECT_EQ(r.status().code(), EIO);
  EXPECT_EQ(recovery.calls, 2);
  // Other sub-operations stay with the service.
  EXPECT_TRUE(Call(msg::SubScanRequest{"pg.1.0", 2, "", 10}).status().ok());
  EXPECT_EQ(recovery.calls, 2);
  // A pull from before the PG's last peering never reaches the handler.
  msg::SubScanRequest scan{"pg.1.0", 2, "", 10};
  scan.epoch = 4;
  EXPECT_TRUE(Call(scan).status().ok());
  r = Call(msg::SubPullRequest{
      1, 3, "pg.1.0", 2, msg::SubPullMode::kRebuild, {{0, 1}}, {{"a", 2, 10, 0}}});
  EXPECT_EQ(r.status().code(), ESTALE) << r.status().ToString();
  EXPECT_EQ(recovery.calls, 2);
  shards_->Drain();
  const auto ops = shards_->StatusJson()["ops"];
  EXPECT_EQ(ops["sub_pull"]["completed"], 3);
  EXPECT_EQ(ops["sub_pull"]["errors"], 2);
  service_.reset();  // before `recovery` goes
}

// The shard operations a primary would otherwise send itself are reached in process, through the
// typed API: the same answers as over the messenger, counted as local, never as messages; a
// sub-operation that does arrive from this OSD's own name is counted as a self message.
TEST_F(OsdServiceTest, InProcessCallsAnswerAsRequestsDoAndSelfMessagesAreCounted) {
  msg::SubWriteRequest w;
  w.collection = "pg.1";
  w.object = "o";
  w.shard = 2;
  w.version = 5;
  w.kind = msg::SubWriteKind::kFull;
  w.object_size = 4;
  w.shard_size = 4;
  w.extents = {{0, 4}};
  std::promise<Status> wrote;
  shards_->SubWrite(w, Bytes("abcd"), [&](Status s) { wrote.set_value(std::move(s)); });
  ASSERT_TRUE(wrote.get_future().get().ok());
  EXPECT_EQ(shards_->local_calls(), 1u);

  // The same shard through the network path: what the in-process write left.
  Reply r = Call(msg::ReadShardRequest{"pg.1", "o", 2, {{0, 4}}});
  ASSERT_TRUE(r.status().ok()) << r.status().ToString();
  EXPECT_EQ(r.Data(), "abcd");
  EXPECT_EQ(std::get<msg::ReadShardReply>(r.body).version, 5u);
  auto now = shards_->ReadNow("pg.1", "o", 2, std::vector<store::Extent>{{1, 2}});
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  EXPECT_EQ(now->version, 5u);
  ASSERT_EQ(now->extents.size(), 1u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(now->extents[0].data()), 2), "bc");
  auto state = shards_->StateNow(msg::SubStateRequest{"pg.1", "o", 2});
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->version, 5u);
  EXPECT_EQ(shards_->local_calls(), 3u);  // the read from the network is not a local call

  EXPECT_EQ(service_->self_messages(), 0u);
  Reply other = inbox_.Take(Submit(msg::SubStateRequest{"pg.1", "o", 2}, {}, "osd.1"));
  ASSERT_TRUE(other.status().ok());
  EXPECT_EQ(service_->self_messages(), 0u);
  Reply self = inbox_.Take(Submit(msg::SubStateRequest{"pg.1", "o", 2}, {}, "osd.0"));
  ASSERT_TRUE(self.status().ok());
  EXPECT_EQ(service_->self_messages(), 1u);
  shards_->Drain();
  EXPECT_EQ(shards_->StatusJson()["ops"]["sub_state"]["completed"], 2);
}

// A SubWrite that may not run inline synchronously (more requests queued) but whose shard is idle
// starts on the calling thread and completes when its commit group does, on the store's commit
// thread; what is handed over for its shard meanwhile waits for it, so a chain of writes (each
// expecting the previous version) and the reads after each, nothing awaited, all see the order
// they were handed over in.
TEST_F(OsdServiceTest, WritesStartedHereCompleteWithTheirCommitInOrder) {
  Start({}, [] {
    ShardServiceOptions o;
    o.worker_threads = 4;
    o.inline_write_max_bytes = 64 * 1024;
    return o;
  }());
  auto write = [](std::uint32_t shard, std::uint64_t v) {
    msg::SubWriteRequest w;
    w.collection = "pg.9";
    w.object = "o";
    w.shard = shard;
    w.version = v;
    w.prev_version = v - 1;
    w.kind = msg::SubWriteKind::kFull;
    w.object_size = 8;
    w.shard_size = 8;
    w.extents = {{0, 8}};
    return w;
  };
  // The collection first (a write that creates it is never started here).
  std::promise<Status> first;
  shards_->SubWrite(write(0, 1), Bytes("v0000001"), [&](Status s) { first.set_value(s); });
  ASSERT_TRUE(first.get_future().get().ok());

  constexpr int kWrites = 40;
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::vector<std::promise<Status>> wrote(2 * kWrites);
  std::vector<std::future<Status>> wrote_f;
  for (auto& p : wrote) wrote_f.push_back(p.get_future());
  std::vector<std::uint64_t> reads;
  for (int i = 0; i < kWrites; ++i) {
    for (std::uint32_t shard : {0u, 1u}) {
      const std::uint64_t v = static_cast<std::uint64_t>(i) + (shard == 0 ? 2 : 1);
      const std::string data = fmt::format("v{:07}", v);
      shards_->SubWrite(
          write(shard, v), Bytes(data),
          [&, n = 2 * i + static_cast<int>(shard)](Status s) {
            {
              std::lock_guard lock(mu);
              threads.insert(std::this_thread::get_id());
            }
            wrote[static_cast<std::size_t>(n)].set_value(std::move(s));
          },
          Caller::kLocal, InlineHint{true, true});
      reads.push_back(Submit(msg::ReadShardRequest{"pg.9", "o", shard, {{0, 8}}}));
    }
  }
  for (auto& f : wrote_f) EXPECT_TRUE(f.get().ok());
  for (int i = 0; i < kWrites; ++i) {
    for (std::uint32_t shard : {0u, 1u}) {
      const std::uint64_t v = static_cast<std::uint64_t>(i) + (shard == 0 ? 2 : 1);
      Reply r = inbox_.Take(reads[static_cast<std::size_t>(2 * i + static_cast<int>(shard))]);
      ASSERT_TRUE(r.status().ok()) << r.status().ToString();
      EXPECT_EQ(r.Data(), fmt::format("v{:07}", v));
      EXPECT_EQ(std::get<msg::ReadShardReply>(r.body).version, v);
    }
  }
  shards_->Drain();
  EXPECT_EQ(shards_->StatusJson()["inflight_ops"], 0);
  // Some writes completed on a thread that is not this one (the commit thread, or a worker).
  EXPECT_FALSE(threads.count(std::this_thread::get_id()) == 1 && threads.size() == 1);
  EXPECT_GT(shards_->accounting().inline_writes().Value(), 0u);
}

}  // namespace
}  // namespace ec::osd::shard
