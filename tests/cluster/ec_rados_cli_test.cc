// build/bin/ec-rados as a program against one real local cluster shared by every case of this
// file (etcd + six ec-osd processes on six simulated hosts, a k=4 m=2 isa pool made with
// ec-admin): put/get round trips compared byte for byte (also through stdin and stdout), stat,
// ls, rm then get failing with ENOENT, append, put --offset; bench write, seq and rand with their
// summaries (text, and JSON with rados bench's keys), no mismatches, and cleanup (also of every
// run under one name after several write runs); --max-objects, --latency-log and a SIGTERM ending
// a run early; list-inconsistent-obj on a scrub record put into etcd; the cluster exporter's page
// over HTTP and from ec-admin exporter; and the errors (unknown pool, missing object, bad numbers
// and flags, unknown commands), each exiting with its errno (ENOENT 2, EIO 5, EINVAL 22 for usage
// errors) and its message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "cluster/map/map_store.h"
#include "cluster/map/pool_geometry.h"
#include "cluster/map/scrub_record.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using ectest::ProcessResult;

constexpr int kOsds = 6;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// The cluster every case uses; made once, stopped (processes killed, folders removed) at the end
// even when a case fails.
class EcRadosCli : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = kOsds;
    o.grace_seconds = 3;
    o.down_out_seconds = 600;
    o.fast_failure = false;
    o.block_size.clear();
    StartCluster(std::move(o));
    ASSERT_TRUE(cluster_->Whole());
    conf_ = cluster_->ToolConf();
    for (const std::vector<std::string>& cmd :
         {std::vector<std::string>{"osd", "erasure-code-profile", "set", "rs", "k=4", "m=2",
                                   "plugin=isa", "crush-failure-domain=host"},
          std::vector<std::string>{"osd", "pool", "create", "p", "8", "8", "erasure", "rs"}}) {
      std::vector<std::string> args = {"-c", conf_};
      args.insert(args.end(), cmd.begin(), cmd.end());
      ProcessResult r = ectest::RunProgram(EC_ADMIN_PATH, args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }

  static ProcessResult Rados(std::vector<std::string> args) {
    return ectest::RunPoolTool(EC_RADOS_PATH, conf_, "p", std::move(args));
  }
  // A shell line with $R standing for ec-rados -c CONF -p p.
  static ProcessResult Shell(const std::string& line) {
    return ectest::PoolToolShell(EC_RADOS_PATH, conf_, "p", line);
  }
  static std::vector<std::string> Ls() {
    ProcessResult r = Rados({"ls"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> names = Lines(r.out);
    std::sort(names.begin(), names.end());
    return names;
  }
  static nlohmann::json Json(const ProcessResult& r) {
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }

  inline static std::string conf_;
  ectest::TempDir files_;
};

// Issue 30 item 2 end to end: `ec-admin osd pool set p ec_min_object_size` makes the OSDs keep
// smaller objects as copies; `stat -f json` says the form, the plain line stays rados's.
TEST_F(EcRadosCli, StatSaysTheFormOfSmallObjects) {
  auto admin = [&](std::vector<std::string> cmd) {
    cmd.insert(cmd.begin(), {"-c", conf_});
    return ectest::RunProgram(EC_ADMIN_PATH, cmd);
  };
  ProcessResult r = admin({"osd", "pool", "set", "p", "ec_min_object_size", "8192"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto small = files_ / "form-small.in";
  const auto big = files_ / "form-big.in";
  ectest::WriteBytes(small, ectest::RandomBytes(100, 301));
  ectest::WriteBytes(big, ectest::RandomBytes(20000, 302));
  // The OSDs take the option from the next map: a write may come first.
  std::string form;
  for (int i = 0; i < 50 && form != "replicas"; ++i) {
    ASSERT_EQ(Rados({"put", "form-obj", small.string()}).exit_code, 0);
    r = Rados({"-f", "json", "stat", "form-obj"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    form = Json(r).value("form", "");
    if (form != "replicas") std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(form, "replicas");
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["size"], 100);
  EXPECT_EQ(j["name"], "form-obj");
  EXPECT_EQ(j["pool"], "p");
  r = Rados({"stat", "form-obj"});
  EXPECT_EQ(r.out.rfind("p/form-obj mtime ", 0), 0u) << r.out;
  EXPECT_TRUE(r.out.ends_with(", size 100\n")) << r.out;
  ASSERT_EQ(Rados({"append", "form-obj", big.string()}).exit_code, 0);
  EXPECT_EQ(Json(Rados({"-f", "json", "stat", "form-obj"}))["form"], "erasure");
  EXPECT_EQ(Json(Rados({"-f", "json", "stat", "form-obj"}))["size"], 20100);
  ASSERT_EQ(Rados({"rm", "form-obj"}).exit_code, 0);
  r = admin({"osd", "pool", "set", "p", "ec_min_object_size", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(EcRadosCli, PutGetStatLsRoundTrip) {
  unsigned seed = 14;
  for (std::size_t size :
       {std::size_t{0}, std::size_t{1}, std::size_t{5000}, std::size_t{3} << 20}) {
    SCOPED_TRACE(size);
    const std::string name = "rt-" + std::to_string(size);
    const auto in = files_ / (name + ".in");
    const auto out = files_ / (name + ".out");
    const std::vector<std::byte> bytes = ectest::RandomBytes(size, seed++);
    ectest::WriteBytes(in, bytes);
    ProcessResult r = Rados({"put", name, in.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    r = Rados({"get", name, out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ectest::ReadBytes(out), bytes);
    r = Rados({"stat", name});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("p/" + name + " mtime ", 0), 0u) << r.out;
    EXPECT_TRUE(r.out.ends_with(", size " + std::to_string(size) + "\n")) << r.out;
    // Through stdin and stdout ("-").
    r = Shell("$R put " + name + "-stdin - < " + in.string() + " && $R get " + name +
              "-stdin - > " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ectest::ReadBytes(out), bytes);
  }
  const std::vector<std::string> names = Ls();
  for (const char* n : {"rt-0", "rt-1", "rt-5000", "rt-3145728", "rt-5000-stdin"}) {
    EXPECT_TRUE(std::find(names.begin(), names.end(), n) != names.end()) << n;
  }
}

// Capacity end to end (issue 29 item 3): the OSDs publish their devices' space and the client
// I/O they served; `ec-rados lspools|df`, `ec-admin df|osd df|-s` read them. The pool made first
// is pool 1, as Ceph's. The reports come every 500 ms (the fixture's osd_mon_report_interval):
// polled for at most 10 s.
TEST_F(EcRadosCli, CapacityEndToEnd) {
  constexpr std::size_t kSize = 64 << 10;
  const auto in = files_ / "cap.in";
  ectest::WriteBytes(in, ectest::RandomBytes(kSize, 99));
  for (int i = 0; i < 3; ++i) {
    ProcessResult r = Rados({"put", "cap-" + std::to_string(i), in.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ProcessResult r = Rados({"get", "cap-0", (files_ / "cap.out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ectest::RunProgram(EC_RADOS_PATH, {"-c", conf_, "lspools"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "p\n");

  nlohmann::json pool;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    r = Rados({"df", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    pool = Json(r)["pools"][0];
    if ((pool["num_objects"].get<std::uint64_t>() >= 3 &&
         pool["write_ops"].get<std::uint64_t>() >= 3 &&
         pool["read_ops"].get<std::uint64_t>() >= 1) ||
        std::chrono::steady_clock::now() > deadline) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(pool["name"], "p");
  EXPECT_EQ(pool["id"], 1);
  EXPECT_GE(pool["num_objects"].get<std::uint64_t>(), 3u);
  EXPECT_GE(pool["stored_data"].get<std::uint64_t>(), 3 * kSize);
  // k=4 m=2: raw = stored x 6/4.
  EXPECT_EQ(pool["size_bytes"].get<std::uint64_t>(),
            (pool["stored_data"].get<std::uint64_t>() * 6 + 3) / 4);
  EXPECT_GE(pool["write_ops"].get<std::uint64_t>(), 3u);
  EXPECT_GE(pool["write_bytes"].get<std::uint64_t>(), 3 * kSize);
  EXPECT_GE(pool["read_ops"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(pool["num_object_copies"].get<std::uint64_t>(),
            pool["num_objects"].get<std::uint64_t>() * 6);
  r = Rados({"df"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("POOL_NAME  ", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(r.out, "\ntotal_space      ")) << r.out;

  r = ectest::RunProgram(EC_ADMIN_PATH, {"-c", conf_, "df", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json df = Json(r);
  const std::uint64_t total = df["stats"]["total_bytes"].get<std::uint64_t>();
  const std::uint64_t avail = df["stats"]["total_avail_bytes"].get<std::uint64_t>();
  EXPECT_GT(total, 0u);
  EXPECT_GT(avail, 0u);
  EXPECT_EQ(df["stats"]["total_used_raw_bytes"].get<std::uint64_t>(), total - avail);
  ASSERT_EQ(df["pools"].size(), 1u);
  EXPECT_EQ(df["pools"][0]["id"], 1);
  const std::uint64_t max_avail = df["pools"][0]["stats"]["max_avail"].get<std::uint64_t>();
  EXPECT_GT(max_avail, 0u);
  EXPECT_LE(max_avail, avail * 4 / 6);  // at most the free space scaled by k/(k+m)

  r = ectest::RunProgram(EC_ADMIN_PATH, {"-c", conf_, "osd", "df", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json osd_df = Json(r);
  ASSERT_EQ(osd_df["nodes"].size(), static_cast<std::size_t>(kOsds));
  std::uint64_t pgs = 0;
  for (const nlohmann::json& n : osd_df["nodes"]) {
    EXPECT_GT(n["kb"].get<std::uint64_t>(), 0u) << n;
    EXPECT_GT(n["kb_used"].get<std::uint64_t>(), 0u) << n;  // the journal ring at least
    EXPECT_EQ(n["status"], "up");
    pgs += n["pgs"].get<std::uint64_t>();
  }
  EXPECT_EQ(pgs, 8u * 6);  // each of the 8 PGs on k+m OSDs

  r = ectest::RunProgram(EC_ADMIN_PATH, {"-c", conf_, "-s", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json pgmap = Json(r)["pgmap"];
  EXPECT_EQ(pgmap["bytes_total"].get<std::uint64_t>(), total);
  EXPECT_GE(pgmap["data_bytes"].get<std::uint64_t>(), 3 * kSize);
  for (const char* key : {"read_bytes_sec", "write_bytes_sec", "read_op_per_sec",
                          "write_op_per_sec", "num_objects_recovered", "num_bytes_recovered"}) {
    EXPECT_TRUE(pgmap.contains(key)) << key;
  }
  r = ectest::RunProgram(EC_ADMIN_PATH, {"-c", conf_, "-s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "    usage:   ")) << r.out;
}

// The cluster exporter (issue 29 item 5) as Prometheus would scrape it: every OSD's
// /metrics/cluster over HTTP, where only the elected monitor's has a page, with ceph-mgr's names:
// the health, every OSD up, the pool's metadata and the client writes just made; and the same
// families from `ec-admin exporter`.
TEST_F(EcRadosCli, ClusterExporterOverHttp) {
  const auto in = files_ / "exporter.in";
  ectest::WriteBytes(in, ectest::RandomBytes(8192, 5));
  for (int i = 0; i < 2; ++i) {
    ProcessResult r = Rados({"put", "exporter-" + std::to_string(i), in.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // The OSDs and PG primaries report every osd_mon_report_interval (5 s): wait until the writes
  // and the objects show.
  std::string page;
  int pages = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (true) {
    page.clear();
    pages = 0;
    for (const auto& osd : cluster_->osds) {
      int status = 0;
      const std::string body = ectest::HttpGet(osd->metrics_port(), "/metrics/cluster", &status);
      EXPECT_EQ(status, 200) << body;
      if (!body.empty()) {
        page = body;
        ++pages;
      }
    }
    double writes = 0;
    for (int id = 0; id < kOsds; ++id) {
      writes += std::max(0.0, ectest::MetricValue(page, "ceph_osd_op_w{ceph_daemon=\"osd." +
                                                            std::to_string(id) + "\"}"));
    }
    const double objects = ectest::MetricValue(page, "ceph_pool_objects{pool_id=\"1\"}");
    if ((pages == 1 && writes >= 2 && objects >= 2) ||
        std::chrono::steady_clock::now() > deadline) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_EQ(pages, 1) << "one elected monitor serves the page, the others an empty one";
  EXPECT_TRUE(Contains(page, "# TYPE ceph_health_status untyped\n")) << page;
  EXPECT_GE(ectest::MetricValue(page, "ceph_health_status"), 0);
  EXPECT_LE(ectest::MetricValue(page, "ceph_health_status"), 2);
  for (int id = 0; id < kOsds; ++id) {
    const std::string daemon = "{ceph_daemon=\"osd." + std::to_string(id) + "\"}";
    EXPECT_EQ(ectest::MetricValue(page, "ceph_osd_up" + daemon), 1) << id;
    EXPECT_EQ(ectest::MetricValue(page, "ceph_osd_in" + daemon), 1) << id;
  }
  EXPECT_EQ(ectest::MetricValue(page,
                                "ceph_pool_metadata{compression_mode=\"none\","
                                "description=\"ec:4+2\",name=\"p\",pool_id=\"1\","
                                "type=\"erasure\"}"),
            1)
      << page;
  EXPECT_EQ(ectest::MetricValue(page, "ceph_pg_total{pool_id=\"1\"}"), 8);
  EXPECT_GE(ectest::MetricValue(page, "ceph_pool_wr{pool_id=\"1\"}"), 2);
  EXPECT_GE(ectest::MetricValue(page, "ceph_pool_objects{pool_id=\"1\"}"), 2);

  ProcessResult r = ectest::RunProgram(EC_ADMIN_PATH, {"-c", conf_, "exporter"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* family : {"ceph_health_status", "ceph_osd_up", "ceph_pool_metadata",
                             "ceph_pg_active", "ceph_osd_op_w_latency_sum"}) {
    EXPECT_TRUE(Contains(r.out, std::string("\n# TYPE ") + family + " ")) << family;
  }
  EXPECT_EQ(ectest::MetricValue(r.out, "ceph_osd_up{ceph_daemon=\"osd.0\"}"), 1);
}

TEST_F(EcRadosCli, RmThenGetIsEnoent) {
  const auto in = files_ / "in";
  ectest::WriteBytes(in, ectest::RandomBytes(100, 1));
  ASSERT_EQ(Rados({"put", "gone1", in.string()}).exit_code, 0);
  ASSERT_EQ(Rados({"put", "gone2", in.string()}).exit_code, 0);
  ProcessResult r = Rados({"rm", "gone1", "gone2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* n : {"gone1", "gone2"}) {
    r = Rados({"get", n, (files_ / "out").string()});
    EXPECT_EQ(r.exit_code, ENOENT);
    EXPECT_EQ(
        r.err.rfind(std::string("error: getting p/") + n + ": (2) No such file or directory", 0),
        0u)
        << r.err;
    const std::vector<std::string> names = Ls();
    EXPECT_TRUE(std::find(names.begin(), names.end(), n) == names.end());
  }
  r = Rados({"rm", "gone1"});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_TRUE(Contains(r.err, "error: removing p/gone1: (2) No such file or directory")) << r.err;
}

TEST_F(EcRadosCli, AppendAndPutAtOffset) {
  const auto a = files_ / "a";
  const auto b = files_ / "b";
  const auto out = files_ / "out";
  const std::vector<std::byte> first = ectest::RandomBytes(5000, 2);
  const std::vector<std::byte> second = ectest::RandomBytes(3000, 3);
  ectest::WriteBytes(a, first);
  ectest::WriteBytes(b, second);
  ASSERT_EQ(Rados({"put", "ap", a.string()}).exit_code, 0);
  ProcessResult r = Rados({"append", "ap", b.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::byte> want = first;
  want.insert(want.end(), second.begin(), second.end());
  ASSERT_EQ(Rados({"get", "ap", out.string()}).exit_code, 0);
  EXPECT_EQ(ectest::ReadBytes(out), want);
  // Append to a missing object makes it.
  ASSERT_EQ(Rados({"append", "ap-new", b.string()}).exit_code, 0);
  ASSERT_EQ(Rados({"get", "ap-new", out.string()}).exit_code, 0);
  EXPECT_EQ(ectest::ReadBytes(out), second);

  // put --offset overwrites a range without truncating, and past the end extends.
  r = Rados({"put", "ap", b.string(), "--offset", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::copy(second.begin(), second.end(), want.begin() + 1000);
  ASSERT_EQ(Rados({"get", "ap", out.string()}).exit_code, 0);
  EXPECT_EQ(ectest::ReadBytes(out), want);
  r = Rados({"put", "ap", b.string(), "--offset", "9000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  want.resize(9000);  // the gap from 8000 reads as zeros
  want.insert(want.end(), second.begin(), second.end());
  ASSERT_EQ(Rados({"get", "ap", out.string()}).exit_code, 0);
  EXPECT_EQ(ectest::ReadBytes(out), want);
  r = Rados({"stat", "ap"});
  EXPECT_TRUE(Contains(r.out, ", size 12000\n")) << r.out;
}

TEST_F(EcRadosCli, BenchWriteSeqRandThenCleanup) {
  ProcessResult r =
      Rados({"bench", "2", "write", "-b", "4096", "-t", "4", "--no-cleanup", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = Json(r);
  const std::uint64_t written = j.value("total_writes_made", std::uint64_t{0});
  EXPECT_GT(written, 0u) << r.out;
  EXPECT_EQ(j["write_size"], 4096);
  EXPECT_EQ(j["op_size"], 4096);
  EXPECT_EQ(j["object_size"], 4096);
  EXPECT_EQ(j["concurrent_ios"], 4);
  EXPECT_EQ(j["object_prefix"].get<std::string>().rfind("benchmark_data_", 0), 0u) << r.out;
  EXPECT_GT(j["bandwidth"].get<double>(), 0);  // MB/s
  EXPECT_GT(j["latency_p99_s"].get<double>(), 0);
  EXPECT_GE(j["latency_p99_s"].get<double>(), j["latency_p50_s"].get<double>());
  // rados bench --format json's keys (src/common/obj_bencher.cc), as numbers; latency in s.
  for (const char* key :
       {"concurrent_ios", "object_size", "op_size", "total_time_run", "total_writes_made",
        "write_size", "bandwidth", "stddev_bandwidth", "max_bandwidth", "min_bandwidth",
        "average_iops", "stddev_iops", "max_iops", "min_iops", "average_latency", "stddev_latency",
        "max_latency", "min_latency"}) {
    EXPECT_TRUE(j.contains(key) && j[key].is_number()) << key << "\n" << r.out;
  }
  EXPECT_GT(j["average_latency"].get<double>(), 0);
  EXPECT_LT(j["average_latency"].get<double>(), 2);  // seconds, not ms
  EXPECT_LE(j["min_latency"].get<double>(), j["max_latency"].get<double>());
  EXPECT_FALSE(j.contains("bandwidth_mb_sec")) << r.out;
  std::vector<std::string> names = Ls();
  const auto bench_objects = std::count_if(names.begin(), names.end(), [](const std::string& n) {
    return n.rfind("benchmark_data_", 0) == 0;
  });
  EXPECT_EQ(static_cast<std::uint64_t>(bench_objects), written);
  EXPECT_TRUE(std::find(names.begin(), names.end(), "benchmark_last_metadata") != names.end());

  // seq: the table and the summary, as text.
  r = Rados({"bench", "2", "seq", "-t", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(
      r.out, "  sec Cur ops   started  finished  avg MB/s  cur MB/s last lat(s)  avg lat(s)\n"))
      << r.out;
  for (const char* line : {"Total time run:", "Total reads made:", "Read size:              4096\n",
                           "Bandwidth (MB/sec):", "Average IOPS:", "Max latency(s):",
                           "Latency p50(s):", "Latency p99(s):", "Mismatches:             0\n",
                           "Degraded reads:", "Degraded read network bytes:"}) {
    EXPECT_TRUE(Contains(r.out, line)) << line << "\n" << r.out;
  }
  r = Rados({"bench", "2", "rand", "-t", "4", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  j = Json(r);
  EXPECT_GT(j.value("total_reads_made", 0), 0) << r.out;
  for (const char* key : {"total_time_run", "total_reads_made", "read_size", "object_size",
                          "bandwidth", "average_iops", "stddev_iops", "max_iops", "min_iops",
                          "average_latency", "max_latency", "min_latency"}) {
    EXPECT_TRUE(j.contains(key) && j[key].is_number()) << key << "\n" << r.out;
  }
  EXPECT_EQ(j["read_size"], 4096);
  EXPECT_EQ(j["mismatches"], 0);
  EXPECT_TRUE(j.contains("degraded_reads"));
  EXPECT_TRUE(j.contains("degraded_read_network_bytes"));
  EXPECT_FALSE(Contains(r.out, "sec Cur ops")) << "no table with --format json";

  // A changed object is found out.
  ectest::WriteBytes(files_ / "junk", ectest::RandomBytes(4096, 9));
  const auto it = std::find_if(names.begin(), names.end(), [](const std::string& n) {
    return n.rfind("benchmark_data_", 0) == 0 && n.size() > 8 &&
           n.compare(n.size() - 8, 8, "_object0") == 0;
  });
  ASSERT_NE(it, names.end());
  ASSERT_EQ(Rados({"put", *it, (files_ / "junk").string()}).exit_code, 0);
  r = Rados({"bench", "2", "seq", "-t", "4", "--format", "json"});
  EXPECT_EQ(r.exit_code, EIO) << r.out;  // as rados bench's read runs
  EXPECT_EQ(Json(r)["mismatches"], 1);
  EXPECT_TRUE(Contains(r.err, "error: 1 of ")) << r.err;

  r = Rados({"cleanup"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Removed " + std::to_string(written) + " objects\n");
  names = Ls();
  for (const std::string& n : names) {
    EXPECT_NE(n.rfind("benchmark_", 0), 0u) << n;
  }

  // Without --no-cleanup a write run removes what it wrote (and its metadata).
  r = Rados({"bench", "1", "write", "-b", "4K", "-t", "4", "--run-name", "mybench"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "Object prefix: mybench\n")) << r.out;
  EXPECT_TRUE(Contains(r.out, "Total writes made:")) << r.out;
  EXPECT_TRUE(Contains(r.out, "Cleaning up (deleting benchmark objects)\nRemoved ")) << r.out;
  for (const std::string& n : Ls()) EXPECT_NE(n.rfind("mybench", 0), 0u) << n;
  r = Rados({"bench", "1", "seq", "--run-name", "mybench"});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_TRUE(Contains(r.err, "must write data before running a read benchmark")) << r.err;
  EXPECT_TRUE(Contains(r.err, "(2) No such file or directory")) << r.err;
}

// Several write runs under one name, then `cleanup`: every object of every run goes, not only
// the last run's. With the default name each run has its own prefix (benchmark_data_<host>_<pid>)
// and a later run used to replace (or, with cleanup, remove) the metadata, so that cleanup failed
// with the read bench's "must write data" and left the earlier objects; with --run-name a shorter
// run left the objects past its count.
TEST_F(EcRadosCli, BenchCleanupRemovesEveryRunOfItsName) {
  const auto count = [](const std::vector<std::string>& names, const std::string& prefix) {
    return std::count_if(names.begin(), names.end(),
                         [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
  };
  const auto write = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"bench", "5", "write", "-b", "4096", "-t", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = Rados(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return r;
  };
  const auto before = count(Ls(), "benchmark_data_");

  // The default name: two runs kept, then one that cleans up after itself.
  write({"--max-objects", "5", "--no-cleanup"});
  write({"--max-objects", "3", "--no-cleanup"});
  ProcessResult r = write({"--max-objects", "4"});
  EXPECT_TRUE(Contains(r.out, "Removed 4 objects\n")) << r.out;
  std::vector<std::string> names = Ls();
  EXPECT_EQ(count(names, "benchmark_data_"), before + 8);
  // The self-cleaning run left the metadata of the last kept run: seq still reads it.
  EXPECT_TRUE(std::find(names.begin(), names.end(), "benchmark_last_metadata") != names.end());
  r = Rados({"bench", "1", "seq", "-t", "2", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Json(r)["mismatches"], 0);
  r = Rados({"cleanup"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Removed " + std::to_string(before + 8) + " objects\n");
  names = Ls();
  EXPECT_EQ(count(names, "benchmark_"), 0) << "left behind";
  // Nothing left: still a success (as rados), nothing removed.
  r = Rados({"cleanup"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Removed 0 objects\n");

  // A run name: a shorter second run under it leaves the first run's objects past its count.
  write({"--max-objects", "6", "--no-cleanup", "--run-name", "twice"});
  write({"--max-objects", "2", "--no-cleanup", "--run-name", "twice"});
  EXPECT_EQ(count(Ls(), "twice_object"), 6);
  r = Rados({"cleanup", "--run-name", "twice"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Removed 6 objects\n");
  names = Ls();
  EXPECT_EQ(count(names, "twice"), 0) << "objects or metadata left";

  // A self-cleaning run under the name of a kept run overwrote some of its objects: it removes
  // that run's objects and metadata too.
  write({"--max-objects", "6", "--no-cleanup", "--run-name", "same"});
  r = write({"--max-objects", "2", "--run-name", "same"});
  EXPECT_TRUE(Contains(r.out, "Removed 6 objects\n")) << r.out;
  EXPECT_EQ(count(Ls(), "same"), 0) << "objects or metadata left";
}

// --max-objects ends a write run at that count; --latency-log has one line per completed op; a
// SIGTERM ends a long run early with its summary (what recovery_netns.sh relies on).
TEST_F(EcRadosCli, BenchMaxObjectsLatencyLogAndStopSignal) {
  ProcessResult r = Rados({"bench", "60", "write", "-b", "4096", "-t", "4", "--max-objects", "37",
                           "--no-cleanup", "--run-name", "capped", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json(r)["total_writes_made"], 37) << r.out;
  const std::vector<std::string> names = Ls();
  EXPECT_EQ(std::count_if(names.begin(), names.end(),
                          [](const std::string& n) { return n.rfind("capped_object", 0) == 0; }),
            37);
  EXPECT_EQ(Rados({"bench", "1", "write", "--max-objects", "x"}).exit_code, EINVAL);

  const std::string log = (files_ / "lat.log").string();
  const auto t0 = std::chrono::steady_clock::now();
  r = Shell("$R bench 60 rand -t 1 --run-name capped --latency-log " + log +
            " --format json & pid=$!; sleep 2; kill -TERM $pid; wait $pid");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_LT(took, 20) << "SIGTERM did not end the 60 s run";
  const nlohmann::json j = Json(r);
  const std::uint64_t reads = j.value("total_reads_made", std::uint64_t{0});
  EXPECT_GT(reads, 0u) << r.out;
  EXPECT_EQ(j["mismatches"], 0);
  const std::vector<std::string> lines = Lines(ectest::ReadText(log));
  ASSERT_EQ(lines.size(), reads);
  const double now_unix =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (const std::string& line : lines) {
    double start = 0, lat = 0;
    int degraded = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf %lf %d", &start, &lat, &degraded), 3) << line;
    EXPECT_GT(start, now_unix - 60) << line;
    EXPECT_LE(start, now_unix) << line;
    EXPECT_GT(lat, 0) << line;
    EXPECT_EQ(degraded, 0) << line;
  }
  ASSERT_EQ(Rados({"cleanup", "--run-name", "capped"}).exit_code, 0);
}

// list-inconsistent-obj reads the PG's scrub record (what its primary wrote) from the etcd the
// config names: rados's JSON, one line or indented; rados's message for a PG without one.
TEST_F(EcRadosCli, ListInconsistentObj) {
  namespace cl = ec::cluster;
  const ec::etcd::Client& client = *cluster_->client;
  // The fixture's store has the default prefix, as the config.
  ec::Result<cl::ClusterMap> map = cluster_->store->Load();
  ASSERT_TRUE(map.ok()) << map.status().ToString();
  const cl::Pool* pool = map->FindPool("p");
  ASSERT_NE(pool, nullptr);
  const auto pgid = [&](std::uint32_t pg) { return cl::PgName(pool->id, pg); };
  const auto put = [&](const std::string& pg, const std::string& value) {
    ec::etcd::PutRequest req;
    req.key = cl::ScrubResultKey(cl::kDefaultMapPrefix, pg);
    req.value = value;
    ASSERT_TRUE(client.Put(req).ok());
  };

  cl::ScrubResult result;
  result.pgid = pgid(3);
  result.osd = 1;
  result.epoch = map->epoch;
  result.kind = cl::ScrubKind::kDeepScrub;
  result.stamp_ms = result.last_scrub_ms = result.last_deep_scrub_ms = 1'700'000'000'000;
  result.objects = 12;
  result.errors = 1;
  cl::InconsistentObject bad;
  bad.name = "damaged-object";
  bad.version = 4;
  bad.errors = {cl::scrub_error::kEcHashError};
  bad.union_shard_errors = {cl::scrub_error::kEcHashError};
  for (int shard = 0; shard < 6; ++shard) {
    bad.shards.push_back(
        cl::ShardScrubError{shard, shard == 0, shard,
                            shard == 2 ? std::vector<std::string>{cl::scrub_error::kEcHashError}
                                       : std::vector<std::string>{},
                            4096, 4});
  }
  result.inconsistents = {bad};
  put(pgid(3), cl::EncodeScrubResult(result));

  // No -p needed (and one given is not in the way).
  ProcessResult r =
      ectest::RunProgram(EC_RADOS_PATH, {"-c", conf_, "list-inconsistent-obj", pgid(3)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, cl::ListInconsistentObjJson(result).dump() + "\n");
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["epoch"], map->epoch);
  ASSERT_EQ(j["inconsistents"].size(), 1u);
  EXPECT_EQ(j["inconsistents"][0]["object"]["name"], "damaged-object");
  EXPECT_EQ(j["inconsistents"][0]["object"]["snap"], "head");
  EXPECT_EQ(j["inconsistents"][0]["errors"], nlohmann::json::parse(R"(["ec_hash_error"])"));
  EXPECT_EQ(j["inconsistents"][0]["shards"].size(), 6u);
  EXPECT_EQ(j["inconsistents"][0]["shards"][2]["errors"][0], "ec_hash_error");
  EXPECT_EQ(j["inconsistents"][0]["shards"][0]["primary"], true);
  r = Rados({"list-inconsistent-obj", pgid(3), "--format", "json-pretty"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, cl::ListInconsistentObjJson(result).dump(4) + "\n");
  // Ceph's other spelling of the PG.
  r = Rados({"list-inconsistent-obj", std::to_string(pool->id) + ".03", "-f", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, cl::ListInconsistentObjJson(result).dump() + "\n");

  // A PG never scrubbed: rados's words, ENOENT.
  r = Rados({"list-inconsistent-obj", pgid(4)});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "No scrub information available for pg " + pgid(4) + "\n");
  r = Rados({"list-inconsistent-obj", "x"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.err, "error: invalid pgid 'x'\n");
  r = Rados({"list-inconsistent-obj"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_FALSE(r.err.empty());

  // A record that does not decode, and one naming another PG: EBADMSG naming the key.
  put(pgid(5), "{not json");
  r = Rados({"list-inconsistent-obj", pgid(5)});
  EXPECT_EQ(r.exit_code, EBADMSG);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("error: bad scrub result at " +
                            cl::ScrubResultKey(cl::kDefaultMapPrefix, pgid(5)) + ": ",
                        0),
            0u)
      << r.err;
  put(pgid(6), cl::EncodeScrubResult(result));
  r = Rados({"list-inconsistent-obj", pgid(6)});
  EXPECT_EQ(r.exit_code, EBADMSG);
  EXPECT_TRUE(Contains(r.err, "pgid '" + pgid(3) + "' is not the key's")) << r.err;

  ASSERT_TRUE(client.DeletePrefix(cl::ScrubResultPrefix(cl::kDefaultMapPrefix)).ok());
}

TEST_F(EcRadosCli, Errors) {
  ProcessResult r = ectest::RunProgram(EC_RADOS_PATH, {"-c", conf_, "-p", "nope", "ls"});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_EQ(r.err, "error opening pool nope: (2) No such file or directory\n");
  EXPECT_EQ(r.out, "");
  r = Rados({"get", "no-such-object", (files_ / "out").string()});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_EQ(r.err.rfind("error: getting p/no-such-object: (2) No such file or directory", 0), 0u)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(files_ / "out"));
  r = Rados({"stat", "no-such-object"});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_TRUE(Contains(r.err, "error: stat-ing p/no-such-object: (2) No such file or directory"))
      << r.err;
  r = Rados({"put", "x", (files_ / "no-such-file").string()});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_TRUE(Contains(r.err, "(2) No such file or directory")) << r.err;

  // Usage errors: exit EINVAL (never CLI11's 105-109), a message on stderr.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"bench", "2", "write", "-b", "abc"},
           {"bench", "2", "write", "-b", "0"},
           {"bench", "2", "write", "-b", "1G"},
           {"bench", "2", "write", "-t", "0"},
           {"bench", "2", "write", "-t", "x"},
           {"bench", "0", "write"},
           {"bench", "-3", "write"},
           {"bench", "2", "frobnicate"},
           {"bench", "2"},
           {"put", "x", "f", "--offset", "-1"},
           {"put", "x"},
           {"frobnicate"},
           {"ls", "--no-such-flag"},
           {"--format", "xml", "ls"},
       }) {
    r = Rados(args);
    std::string line;
    for (const std::string& a : args) line += " " + a;
    EXPECT_EQ(r.exit_code, EINVAL) << line << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << line;
  }
  r = Rados({"bench", "2", "write", "-b", "abc"});
  EXPECT_TRUE(Contains(r.err, "error: -b: 'abc'")) << r.err;
  r = ectest::RunProgram(EC_RADOS_PATH, {"-c", conf_, "ls"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_TRUE(Contains(r.err, "pool name was not specified")) << r.err;
  r = ectest::RunProgram(EC_RADOS_PATH, {});
  EXPECT_EQ(r.exit_code, EINVAL);
  // Unknown commands and options named plainly (CLI11's own message lists the words reversed).
  r = Rados({"frobnicate", "x"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.err,
            "error: no valid command found; 'frobnicate' is not a command (see ec-rados --help)\n");
  r = Rados({"lst"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.err,
            "error: no valid command found; 'lst' is not a command (see ec-rados --help); 1 "
            "closest match:\nls\n");
  r = Rados({"stats", "obj"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_TRUE(Contains(r.err, "closest match:\nstat OBJ\n")) << r.err;
  r = Rados({"stat", "a", "b"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.err, "error: 'stat' does not take 'b'\n(see ec-rados --help)\n");
  r = Rados({"ls", "--no-such-flag"});
  EXPECT_EQ(r.err, "error: unknown option '--no-such-flag'\n(see ec-rados --help)\n");
  // A shell sees the code.
  r = Shell("$R stat no-such-object 2>/dev/null; echo $?");
  EXPECT_EQ(r.out, "2\n");

  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--help"},
                                             {"put", "--help"},
                                             {"bench", "--help"},
                                             {"ls", "--help"},
                                             {"list-inconsistent-obj", "--help"}}) {
    r = ectest::RunProgram(EC_RADOS_PATH, args);
    EXPECT_EQ(r.exit_code, 0) << args[0];
    EXPECT_TRUE(Contains(r.out, "Usage")) << r.out;
  }
  r = ectest::RunProgram(EC_RADOS_PATH, {"bench", "--help"});
  for (const char* opt : {"SECONDS", "MODE", "-b", "-t", "--no-cleanup", "--run-name"}) {
    EXPECT_TRUE(Contains(r.out, opt)) << opt << "\n" << r.out;
  }
  r = ectest::RunProgram(EC_RADOS_PATH, {"--help"});
  EXPECT_TRUE(Contains(r.out, "list-inconsistent-obj")) << r.out;
  EXPECT_TRUE(Contains(r.out, "Exit status: 0 on success, else the error's errno")) << r.out;
  r = ectest::RunProgram(EC_RADOS_PATH, {"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("ec-rados ", 0), 0u) << r.out;
}

}  // namespace
