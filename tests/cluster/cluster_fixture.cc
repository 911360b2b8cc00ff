#include "tests/cluster/cluster_fixture.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "cluster/auth/auth_db.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/pg_stats.h"
#include "ec/plugin.h"
#include "ec/stripe_layout.h"
#include "osd/store/store_test_support.h"

namespace ectest {

using ec::Status;
using ec::cluster::ClusterMap;
using ec::cluster::MapChange;
using std::chrono::milliseconds;
using std::chrono::seconds;

ec::Profile ClayProfile(int k, int m, int d) {
  return {{"plugin", "clay"},
          {"k", std::to_string(k)},
          {"m", std::to_string(m)},
          {"d", std::to_string(d)},
          {"crush-failure-domain", "host"}};
}

ec::Profile RsProfile(int k, int m) {
  return {{"plugin", "isa"},
          {"k", std::to_string(k)},
          {"m", std::to_string(m)},
          {"technique", "reed_sol_van"},
          {"crush-failure-domain", "host"}};
}

std::vector<PoolSpec> ClayAndRsPools(std::uint32_t pg_num) {
  return {{"clay", ClayProfile(), 4096, pg_num}, {"rs", RsProfile(), 4096, pg_num}};
}

PoolSpec ReplicatedPool(const std::string& name, int size, std::uint32_t pg_num) {
  PoolSpec spec;
  spec.name = name;
  spec.pg_num = pg_num;
  spec.replicated_size = size;
  return spec;
}

std::vector<std::byte> ToVector(const ec::Buffer& b) {
  return std::vector<std::byte>(b.data(), b.data() + b.size());
}

std::vector<std::byte> ShardBytesOn(ec::msg::OsdClient& client, const std::string& collection,
                                    const std::string& object, std::uint32_t shard,
                                    std::uint64_t size) {
  if (size == 0) return {};
  ec::msg::ReadShardRequest r;
  r.collection = collection;
  r.object = object;
  r.shard = shard;
  r.extents.push_back({0, size});
  auto got = client.ReadShard(std::move(r));
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  if (!got.ok()) return {};
  return ToVector(got->extents.at(0));
}

std::vector<std::byte> WriteFullWithAKill(LocalCluster& cluster, ec::cluster::client::IoCtx& io,
                                          const std::string& name, int round, std::size_t size,
                                          std::mt19937_64& rng, std::chrono::microseconds max_delay,
                                          bool* ended_new, std::size_t before_size) {
  *ended_new = false;
  const auto before =
      ec::osd::store::testing::RandomBytes(rng, before_size == 0 ? size : before_size);
  EXPECT_TRUE(io.WriteFull(name, before).ok()) << name;
  auto loc = cluster.Locate(io.pool_id(), name);
  EXPECT_TRUE(loc.ok()) << loc.status().ToString();
  if (!loc.ok() || loc->acting.size() < 2) return {};
  const int victim =
      round % 2 == 0 ? loc->primary : loc->acting[1 + rng() % (loc->acting.size() - 1)];
  const auto after = ec::osd::store::testing::RandomBytes(rng, size);
  auto write = io.WriteFullAsync(name, after);
  std::this_thread::sleep_for(std::chrono::microseconds(rng() % max_delay.count()));
  cluster.Kill(victim);
  auto result = write.get();
  cluster.Restart(victim);
  auto got = io.Read(name);
  EXPECT_TRUE(got.ok()) << "round " << round << ": " << got.status().ToString();
  if (!got.ok()) return {};
  std::vector<std::byte> bytes = ToVector(got->data);
  if (result.ok()) {
    EXPECT_TRUE(bytes == after) << "an acknowledged write was lost (round " << round << ")";
  } else {
    EXPECT_TRUE(bytes == before || bytes == after)
        << "round " << round << ": a mix of the old and the new object after "
        << result.status().ToString();
  }
  *ended_new = bytes == after;
  return bytes;
}

std::string LastLines(const std::string& text, int lines) {
  std::size_t pos = text.size();
  for (int i = 0; i <= lines && pos != std::string::npos && pos > 0; ++i) {
    pos = text.rfind('\n', pos - 1);
  }
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

ProcessResult RunPoolTool(const std::string& program, const std::string& conf,
                          const std::string& pool, std::vector<std::string> args) {
  args.insert(args.begin(), {"-c", conf, "-p", pool});
  return RunProgram(program, args);
}

ProcessResult RunAdminLine(const std::string& program, const std::string& conf,
                           const std::string& line) {
  std::vector<std::string> args = {"-c", conf};
  for (std::size_t at = 0; at < line.size();) {
    const std::size_t end = std::min(line.find(' ', at), line.size());
    args.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  return RunProgram(program, args);
}

ProcessResult PoolToolShell(const std::string& program, const std::string& conf,
                            const std::string& pool, const std::string& line) {
  return RunProgram("/bin/sh",
                    {"-c", "R='" + program + " -c " + conf + " -p " + pool + "'; " + line});
}

LocalCluster::LocalCluster(LocalClusterOptions o) : options(std::move(o)) {
  const Status started = etcd.Start(options.etcd_members);
  EXPECT_TRUE(started.ok()) << started.ToString();
  client = std::make_unique<ec::etcd::Client>(etcd.client_options());
  store = std::make_unique<ec::cluster::MapStore>(client.get());
  if (options.auth) SetUpAuth();
  for (int id = 0; id < options.osds; ++id) {
    if (MakeOsd(id)) {
      EXPECT_TRUE(osds.back()->Start(Args(id)));
    }
  }
  for (const PoolSpec& pool : options.pools) AddPool(pool);
  ec::cluster::client::ClientOptions co;
  co.etcd_endpoints = Endpoints();
  co.op_timeout = seconds(40);
  co.attempt_timeout = seconds(5);
  if (options.auth) {
    co.auth = ec::msg::auth::AuthMode::kCephx;
    co.key = admin_key;
  }
  auto r = ec::cluster::client::Rados::Connect(co);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) rados = std::move(r).value();
}

::testing::AssertionResult LocalCluster::Whole() const {
  for (int i = 0; i < etcd.members(); ++i) {
    if (!etcd.member_running(i)) {
      return ::testing::AssertionFailure() << "etcd member " << i << " is not running";
    }
  }
  if (!etcd.running()) return ::testing::AssertionFailure() << "etcd is not running";
  if (rados == nullptr) return ::testing::AssertionFailure() << "the client is not connected";
  for (std::size_t id = 0; id < osds.size(); ++id) {
    if (!osds[id]->running()) return ::testing::AssertionFailure() << "osd." << id << " is down";
  }
  if (osds.size() < static_cast<std::size_t>(options.osds)) {
    return ::testing::AssertionFailure() << osds.size() << " of " << options.osds << " OSDs made";
  }
  return ::testing::AssertionSuccess();
}

std::string LocalCluster::Endpoints() const {
  return etcd.endpoints_text();
}

std::string LocalCluster::ToolConf() {
  if (tool_conf_.empty()) {
    tool_conf_ = (dir / "ecstore.conf").string();
    std::string text = "[global]\netcd_endpoints = " + Endpoints() + "\netcd_op_timeout = 5s\n";
    if (options.auth) {
      text +=
          "auth_cluster_required = cephx\nkeyring = " + (dir.path() / "$name.keyring").string() +
          "\n";
    }
    WriteText(tool_conf_, text);
  }
  return tool_conf_;
}

std::string LocalCluster::KeyringPath(const std::string& entity) const {
  return (dir.path() / (entity + ".keyring")).string();
}

namespace {

// A record of the auth database, written as `ec-admin auth get-or-create` would.
void PutAuthRecord(const ec::etcd::Client& client, const ec::msg::auth::CryptoKey& mon,
                   const std::string& entity, const ec::msg::auth::CryptoKey& key,
                   std::map<std::string, std::string> caps) {
  auto db_key = ec::cluster::AuthDbKey::From(mon);
  ASSERT_TRUE(db_key.ok());
  bool created = false;
  auto put = ec::cluster::CreateAuthEntityIfAbsent(
      client, ec::cluster::kDefaultMapPrefix, *db_key,
      ec::cluster::AuthEntity{entity, key, std::move(caps)}, &created);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
}

ec::msg::auth::CryptoKey NewAuthKey() {
  auto k = ec::msg::auth::CryptoKey::Generate();
  EXPECT_TRUE(k.ok());
  return k.ok() ? *k : ec::msg::auth::CryptoKey{};
}

}  // namespace

void LocalCluster::SetUpAuth() {
  mon_key = NewAuthKey();
  admin_key = NewAuthKey();
  const std::map<std::string, std::string> admin_caps = {{"mon", "allow *"}, {"osd", "allow *"}};
  ec::msg::auth::Keyring ring;
  ring.entries["mon."] = {mon_key, {{"mon", "allow *"}}};
  ring.entries["client.admin"] = {admin_key, admin_caps};
  const Status saved = ring.Save(KeyringPath("client.admin"));
  EXPECT_TRUE(saved.ok()) << saved.ToString();
  PutAuthRecord(*client, mon_key, "client.admin", admin_key, admin_caps);
}

void LocalCluster::MakeOsdKey(int id) {
  const std::string entity = "osd." + std::to_string(id);
  const ec::msg::auth::CryptoKey key = NewAuthKey();
  const std::map<std::string, std::string> caps = {{"mon", "allow profile osd"},
                                                   {"osd", "allow *"}};
  ec::msg::auth::Keyring ring;
  ring.entries["mon."] = {mon_key, {{"mon", "allow *"}}};
  ring.entries[entity] = {key, caps};
  const Status saved = ring.Save((dir.path() / ("osd" + std::to_string(id)) / "keyring").string());
  EXPECT_TRUE(saved.ok()) << saved.ToString();
  // A store made again under a taken id keeps the id's record (as Ceph's keys outlive a mkfs).
  auto db_key = ec::cluster::AuthDbKey::From(mon_key);
  ASSERT_TRUE(db_key.ok());
  (void)ec::cluster::RemoveAuthEntity(*client, ec::cluster::kDefaultMapPrefix, entity);
  PutAuthRecord(*client, mon_key, entity, key, caps);
}

std::vector<std::string> LocalCluster::Args(int id) const {
  std::vector<std::string> args = {
      "--set", "etcd_endpoints=" + Endpoints(), "--set",
      "osd_heartbeat_grace=" + std::to_string(options.grace_seconds) + "s"};
  if (options.down_out_seconds >= 0) {
    args.push_back("--set");
    args.push_back("mon_osd_down_out_interval=" + std::to_string(options.down_out_seconds));
  }
  if (options.fast_failure) {
    for (const char* s :
         {"osd_subop_timeout=3s", "osd_min_size_wait=3s", "osd_mon_report_interval=500ms"}) {
      args.push_back("--set");
      args.push_back(s);
    }
  }
  args.push_back("--set");
  args.push_back("host=h" + std::to_string(id));
  if (options.auth) {
    args.push_back("--set");
    args.push_back("auth_cluster_required=cephx");
    args.push_back("--set");
    args.push_back("keyring=" + (dir.path() / ("osd" + std::to_string(id)) / "keyring").string());
  }
  for (const std::string& s : options.osd_options) {
    args.push_back("--set");
    args.push_back(s);
  }
  // For chasing a failure: ECSTORE_TEST_OSD_SET="log_level=debug osd_subop_timeout=1s" adds
  // those options (space-separated) to every OSD, after the test's own. At log_level debug every
  // shard change and every write's outcome is logged (osd/shard/shard_service.cc,
  // osd/pg/object_io_write.cc); with ECSTORE_KEEP_TEST_DIRS=1 the logs outlive the test.
  if (const char* extra = std::getenv("ECSTORE_TEST_OSD_SET"); extra != nullptr) {
    std::istringstream items(extra);
    for (std::string item; items >> item;) {
      args.push_back("--set");
      args.push_back(item);
    }
  }
  return args;
}

ProcessResult LocalCluster::Mkfs(int id) {
  std::vector<std::string> extra;
  if (!options.block_size.empty()) extra = {"--set", "bluestore_block_size=" + options.block_size};
  return osds[static_cast<std::size_t>(id)]->Mkfs(extra);
}

bool LocalCluster::MakeOsd(int id) {
  const auto d = dir.path() / ("osd" + std::to_string(id));
  std::filesystem::create_directories(d);
  osds.push_back(std::make_unique<OsdProcess>(d, id));
  if (options.auth) MakeOsdKey(id);
  const ProcessResult mkfs = Mkfs(id);
  EXPECT_EQ(mkfs.exit_code, 0) << "mkfs of osd." << id << ": " << mkfs.err;
  return mkfs.exit_code == 0;
}

int LocalCluster::AddOsd() {
  const int id = static_cast<int>(osds.size());
  if (!MakeOsd(id) || !osds.back()->Start(Args(id)) || !WaitUp(id, true, seconds(10))) {
    ADD_FAILURE() << "osd." << id << " did not come up";
    return -1;
  }
  return id;
}

void LocalCluster::AddPool(const PoolSpec& spec) {
  if (spec.replicated_size > 0) {
    ec::cluster::Pool pool;
    pool.name = spec.name;
    pool.type = ec::cluster::PoolType::kReplicated;
    pool.size = spec.replicated_size;
    pool.pg_num = spec.pg_num;
    pool.stripe_unit = spec.stripe_unit;
    pool.min_size =
        spec.min_size > 0 ? spec.min_size : spec.replicated_size - spec.replicated_size / 2;
    pool.data_chunks = {0};
    auto s = store->Apply({MapChange::PutPool(pool)});
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return;
  }
  ec::cluster::EcProfile p{spec.name, spec.profile};
  ec::cluster::Pool pool;
  pool.name = spec.name;
  pool.profile = spec.name;
  pool.pg_num = spec.pg_num;
  pool.stripe_unit = spec.stripe_unit;
  pool.min_size = std::stoi(spec.profile.at("k"));
  pool.ec_optimizations = spec.ec_optimizations;
  pool.ec_min_object_size = spec.ec_min_object_size;
  if (spec.record_data_chunks) {
    // As `ec-admin osd pool create` records them (clients' direct reads need them).
    ec::Profile profile = spec.profile;
    ec::ErasureCodeInterfaceRef code;
    const ec::Status made = ec::PluginRegistry::instance().factory(
        profile.at("plugin"), ec::PluginRegistry::default_directory(), profile, &code);
    EXPECT_TRUE(made.ok()) << made.ToString();
    if (made.ok()) {
      auto layout = ec::StripeLayout::Make(*code, spec.stripe_unit);
      EXPECT_TRUE(layout.ok()) << layout.status().ToString();
      if (layout.ok()) pool.data_chunks = layout->data_ids();
    }
  }
  auto s = store->Apply({MapChange::PutProfile(p), MapChange::PutPool(pool)});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
}

ec::cluster::admin::StatusReport LocalCluster::ClusterStatus() const {
  auto stats = ec::cluster::LoadPgStats(*client, std::string(ec::cluster::kDefaultMapPrefix));
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  auto r = ec::cluster::admin::BuildStatusReport(
      Map(), "id", stats.ok() ? *stats : std::map<int, ec::cluster::PgStatsReport>{});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ec::cluster::admin::StatusReport{};
}

ClusterMap LocalCluster::Map() const {
  auto m = store->Load();
  return m.ok() ? *m : ClusterMap{};
}

std::string LocalCluster::DescribeOsds() const {
  const ClusterMap m = Map();
  std::string out = "epoch " + std::to_string(m.epoch) + ":";
  for (const auto& [id, osd] : m.osds) {
    out += " osd." + std::to_string(id) + (osd.up ? " up" : " down") + (osd.in ? " in," : " out,");
  }
  return out;
}

milliseconds LocalCluster::WaitForMap(const std::function<bool(const ClusterMap&)>& done,
                                      milliseconds limit) const {
  const auto start = Clock::now();
  while (Clock::now() - start < limit) {
    auto m = store->Load();
    if (m.ok() && done(*m)) {
      return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
    }
    std::this_thread::sleep_for(milliseconds(20));
  }
  return milliseconds(-1);
}

ec::Result<ec::cluster::PgLocation> LocalCluster::Locate(std::int64_t pool_id,
                                                         const std::string& object) const {
  auto locator = ec::cluster::ObjectLocator::Make(std::make_shared<const ClusterMap>(Map()));
  if (!locator.ok()) return locator.status();
  return (*locator)->LocateObject(pool_id, object);
}

bool LocalCluster::WaitUp(int id, bool up, seconds limit) const {
  const auto took = WaitForMap(
      [&](const ClusterMap& m) {
        auto it = m.osds.find(id);
        return it != m.osds.end() && it->second.up == up;
      },
      limit);
  return took.count() >= 0;
}

bool LocalCluster::Kill(int id) {
  const int code = osds[static_cast<std::size_t>(id)]->Kill();
  EXPECT_EQ(code, 128 + 9) << "kill -9 of osd." << id;
  return code == 128 + 9;
}

Status LocalCluster::StartOsd(int id, seconds limit) {
  OsdProcess& p = *osds[static_cast<std::size_t>(id)];
  if (!p.Start(Args(id))) {
    return Status::Error(
        EIO, fmt::format("osd.{} did not start again:\n{}", id, LastLines(p.Log(), 30)));
  }
  if (!WaitUp(id, true, limit)) {
    return Status::Error(ETIMEDOUT,
                         fmt::format("osd.{} started but not up in the map after {} s; {}", id,
                                     limit.count(), DescribeOsds()));
  }
  return Status::OK();
}

void LocalCluster::Restart(int id) {
  const Status s = StartOsd(id, seconds(10));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

ec::cluster::client::IoCtx LocalCluster::Pool(const std::string& name) {
  auto io = rados->OpenPool(name);
  EXPECT_TRUE(io.ok()) << io.status().ToString();
  return *io;
}

std::map<std::string, std::uint64_t> LocalCluster::PgStates() const {
  std::map<std::string, std::uint64_t> by_state;
  auto map = std::make_shared<const ClusterMap>(Map());
  auto stats = ec::cluster::LoadPgStats(*client, "/ecstore/");
  auto locator = ec::cluster::ObjectLocator::Make(map);
  if (!stats.ok() || !locator.ok()) return by_state;
  for (const auto& [pool_id, pool] : map->pools) {
    for (std::uint32_t pg = 0; pg < pool.pg_num; ++pg) {
      auto loc = (*locator)->LocatePg(pool_id, pg);
      if (!loc.ok()) continue;
      auto report = stats->find(loc->primary);
      std::string state = "(no report)";
      if (report != stats->end() && report->second.epoch == map->epoch) {
        auto st = report->second.pgs.find(loc->pgid);
        if (st != report->second.pgs.end()) state = st->second.state;
      }
      ++by_state[state];
    }
  }
  return by_state;
}

bool LocalCluster::WaitClean(seconds limit) const {
  const auto end = Clock::now() + limit;
  std::map<std::string, std::uint64_t> s;
  while (Clock::now() < end) {
    s = PgStates();
    if (s.size() == 1 && s.count("active+clean") != 0) return true;
    std::this_thread::sleep_for(milliseconds(200));
  }
  for (const auto& [name, n] : s) {
    std::printf("  %s: %llu pgs\n", name.c_str(), static_cast<unsigned long long>(n));
  }
  return false;
}

std::uint64_t LocalCluster::Metric(int id, const std::string& sample) const {
  const OsdProcess& osd = *osds[static_cast<std::size_t>(id)];
  if (!osd.running()) return 0;
  const double v = MetricValue(HttpGet(osd.metrics_port(), "/metrics"), sample);
  return v > 0 ? static_cast<std::uint64_t>(v) : 0;  // -1: not counted yet on that OSD
}

std::uint64_t LocalCluster::MetricSum(const std::string& sample) const {
  std::uint64_t sum = 0;
  for (std::size_t id = 0; id < osds.size(); ++id) sum += Metric(static_cast<int>(id), sample);
  return sum;
}

void ClusterTest::StartCluster(LocalClusterOptions options) {
  cluster_ = std::make_unique<LocalCluster>(std::move(options));
}

void ClusterTest::TearDownTestSuite() {
  cluster_.reset();
}

void ClusterTest::SetUp() {
  ASSERT_NE(cluster_, nullptr);
  ASSERT_TRUE(cluster_->Whole());
}

}  // namespace ectest
