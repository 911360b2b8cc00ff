// Authentication on a real cluster (issue 32 items 1 and 2): six ec-osd with
// auth_cluster_required = cephx, the auth database in etcd, the real ec-admin and ec-rados.
// Pool I/O works (the client's and the OSDs' own connections authenticated, every frame signed);
// a client with caps for another pool, one with a wrong key and one the database does not know
// are refused with EACCES and a clear message, and the OSDs count each refusal; a client's shard
// write (an OSD's sub-operation, through ec-osd-client) is refused; `auth rm` closes
// the door to new connections; the OSDs' heartbeats authenticate, so none is reported failed or
// marked down; an OSD without its key does not start. About 7 s.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/cluster/cluster_fixture.h"

namespace ectest {
namespace {

using std::chrono::seconds;

constexpr int kEaccess = 13;  // EACCES, ec-rados's exit status for it

ProcessResult Admin(LocalCluster& c, std::vector<std::string> args) {
  args.insert(args.begin(), {"-c", c.ToolConf()});
  return RunProgram(EC_ADMIN_PATH, args);
}

ProcessResult Rados(LocalCluster& c, const std::string& id, const std::string& pool,
                    std::vector<std::string> args) {
  args.insert(args.begin(), {"-c", c.ToolConf(), "--id", id, "-p", pool});
  return RunProgram(EC_RADOS_PATH, args);
}

// `ec-admin auth get-or-create ENTITY CAPS...` saved as the entity's keyring, as an operator
// does.
void CreateKeyring(LocalCluster& c, const std::string& entity, std::vector<std::string> caps) {
  std::vector<std::string> args = {"auth", "get-or-create", entity};
  args.insert(args.end(), caps.begin(), caps.end());
  const ProcessResult r = Admin(c, args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out.rfind("[" + entity + "]\n\tkey = ", 0), 0u) << r.out;
  WriteText(c.KeyringPath(entity), r.out);
}

// The OSDs' counter `sample` summed, once it reaches `at_least` (the OSDs refresh their messenger
// counters on /metrics once a second), or its value after 5 s.
std::uint64_t WaitMetric(const LocalCluster& c, const std::string& sample, std::uint64_t at_least) {
  std::uint64_t v = 0;
  for (int i = 0; i < 50; ++i) {
    v = c.MetricSum(sample);
    if (v >= at_least) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return v;
}

std::string RefusalSample(const std::string& reason) {
  return "ecstore_osd_auth_refusals_total{reason=\"" + reason + "\"}";
}

std::uint64_t Refusals(const LocalCluster& c, const std::string& reason, std::uint64_t at_least) {
  return WaitMetric(c, RefusalSample(reason), at_least);
}

TEST(AuthCluster, IoWorksWithAuthAndEveryRefusalIsCounted) {
  LocalClusterOptions o;
  o.osds = 6;
  o.auth = true;
  o.pools = {{"rs", RsProfile(), 4096, 8}, {"other", RsProfile(), 4096, 8}};
  LocalCluster c(o);
  ASSERT_TRUE(c.Whole());
  for (int id = 0; id < o.osds; ++id) ASSERT_TRUE(c.WaitUp(id, true, seconds(10))) << id;
  const auto all_up = std::chrono::steady_clock::now();

  // I/O through the client library with auth on: the client's connections and the primaries'
  // sub-operations to the other OSDs are all authenticated.
  auto io = c.Pool("rs");
  std::vector<std::byte> data(64 * 1024);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 13 + 5);
  ASSERT_TRUE(io.WriteFull("obj", data).ok());
  auto back = io.Read("obj");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ToVector(back->data), data);
  ASSERT_TRUE(io.Write("obj", std::span(data).first(4096), 8192).ok());
  EXPECT_GE(WaitMetric(c, "ecstore_osd_connections_authenticated_total", 6), 6u);
  EXPECT_EQ(c.MetricSum("ecstore_osd_protocol_errors_total{reason=\"bad_mac\"}"), 0u);

