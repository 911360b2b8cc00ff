#include "tests/cluster/cluster_fixture.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <thread>

#include "cluster/map/object_locator.h"
#include "cluster/map/pg_stats.h"

namespace ectest {

using ec::cluster::ClusterMap;
using ec::cluster::MapChange;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::vector<std::byte> ToVector(const ec::Buffer& b) {
  return std::vector<std::byte>(b.data(), b.data() + b.size());
}

LocalCluster::LocalCluster(LocalClusterOptions o) : options(std::move(o)) {
  const ec::Status started = etcd.Start();
  EXPECT_TRUE(started.ok()) << started.ToString();
  client = std::make_unique<ec::etcd::Client>(etcd.client_options());
  store = std::make_unique<ec::cluster::MapStore>(client.get());
  for (int id = 0; id < options.osds; ++id) {
    const auto d = dir.path() / ("osd" + std::to_string(id));
    std::filesystem::create_directories(d);
    osds.push_back(std::make_unique<OsdProcess>(d, id));
    EXPECT_EQ(osds.back()->Mkfs({"--set", "bluestore_block_size=256M"}).exit_code, 0);
    EXPECT_TRUE(osds.back()->Start(Args(id)));
  }
  for (const PoolSpec& pool : options.pools) AddPool(pool);
  ec::cluster::client::ClientOptions co;
  co.etcd_endpoints = Endpoint();
  co.op_timeout = seconds(40);
  co.attempt_timeout = seconds(5);
  auto r = ec::cluster::client::Rados::Connect(co);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) rados = std::move(r).value();
}

std::string LocalCluster::Endpoint() const {
  return "http://127.0.0.1:" + std::to_string(etcd.endpoint().port);
}

std::vector<std::string> LocalCluster::Args(int id) const {
  std::vector<std::string> args = {
      "--set", "etcd_endpoints=" + Endpoint(),
      "--set", "osd_heartbeat_grace=" + std::to_string(options.grace_seconds) + "s",
      "--set", "mon_osd_down_out_interval=0",
      "--set", "osd_subop_timeout=3s",
      "--set", "osd_min_size_wait=3s",
      "--set", "osd_mon_report_interval=500ms",
      "--set", "host=h" + std::to_string(id)};
  for (const std::string& s : options.osd_options) {
    args.push_back("--set");
    args.push_back(s);
  }
  return args;
}

int LocalCluster::AddOsd() {
  const int id = static_cast<int>(osds.size());
  const auto d = dir.path() / ("osd" + std::to_string(id));
  std::filesystem::create_directories(d);
  osds.push_back(std::make_unique<OsdProcess>(d, id));
  if (osds.back()->Mkfs({"--set", "bluestore_block_size=256M"}).exit_code != 0 ||
      !osds.back()->Start(Args(id)) || !WaitUp(id, true, seconds(10))) {
    ADD_FAILURE() << "osd." << id << " did not come up";
    return -1;
  }
  return id;
}

void LocalCluster::AddPool(const PoolSpec& spec) {
  ec::cluster::EcProfile p{spec.name, spec.profile};
  ec::cluster::Pool pool;
  pool.name = spec.name;
  pool.profile = spec.name;
  pool.pg_num = spec.pg_num;
  pool.stripe_unit = spec.stripe_unit;
  pool.min_size = std::stoi(spec.profile.at("k"));
  auto s = store->Apply({MapChange::PutProfile(p), MapChange::PutPool(pool)});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
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

bool LocalCluster::WaitUp(int id, bool up, seconds limit) const {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    ClusterMap m = Map();
    auto it = m.osds.find(id);
    if (it != m.osds.end() && it->second.up == up) return true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  return false;
}

void LocalCluster::Kill(int id) {
  EXPECT_EQ(osds[static_cast<std::size_t>(id)]->Kill(), 128 + 9);
}

void LocalCluster::Restart(int id) {
  EXPECT_TRUE(osds[static_cast<std::size_t>(id)]->Start(Args(id)));
  EXPECT_TRUE(WaitUp(id, true, seconds(10))) << "osd." << id;
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

}  // namespace ectest
