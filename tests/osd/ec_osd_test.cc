// Whole-system tests of ec-osd: real daemon processes on loopback, driven with the client library
// (msg/client.h), raw sockets and HTTP. Stores are small (64 MiB device files under /tmp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "msg/client.h"
#include "msg/frame.h"
#include "msg/messages.h"
#include "tests/osd/osd_process.h"
#include "tests/system_test_support.h"

namespace ectest {
namespace {

using ec::Buffer;
using ec::Status;
using ec::msg::OsdClient;

std::unique_ptr<OsdClient> Connect(const OsdProcess& osd) {
  ec::msg::ClientOptions o;
  o.port = osd.port();
  o.request_timeout = std::chrono::seconds(60);
  auto c = OsdClient::Create(o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return nullptr;
  Status s = (*c)->Connect();
  EXPECT_TRUE(s.ok()) << s.message();
  return std::move(*c);
}

Buffer BufferOf(const std::vector<std::byte>& bytes) {
  return Buffer::Copy(bytes);
}

std::vector<std::byte> Bytes(const Buffer& b) {
  return {b.data(), b.data() + b.size()};
}

ec::msg::WriteShardRequest WriteReq(const std::string& coll, const std::string& obj,
                                    std::uint32_t shard, std::uint64_t version = 1) {
  ec::msg::WriteShardRequest w;
  w.collection = coll;
  w.object = obj;
  w.shard = shard;
  w.version = version;
  w.flags = ec::msg::kWriteReplace;
  return w;
}

// Polls /metrics until `sample` reaches at least `at_least` (the daemon refreshes the messenger's
// figures once a second); returns the last value seen.
double WaitForMetric(const OsdProcess& osd, const std::string& sample, double at_least) {
  double v = -1;
  for (int i = 0; i < 100; ++i) {
    v = MetricValue(HttpGet(osd.metrics_port(), "/metrics"), sample);
    if (v >= at_least) return v;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return v;
}

TEST(EcOsdCli, HelpAndStartupErrors) {
  TempDir dir;
  ProcessResult help = RunOsdTool({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--mkfs"), std::string::npos) << help.out;
  ProcessResult options = RunOsdTool({"--help-config"});
  EXPECT_EQ(options.exit_code, 0);
  EXPECT_NE(options.out.find("osd_data"), std::string::npos);
  EXPECT_NE(options.out.find("public_addr"), std::string::npos);

  OsdProcess osd(dir.path(), 3);
  // Not formatted yet: a clear error, not a crash.
  ProcessResult run = RunOsdTool(osd.BaseArgs());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("--mkfs"), std::string::npos) << run.err;

  ProcessResult mkfs = osd.Mkfs();
  ASSERT_EQ(mkfs.exit_code, 0) << mkfs.err;
  EXPECT_TRUE(fs::exists(osd.block()));
  ProcessResult again = osd.Mkfs();
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_FALSE(again.err.empty());
  ProcessResult fsck = RunOsdTool([&] {
    auto a = osd.BaseArgs();
    a.push_back("--fsck");
    a.push_back("--deep");
    return a;
  }());
  EXPECT_EQ(fsck.exit_code, 0) << fsck.out << fsck.err;
  EXPECT_NE(fsck.out.find("0 errors"), std::string::npos) << fsck.out;

  WriteText(dir / "bad.conf", "[osd]\nosd dta = /tmp/x\n");
  ProcessResult bad = RunOsdTool({"-c", (dir / "bad.conf").string(), "-i", "0"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("unknown option 'osd_dta'"), std::string::npos) << bad.err;
  ProcessResult bad_set = RunOsdTool({"--set", "osd_port=seventy"});
  EXPECT_EQ(bad_set.exit_code, 1);
  EXPECT_NE(bad_set.err.find("osd_port"), std::string::npos) << bad_set.err;
  ProcessResult missing = RunOsdTool({"-c", (dir / "none.conf").string()});
  EXPECT_NE(missing.exit_code, 0);
}

// --mkfs creates a device file only inside osd data: a missing block path elsewhere (a device
// that is not there) is refused before anything is created; an existing file elsewhere is used.
TEST(EcOsdCli, MkfsRefusesAMissingBlockPathOutsideOsdData) {
  TempDir dir;
  const fs::path missing = dir / "dev" / "nvme9n1";
  fs::create_directories(dir / "dev");
  WriteText(dir / "nodev.conf", "[global]\nosd data = " + (dir / "osd-$id").string() +
                                    "\nbluestore block path = " + missing.string() +
                                    "\nbluestore block size = 64M\n");
  ProcessResult r = RunOsdTool({"-c", (dir / "nodev.conf").string(), "-i", "0", "--mkfs"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("bluestore block path " + missing.string() + " does not exist"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_FALSE(fs::exists(dir / "osd-0"));  // nothing created at all

  // A path that leaves osd data through ".." is outside too.
  WriteText(dir / "dotdot.conf", "[global]\nosd data = " + (dir / "osd-$id").string() +
                                     "\nbluestore block path = $osd_data/../escaped" +
                                     "\nbluestore block size = 64M\n");
  r = RunOsdTool({"-c", (dir / "dotdot.conf").string(), "-i", "0", "--mkfs"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_FALSE(fs::exists(dir / "escaped"));

  // An existing device file outside osd data is fine.
  const fs::path existing = dir / "dev" / "disk.img";
  { std::ofstream(existing.string()).close(); }
  fs::resize_file(existing, 64ull << 20);
  WriteText(dir / "dev.conf", "[global]\nosd data = " + (dir / "osd-$id").string() +
                                  "\nbluestore block path = " + existing.string() + "\n");
  r = RunOsdTool({"-c", (dir / "dev.conf").string(), "-i", "0", "--mkfs"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// Usage errors exit 1 (not CLI11's 105-109); --version names the program and the version.
TEST(EcOsdCli, UsageErrorsExitOneAndVersion) {
  ProcessResult v = RunOsdTool({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out, std::string("ec-osd ") + ECSTORE_VERSION + "\n");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--no-such-option"},
                                             {"-i", "x"},
                                             {"-i", "-1"},
                                             {"-c"},
                                             {"extra-argument"},
                                             {"--locate", "pg.1.0"},
                                             {"--fsck", "--locate", "pg.1.0", "o#0"}}) {
    ProcessResult r = RunOsdTool(args);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << args[0];
  }
}

// The local addresses ("0100007F" for 127.0.0.1, as /proc/net/tcp writes them) of the IPv4 sockets
// listening on `port`.
std::vector<std::string> ListeningAddressesOfPort(std::uint16_t port) {
  std::ifstream in("/proc/net/tcp");
  std::string line;
  std::getline(in, line);  // the header
  std::vector<std::string> out;
  char want[8];
  std::snprintf(want, sizeof want, "%04X", static_cast<unsigned>(port));
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    const std::size_t colon = local.find(':');
    if (state == "0A" && colon != std::string::npos && local.substr(colon + 1) == want) {
      out.push_back(local.substr(0, colon));
    }
  }
  return out;
}

// Issue 32 item 4: the HTTP endpoint binds osd_metrics_addr (loopback unless configured) and
// serves only the metrics and the status; any other path is 404.
TEST(EcOsdHttp, BindsTheConfiguredAddressAndServesOnlyMetricsAndStatus) {
  TempDir dir;
  OsdProcess osd(dir.path(), 0);
  ASSERT_EQ(osd.Mkfs().exit_code, 0);
  ASSERT_TRUE(osd.Start());
  EXPECT_EQ(ListeningAddressesOfPort(osd.metrics_port()), std::vector<std::string>{"0100007F"});
  int code = 0;
  HttpGet(osd.metrics_port(), "/metrics", &code);
  EXPECT_EQ(code, 200);
  HttpGet(osd.metrics_port(), "/status", &code);
  EXPECT_EQ(code, 200);
  for (const char* path : {"/", "/config", "/metrics/", "/status/x", "/metrics/../status",
                           "/keyring", "/admin", "//metrics"}) {
    HttpGet(osd.metrics_port(), path, &code);
    EXPECT_EQ(code, 404) << path;
  }
  EXPECT_EQ(osd.Terminate(), 0);

  // Another address: bound there, not on 127.0.0.1.
  TempDir other_dir;
  OsdProcess other(other_dir.path(), 1);
  ASSERT_EQ(other.Mkfs().exit_code, 0);
  ASSERT_TRUE(other.Start({"--set", "osd_metrics_addr=127.0.0.2"}));
  EXPECT_EQ(ListeningAddressesOfPort(other.metrics_port()), std::vector<std::string>{"0200007F"});
  HttpGet(other.metrics_port(), "/metrics", &code);
  EXPECT_EQ(code, 0);  // nothing listens on 127.0.0.1 at that port
  EXPECT_EQ(other.Terminate(), 0);
}

class EcOsdDaemon : public ::testing::Test {
 protected:
  void SetUp() override {
    osd_ = std::make_unique<OsdProcess>(dir_.path(), 0);
    ProcessResult mkfs = osd_->Mkfs();
    ASSERT_EQ(mkfs.exit_code, 0) << mkfs.err;
    ASSERT_TRUE(osd_->Start());
  }
  void TearDown() override {
    if (osd_ && osd_->running()) {
      EXPECT_EQ(osd_->Terminate(), 0) << osd_->Log();
    }
  }
  ProcessResult Fsck() {
    auto a = osd_->BaseArgs();
    a.push_back("--fsck");
    a.push_back("--deep");
    return RunOsdTool(a);
  }
  TempDir dir_;
  std::unique_ptr<OsdProcess> osd_;
};

TEST_F(EcOsdDaemon, ShardOperationsThroughTheClient) {
  auto client = Connect(*osd_);
  ASSERT_TRUE(client);
  ASSERT_TRUE(client->Ping({}, 0).ok());

  const auto data = RandomBytes(100000, 7);
  auto w = WriteReq("pg.1", "obj", 2, 5);
  w.attrs = {{"hinfo", "abc"}, {"k", std::string("\0\x01", 2)}};
  ASSERT_TRUE(client->WriteShard(w, {BufferOf(data)}).ok());

  // Several extents in one request, one past the end (cut), one wholly past it (empty).
  ec::msg::ReadShardRequest r{"pg.1", "obj", 2, {{0, 10}, {4000, 5000}, {99990, 100}, {200000, 5}}};
  auto read = client->ReadShard(r);
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->extents.size(), 4u);
  EXPECT_EQ(Bytes(read->extents[0]), std::vector<std::byte>(data.begin(), data.begin() + 10));
  EXPECT_EQ(Bytes(read->extents[1]),
            std::vector<std::byte>(data.begin() + 4000, data.begin() + 9000));
  EXPECT_EQ(Bytes(read->extents[2]), std::vector<std::byte>(data.begin() + 99990, data.end()));
  EXPECT_TRUE(read->extents[3].empty());
  EXPECT_EQ(read->object_size, data.size());
  EXPECT_EQ(read->version, 5u);

  auto st = client->Stat({"pg.1", "obj", 2});
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->size, data.size());
  EXPECT_EQ(st->version, 5u);
  EXPECT_EQ(st->attrs, w.attrs);

  // A partial overwrite keeps the rest and merges attributes.
  auto patch = WriteReq("pg.1", "obj", 2, 6);
  patch.flags = 0;
  patch.offset = 50;
  patch.attrs = {{"hinfo", "xyz"}};
  const auto small = RandomBytes(30, 8);
  ASSERT_TRUE(client->WriteShard(patch, {BufferOf(small)}).ok());
  auto whole = client->ReadShard({"pg.1", "obj", 2, {{0, 200000}}});
  ASSERT_TRUE(whole.ok());
  auto expect = data;
  std::copy(small.begin(), small.end(), expect.begin() + 50);
  EXPECT_EQ(Bytes(whole->extents[0]), expect);
  st = client->Stat({"pg.1", "obj", 2});
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->version, 6u);
  ASSERT_EQ(st->attrs.size(), 2u);
  EXPECT_EQ(st->attrs[0].value, "xyz");

  // Errors come back as codes.
  EXPECT_EQ(client->Stat({"pg.1", "nope", 0}).status().code(), ENOENT);
  EXPECT_EQ(client->ReadShard({"pg.9", "obj", 0, {{0, 1}}}).status().code(), ENOENT);
  EXPECT_EQ(client->Remove({"pg.1", "nope", 0}).code(), ENOENT);

  // Many writes in flight at once, then paged listing.
  constexpr int kObjects = 150;
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  int failed = 0;
  for (int i = 0; i < kObjects; ++i) {
    client->WriteShardAsync(WriteReq("pg.2", "o" + std::to_string(i), i % 3),
                            {BufferOf(RandomBytes(4096, 100 + i))}, [&](Status s) {
                              std::lock_guard l(mu);
                              ++done;
                              if (!s.ok()) ++failed;
                              cv.notify_all();
                            });
  }
  {
    std::unique_lock l(mu);
    ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(120), [&] { return done == kObjects; }));
  }
  EXPECT_EQ(failed, 0);
  std::vector<ec::msg::ListEntry> listed;
  std::string cursor;
  int pages = 0;
  while (true) {
    auto page = client->List({"pg.2", cursor, 40});
    ASSERT_TRUE(page.ok()) << page.status().message();
    ASSERT_LE(page->entries.size(), 40u);
    listed.insert(listed.end(), page->entries.begin(), page->entries.end());
    ++pages;
    if (page->end) break;
    cursor = page->next_cursor;
  }
  EXPECT_EQ(listed.size(), static_cast<std::size_t>(kObjects));
  EXPECT_EQ(pages, 4);
  for (int i = 0; i < kObjects; i += 17) {
    auto got = client->ReadShard(
        {"pg.2", "o" + std::to_string(i), static_cast<std::uint32_t>(i % 3), {{0, 4096}}});
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(Bytes(got->extents[0]), RandomBytes(4096, 100 + i));
  }
  ASSERT_TRUE(client->Remove({"pg.2", "o0", 0}).ok());
  EXPECT_EQ(client->Stat({"pg.2", "o0", 0}).status().code(), ENOENT);

  // A lone small read, once the burst above has ended, runs on the network thread
  // (osd_inline_read_max_size) and returns the same bytes.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto lone = client->ReadShard({"pg.2", "o17", 17 % 3, {{100, 200}, {4000, 96}}});
  ASSERT_TRUE(lone.ok()) << lone.status().message();
  const auto o17 = RandomBytes(4096, 117);
  EXPECT_EQ(Bytes(lone->extents[0]), std::vector<std::byte>(o17.begin() + 100, o17.begin() + 300));
  EXPECT_EQ(Bytes(lone->extents[1]), std::vector<std::byte>(o17.begin() + 4000, o17.end()));

  // Metrics and status.
  const std::string page = HttpGet(osd_->metrics_port(), "/metrics");
  EXPECT_GE(MetricValue(page, "ecstore_osd_inline_reads_total"), 1);
  EXPECT_GE(MetricValue(page, "ecstore_osd_ops_total{op=\"write\"}"), kObjects + 2);
  EXPECT_GE(MetricValue(page, "ecstore_osd_ops_total{op=\"read\"}"), 3);
  EXPECT_EQ(MetricValue(page, "ecstore_osd_checksum_errors_total"), 0);
  EXPECT_NE(page.find("ecstore_osd_op_latency_seconds_bucket"), std::string::npos);
  int code = 0;
  auto status =
      nlohmann::json::parse(HttpGet(osd_->metrics_port(), "/status", &code), nullptr, false);
  EXPECT_EQ(code, 200);
  ASSERT_FALSE(status.is_discarded());
  EXPECT_EQ(status["osd"], 0);
  EXPECT_EQ(status["state"], "up");

  // Everything survives a clean restart.
  client.reset();
  ASSERT_EQ(osd_->Terminate(), 0) << osd_->Log();
  ProcessResult fsck = Fsck();
  EXPECT_EQ(fsck.exit_code, 0) << fsck.out << fsck.err;
  ASSERT_TRUE(osd_->Start());
  client = Connect(*osd_);
  ASSERT_TRUE(client);
  auto again = client->ReadShard({"pg.1", "obj", 2, {{0, 200000}}});
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(Bytes(again->extents[0]), expect);
}

TEST_F(EcOsdDaemon, MalformedTrafficClosesOnlyThatConnection) {
  auto good = Connect(*osd_);
  ASSERT_TRUE(good);

  auto frame = [](std::uint16_t version, std::uint16_t type, std::uint32_t payload_len) {
    ec::msg::FrameHeader h;
    h.version = version;
    h.type = type;
    h.payload_len = payload_len;
    std::array<std::byte, ec::msg::kFrameHeaderSize> out{};
    ec::msg::EncodeFrameHeader(h, out);
    return out;
  };
  struct Case {
    std::string name;
    std::vector<std::byte> bytes;
  };
  std::vector<Case> cases;
  cases.push_back({"garbage", RandomBytes(64, 1)});
  auto oversized = frame(1, static_cast<std::uint16_t>(ec::msg::MsgType::kHello), 0xfffffff0u);
  cases.push_back({"oversized", {oversized.begin(), oversized.end()}});
  auto version = frame(9, static_cast<std::uint16_t>(ec::msg::MsgType::kHello), 0);
  cases.push_back({"wrong version", {version.begin(), version.end()}});
  auto unknown = frame(1, 0x4242, 0);
  cases.push_back({"unknown type", {unknown.begin(), unknown.end()}});
  auto crc = frame(1, static_cast<std::uint16_t>(ec::msg::MsgType::kHello), 0);
  crc[20] ^= std::byte{1};
  cases.push_back({"bad crc", {crc.begin(), crc.end()}});
  // A write before any handshake.
  auto early = frame(1, static_cast<std::uint16_t>(ec::msg::MsgType::kWriteShard), 0);
  cases.push_back({"no handshake", {early.begin(), early.end()}});

  for (const Case& c : cases) {
    RawSocket s(osd_->port());
    ASSERT_TRUE(s.connected());
    ASSERT_TRUE(s.Send(c.bytes.data(), c.bytes.size()));
    EXPECT_TRUE(s.ClosedByPeer(10000)) << c.name;
    // The daemon keeps serving the good client.
    EXPECT_TRUE(good->Ping({}, 16).ok()) << c.name;
  }
  // A truncated frame: half a header, then the peer goes away.
  {
    RawSocket s(osd_->port());
    ASSERT_TRUE(s.Send(early.data(), 20));
  }
  EXPECT_GE(WaitForMetric(*osd_, "ecstore_osd_protocol_errors_total{reason=\"bad_magic\"}", 1), 1);
  auto listed = good->List({"pg.1", "", 10});
  EXPECT_EQ(listed.status().code(), ENOENT) << "nothing may be stored by malformed traffic";
  const std::string log = osd_->Log();
  EXPECT_NE(log.find("bad magic"), std::string::npos) << log;
}

// Flips bytes of a shard in the device file while the daemon is down: the read reports data loss
// (distinct from other errors), the metric counts it, and deep fsck names the object.
TEST_F(EcOsdDaemon, BitRotIsReportedAsDataLoss) {
  auto client = Connect(*osd_);
  ASSERT_TRUE(client);
  const auto data = RandomBytes(64 * 1024, 42);
  ASSERT_TRUE(client->WriteShard(WriteReq("pg.7", "rotten", 1), {BufferOf(data)}).ok());
  client.reset();
  ASSERT_EQ(osd_->Terminate(), 0);

  std::vector<std::byte> device = ReadBytes(osd_->block());
  auto at = std::search(device.begin(), device.end(), data.begin() + 8192, data.begin() + 8256);
  ASSERT_NE(at, device.end()) << "shard bytes not found in the device file";
  const auto offset = static_cast<std::streamoff>(at - device.begin());
  // `--locate` names the same device bytes for the shard's third block (offline, as fsck).
  ProcessResult located = RunOsdTool([&] {
    auto a = osd_->BaseArgs();
    for (const char* arg : {"--locate", "pg.7", "rotten#1"}) a.push_back(arg);
    return a;
  }());
  ASSERT_EQ(located.exit_code, 0) << located.out << located.err;
  const auto where = nlohmann::json::parse(located.out, nullptr, false);
  ASSERT_TRUE(where.is_object()) << located.out;
  EXPECT_EQ(where["size"], data.size());
  EXPECT_EQ(where["device"], osd_->block().string());
  ASSERT_EQ(where["blocks"].size(), data.size() / 4096) << located.out;
  EXPECT_EQ(where["blocks"][2]["offset"], 8192);
  EXPECT_EQ(where["blocks"][2]["device_offset"], offset) << located.out;
  ProcessResult absent = RunOsdTool([&] {
    auto a = osd_->BaseArgs();
    for (const char* arg : {"--locate", "pg.7", "absent#1"}) a.push_back(arg);
    return a;
  }());
  EXPECT_EQ(absent.exit_code, 1);
  EXPECT_NE(absent.err.find("pg.7/absent#1"), std::string::npos) << absent.err;
  {
    std::fstream f(osd_->block(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(offset + 5);
    char flipped = static_cast<char>(static_cast<unsigned char>(data[8192 + 5]) ^ 0x40);
    f.write(&flipped, 1);
  }
  ProcessResult fsck = Fsck();
  EXPECT_EQ(fsck.exit_code, 1) << fsck.out;
  EXPECT_NE(fsck.out.find("rotten"), std::string::npos) << fsck.out;

  ASSERT_TRUE(osd_->Start());
  client = Connect(*osd_);
  ASSERT_TRUE(client);
  auto read = client->ReadShard({"pg.7", "rotten", 1, {{0, data.size()}}});
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(read.status().is_data_loss()) << read.status().message();
  // Another extent of the same shard, in an intact block, still reads.
  auto intact = client->ReadShard({"pg.7", "rotten", 1, {{0, 4096}}});
  ASSERT_TRUE(intact.ok()) << intact.status().message();
  EXPECT_EQ(Bytes(intact->extents[0]), std::vector<std::byte>(data.begin(), data.begin() + 4096));
  EXPECT_EQ(
      MetricValue(HttpGet(osd_->metrics_port(), "/metrics"), "ecstore_osd_checksum_errors_total"),
      1);
}

// SIGKILL while clients write: after a restart every acknowledged write reads back intact, and
// a write that was not acknowledged is either absent or whole.
TEST_F(EcOsdDaemon, SigkillKeepsEveryAcknowledgedWrite) {
  constexpr int kWriters = 3;
  constexpr std::size_t kSize = 12 * 1024;
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::map<std::string, unsigned> acked;  // object -> seed
  std::map<std::string, unsigned> sent;
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; ++t) {
    writers.emplace_back([&, t] {
      auto client = Connect(*osd_);
      if (!client) return;
      for (unsigned i = 0; !stop.load(); ++i) {
        const std::string name = "w" + std::to_string(t) + "." + std::to_string(i);
        const unsigned seed = 1000 * static_cast<unsigned>(t) + i;
        {
          std::lock_guard l(mu);
          sent[name] = seed;
        }
        Status s =
            client->WriteShard(WriteReq("pg.k", name, 0), {BufferOf(RandomBytes(kSize, seed))});
        if (!s.ok()) break;  // the daemon is gone
        std::lock_guard l(mu);
        acked[name] = seed;
      }
    });
  }
  // Let some writes be acknowledged, then pull the plug mid-stream.
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard l(mu);
      if (acked.size() >= 60) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(osd_->Kill(), 128 + SIGKILL);
  stop = true;
  for (auto& w : writers) w.join();
  ASSERT_GE(acked.size(), 10u);

  ProcessResult fsck = Fsck();
  EXPECT_EQ(fsck.exit_code, 0) << fsck.out << fsck.err;
  ASSERT_TRUE(osd_->Start());
  auto client = Connect(*osd_);
  ASSERT_TRUE(client);
  for (const auto& [name, seed] : sent) {
    auto got = client->ReadShard({"pg.k", name, 0, {{0, kSize}}});
    if (acked.count(name) != 0) {
      ASSERT_TRUE(got.ok()) << name << ": " << got.status().message();
      EXPECT_EQ(Bytes(got->extents[0]), RandomBytes(kSize, seed)) << name;
    } else if (got.ok()) {
      EXPECT_EQ(Bytes(got->extents[0]), RandomBytes(kSize, seed)) << name << " (unacknowledged)";
    } else {
      EXPECT_EQ(got.status().code(), ENOENT) << name << ": " << got.status().message();
    }
  }
}

// The log file receives lines while the daemon runs (within about a second), not only at exit,
// and what reached it survives a SIGKILL.
TEST_F(EcOsdDaemon, LogLinesReachTheFileWhileRunning) {
  const auto t0 = std::chrono::steady_clock::now();
  while (osd_->LogFile().find("serving on") == std::string::npos &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto waited = std::chrono::steady_clock::now() - t0;
  const std::string log = osd_->LogFile();
  ASSERT_NE(log.find("serving on"), std::string::npos) << log;
  EXPECT_LT(waited, std::chrono::seconds(3));
  EXPECT_NE(log.find("listening on"), std::string::npos) << log;
  EXPECT_EQ(osd_->Kill(), 128 + SIGKILL);
  EXPECT_NE(osd_->LogFile().find("serving on"), std::string::npos);
}

// SIGTERM with requests in flight: the daemon answers them before it exits (exit code 0).
TEST_F(EcOsdDaemon, SigtermFinishesInFlightWork) {
  auto client = Connect(*osd_);
  ASSERT_TRUE(client);
  constexpr int kWrites = 64;
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  std::vector<std::string> acked;
  for (int i = 0; i < kWrites; ++i) {
    std::string name = "t" + std::to_string(i);
    client->WriteShardAsync(WriteReq("pg.t", name, 0), {BufferOf(RandomBytes(65536, 500 + i))},
                            [&, name](Status s) {
                              std::lock_guard l(mu);
                              ++done;
                              if (s.ok()) acked.push_back(name);
                              cv.notify_all();
                            });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(osd_->Terminate(), 0) << osd_->Log();
  {
    std::unique_lock l(mu);
    ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(60), [&] { return done == kWrites; }));
  }
  client.reset();
  ASSERT_TRUE(osd_->Start());
  client = Connect(*osd_);
  ASSERT_TRUE(client);
  for (const std::string& name : acked) {
    auto got = client->ReadShard({"pg.t", name, 0, {{0, 65536}}});
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().message();
    const int i = std::stoi(name.substr(1));
    EXPECT_EQ(Bytes(got->extents[0]), RandomBytes(65536, 500 + static_cast<unsigned>(i)));
  }
}

}  // namespace
}  // namespace ectest