  // The keys as ec-admin shows them: every OSD and client.admin, Ceph's layout.
  const ProcessResult ls = Admin(c, {"auth", "ls"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  for (const char* e : {"client.admin\n\tkey: ", "osd.0\n\tkey: ", "osd.5\n\tkey: "}) {
    EXPECT_NE(ls.out.find(e), std::string::npos) << ls.out;
  }
  EXPECT_NE(ls.out.find("\tcaps: [osd] allow *\n"), std::string::npos);

  // A client whose caps name another pool: its own pool works, the other is EACCES.
  CreateKeyring(c, "client.other", {"osd", "allow rw pool=other"});
  const std::string file = (c.dir.path() / "payload").string();
  WriteText(file, std::string(4096, 'x'));
  const ProcessResult mine = Rados(c, "other", "other", {"put", "o", file});
  EXPECT_EQ(mine.exit_code, 0) << mine.err;
  const std::uint64_t caps_before = c.MetricSum(RefusalSample("caps"));
  const ProcessResult theirs = Rados(c, "other", "rs", {"put", "o", file});
  EXPECT_EQ(theirs.exit_code, kEaccess) << theirs.err;
  EXPECT_NE(theirs.err.find("permission denied: client.other may not write pool 'rs'"),
            std::string::npos)
      << theirs.err;
  const ProcessResult read = Rados(c, "other", "rs", {"stat", "obj"});
  EXPECT_EQ(read.exit_code, kEaccess) << read.err;
  EXPECT_GE(Refusals(c, "caps", caps_before + 2), caps_before + 2);
  // What the primary refused was not written.
  EXPECT_EQ(io.Stat("o").status().code(), ENOENT);

  // A client with a wrong key: the entity exists, its keyring file holds another key.
  CreateKeyring(c, "client.wrong", {"osd", "allow *"});
  ec::msg::auth::Keyring forged;
  forged.entries["client.wrong"] = {*ec::msg::auth::CryptoKey::Generate(), {}};
  ASSERT_TRUE(forged.Save(c.KeyringPath("client.wrong")).ok());
  const ProcessResult wrong = Rados(c, "wrong", "rs", {"stat", "obj"});
  EXPECT_EQ(wrong.exit_code, kEaccess) << wrong.err;
  EXPECT_NE(wrong.err.find("its proof does not match its key"), std::string::npos) << wrong.err;
  EXPECT_GE(Refusals(c, "bad_proof", 1), 1u);

  // A client the database does not know (its key made by hand).
  forged.entries.clear();
  forged.entries["client.ghost"] = {*ec::msg::auth::CryptoKey::Generate(), {}};
  ASSERT_TRUE(forged.Save(c.KeyringPath("client.ghost")).ok());
  const ProcessResult ghost = Rados(c, "ghost", "rs", {"stat", "obj"});
  EXPECT_EQ(ghost.exit_code, kEaccess) << ghost.err;
  EXPECT_NE(ghost.err.find("no key for entity 'client.ghost'"), std::string::npos) << ghost.err;
  const std::uint64_t unknown = Refusals(c, "unknown_entity", 1);
  EXPECT_GE(unknown, 1u);

  // `auth rm`: the OSDs see it within a moment and refuse the entity's new connections.
  const ProcessResult rm = Admin(c, {"auth", "rm", "client.other"});
  EXPECT_EQ(rm.exit_code, 0) << rm.err;
  EXPECT_EQ(rm.err, "updated\n");
  ProcessResult after;
  for (int i = 0; i < 30; ++i) {
    after = Rados(c, "other", "other", {"stat", "o"});
    if (after.exit_code == kEaccess) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(after.exit_code, kEaccess) << after.err;
  EXPECT_GT(Refusals(c, "unknown_entity", unknown + 1), unknown);

  // Shard operations are OSDs' sub-operations: ec-osd-client as client.admin is refused (the
  // connection is authenticated, the request is not an OSD's) and writes nothing; as osd.0 it
  // writes and reads (a collection of its own, outside every pool).
  const std::string osd0 = "127.0.0.1:" + std::to_string(c.osds[0]->port());
  const std::string osd0_ring = (c.dir.path() / "osd0" / "keyring").string();
  const auto shard_tool = [&](const std::string& ring, const std::string& name,
                              std::vector<std::string> args) {
    args.insert(args.begin(), {"--osd", osd0, "--keyring", ring, "--name", name});
    return RunProgram(EC_OSD_CLIENT_PATH, args);
  };
  const std::uint64_t not_osd = c.MetricSum(RefusalSample("not_osd"));
  const ProcessResult as_client = shard_tool(c.KeyringPath("client.admin"), "client.admin",
                                             {"put", "authtest", "o", "0", file});
  EXPECT_EQ(as_client.exit_code, 1) << as_client.err;
  EXPECT_NE(as_client.err.find("is an OSD's request and client.admin is not an OSD"),
            std::string::npos)
      << as_client.err;
  EXPECT_GE(Refusals(c, "not_osd", not_osd + 1), not_osd + 1);
  EXPECT_NE(shard_tool(osd0_ring, "osd.0", {"stat", "authtest", "o", "0"}).exit_code, 0);
  const ProcessResult as_osd = shard_tool(osd0_ring, "osd.0", {"put", "authtest", "o", "0", file});
  EXPECT_EQ(as_osd.exit_code, 0) << as_osd.err;
  const ProcessResult stat = shard_tool(osd0_ring, "osd.0", {"stat", "authtest", "o", "0"});
  EXPECT_EQ(stat.exit_code, 0) << stat.err;
  EXPECT_NE(stat.out.find("\"size\":4096"), std::string::npos) << stat.out;

  // The admin's client still works, and no OSD refused one of its own.
  EXPECT_TRUE(io.Read("obj").ok());
  EXPECT_EQ(c.MetricSum(RefusalSample("not_osd")), not_osd + 1);
  EXPECT_EQ(c.MetricSum(RefusalSample("no_auth")), 0u);

  // The heartbeats authenticate as osd.N: after three graces of pings between every pair, no
  // peer is failing, no OSD reported another and every OSD is still up (an OSD refused its
  // pings would see its peers silent and report them, and the monitor would mark them down).
  std::this_thread::sleep_until(all_up + 3 * seconds(o.grace_seconds));
  EXPECT_EQ(c.MetricSum("ecstore_osd_heartbeat_peers"),
            static_cast<std::uint64_t>(o.osds * (o.osds - 1)));
  EXPECT_EQ(c.MetricSum("ecstore_osd_heartbeat_failing_peers"), 0u);
  EXPECT_EQ(c.MetricSum("ecstore_osd_failure_reports_total"), 0u);
  const ec::cluster::ClusterMap map = c.Map();
  for (int id = 0; id < o.osds; ++id) {
    const auto it = map.osds.find(id);
    ASSERT_NE(it, map.osds.end()) << id;
    EXPECT_TRUE(it->second.up) << c.DescribeOsds();
  }

  // An OSD whose keyring has no key of its own does not start, and says why.
  const int id = static_cast<int>(c.osds.size());
  std::filesystem::create_directories(c.dir.path() / "osd_nokey");
  OsdProcess extra(c.dir.path() / "osd_nokey", id);
  const ProcessResult mkfs = extra.Mkfs({"--set", "bluestore_block_size=64M"});
  ASSERT_EQ(mkfs.exit_code, 0) << mkfs.err;
  std::vector<std::string> args = extra.BaseArgs();
  for (const std::string& a : c.Args(id)) args.push_back(a);
  args.push_back("--set");
  args.push_back("keyring=" + c.KeyringPath("client.admin"));
  const ProcessResult nokey = RunProgram(EC_OSD_PATH, args);
  EXPECT_NE(nokey.exit_code, 0);
  EXPECT_NE((nokey.out + nokey.err + extra.Log()).find("no [osd." + std::to_string(id) + "] key"),
            std::string::npos)
      << nokey.err;
}

}  // namespace
}  // namespace ectest
