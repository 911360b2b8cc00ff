// Issue 31 item 3 on a real cluster: failing and slow devices, played by ec-osd's own device
// wrapper (osd/store/watched_device.h) behind its live options, set and cleared through the real
// ec-admin (`config set osd.N bdev_inject_...`). Seven ec-osd on seven hosts, an RS(4,2) pool; one
// case (~60 s):
//   - reads that fail on one OSD's device: every object still reads back right (from the other
//     shards), the OSD counts the errors (metrics) and `health detail` names it
//     (OSD_DEVICE_ERRORS);
//   - a device that stalls every request for 300 ms (bdev_slow_op_ms 100 ms here): reads still
//     complete, right, and `health detail` names the OSD (OSD_SLOW_DEVICE);
//   - a device that hangs (every request 6 s, osd_op_thread_timeout 2 s): the OSD leaves the map
//     (down) while it hangs, every object reads back right meanwhile, each read within a bound
//     (from the other shards), and once the device answers again the OSD is up and the PGs clean;
//   - writes that fail on one OSD's device: the OSD takes itself out of service (out and down in
//     the map, exit status EIO), recovery rebuilds its shards on the seventh OSD, every PG gets
//     clean, and every object acknowledged before and during the failure reads back right;
//   - a bad fault value is refused by `config set` (EINVAL), nothing stored.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "tests/cluster/cluster_fixture.h"
#include "tests/system_test_support.h"

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kOsds = 7;

TEST(DeviceFaults, ErrorsAndStallsAreReportedAndAFailingDeviceLeavesService) {
  ectest::LocalClusterOptions o;
  o.osds = kOsds;
  o.pools = {ectest::PoolSpec{"rs", ectest::RsProfile(4, 2), 4096, 8}};
  o.osd_options = {"bdev_slow_op_ms=100"};
  ectest::LocalCluster c(std::move(o));
  ASSERT_TRUE(c.Whole());
  const std::string conf = c.ToolConf();
  const auto admin = [&](const std::string& line, int want_exit = 0) {
    const ectest::ProcessResult r = ectest::RunAdminLine(EC_ADMIN_PATH, conf, line);
    EXPECT_EQ(r.exit_code, want_exit) << line << "\n" << r.out << r.err;
    return r;
  };
  // Until OSD `id` runs with option `name` = `value`, or false after 20 s. `config show` reads
  // what the OSD published after it applied the change (osd/daemon/runtime_config.h), so this
  // waits for the device to take a fault, however slow the config watch is on a loaded machine
  // (a fixed second was once not enough).
  const auto in_force = [&](int id, const std::string& name, const std::string& value) {
    const std::vector<std::string> args = {
        "-c", conf, "config", "show", "osd." + std::to_string(id), name};
    std::string out;
    for (int i = 0; i < 80; ++i) {
      out = ectest::RunProgram(EC_ADMIN_PATH, args).out;
      if (out == value + "\n") return true;
      std::this_thread::sleep_for(milliseconds(250));
    }
    ADD_FAILURE() << "osd." << id << " never ran with " << name << " = " << value
                  << "; last: " << out;
    return false;
  };
  // Until OSD `id`'s metric `sample` is above 0 (its main loop copies the device's counts once a
  // second), or false after 15 s.
  const auto counted = [&](int id, const std::string& sample) {
    for (int i = 0; i < 150; ++i) {
      if (c.Metric(id, sample) > 0) return true;
      std::this_thread::sleep_for(milliseconds(100));
    }
    return false;
  };
  // Until `health detail` says `what` (true), or false after `limit`.
  const auto health_says = [&](const std::string& what, seconds limit) {
    const auto deadline = Clock::now() + limit;
    std::string out;
    while (Clock::now() < deadline) {
      out = ectest::RunProgram(EC_ADMIN_PATH, {"-c", conf, "health", "detail"}).out;
      if (out.find(what) != std::string::npos) return true;
      std::this_thread::sleep_for(milliseconds(250));
    }
    ADD_FAILURE() << "health detail never said '" << what << "'; last:\n" << out;
    return false;
  };

  auto io = c.Pool("rs");
  std::map<std::string, std::vector<std::byte>> model;
  const auto write = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      const std::string name = "obj-" + std::to_string(i);
      auto bytes = ectest::RandomBytes(9000 + 100 * static_cast<std::size_t>(i), i);
      auto w = io.WriteFull(name, bytes);
      if (w.ok()) {
        model[name] = std::move(bytes);  // only acknowledged writes must survive
      } else {
        std::printf("%s not written: %s\n", name.c_str(), w.status().ToString().c_str());
      }
    }
  };
  const auto read_all = [&](const char* when) {
    for (const auto& [name, bytes] : model) {
      auto got = io.Read(name);
      ASSERT_TRUE(got.ok()) << when << ": " << name << ": " << got.status().ToString();
      EXPECT_TRUE(ectest::ToVector(got->data) == bytes) << when << ": " << name;
    }
  };
  write(0, 24);
  ASSERT_EQ(model.size(), 24u);
  ASSERT_TRUE(c.WaitClean(seconds(30)));

  // A bad value is refused where it is set.
  const auto bad = admin("config set osd.1 bdev_inject_read_eio everything", EINVAL);
  EXPECT_NE(bad.err.find("OFFSET+LENGTH"), std::string::npos) << bad.err;

  // 1. Every read of osd.1's device fails: the objects read back from the other shards.
  admin("config set osd.1 bdev_inject_read_eio all");
  ASSERT_TRUE(in_force(1, "bdev_inject_read_eio", "all"));
  read_all("osd.1 failing reads");
  EXPECT_TRUE(counted(1, "ecstore_osd_device_errors_total{op=\"read\"}"));
  EXPECT_EQ(c.Metric(1, "ecstore_osd_device_errors_total{op=\"write\"}"), 0u);
  EXPECT_TRUE(health_says("osd.1 (host=h1, up, in): ", seconds(10)));
  EXPECT_TRUE(health_says("OSD_DEVICE_ERRORS", seconds(1)));
  admin("config rm osd.1 bdev_inject_read_eio");
  EXPECT_TRUE(in_force(1, "bdev_inject_read_eio", ""));

  // 2. osd.2's device stalls 300 ms per request: reads are slow but right, and health says so.
  admin("config set osd.2 bdev_inject_stall_ms 300");
  ASSERT_TRUE(in_force(2, "bdev_inject_stall_ms", "300"));
  const auto slow_start = Clock::now();
  for (int i = 0; i < 6; ++i) {
    const std::string name = "obj-" + std::to_string(i);
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
    EXPECT_TRUE(ectest::ToVector(got->data) == model[name]) << name;
  }
  EXPECT_TRUE(health_says("osd.2 (host=h2): ", seconds(10)));
  EXPECT_TRUE(counted(2, "ecstore_osd_device_slow_ops_total"));
  admin("config rm osd.2 bdev_inject_stall_ms");
  EXPECT_TRUE(in_force(2, "bdev_inject_stall_ms", "0"));
  std::printf("six reads with osd.2's device stalled: %.1f s\n",
              std::chrono::duration<double>(Clock::now() - slow_start).count());

  // 3. osd.2's device hangs: every request takes 6 s, past osd_op_thread_timeout (2 s here). A
  // read that reaches it hangs with it; the OSD's watchdog takes it out of the map, and the
  // objects read from the other shards meanwhile.
  admin("config set osd.2 osd_op_thread_timeout 2");
  admin("config set osd.2 bdev_inject_stall_ms 6000");
  ASSERT_TRUE(in_force(2, "osd_op_thread_timeout", "2"));
  ASSERT_TRUE(in_force(2, "bdev_inject_stall_ms", "6000"));
  const auto hang_start = Clock::now();
  std::thread hung_reader([&] {
    // Every object: some read osd.2's device (directly or through it as a primary) and hang.
    for (int i = 0; i < 24; ++i) {
      const std::string name = "obj-" + std::to_string(i);
      auto got = io.Read(name);
      EXPECT_TRUE(got.ok()) << "during the hang: " << name << ": " << got.status().ToString();
      if (got.ok()) {
        EXPECT_TRUE(ectest::ToVector(got->data) == model[name]) << name;
      }
    }
  });
  const auto went_down = c.WaitForMap(
      [](const ec::cluster::ClusterMap& m) {
        const auto it = m.osds.find(2);
        return it != m.osds.end() && !it->second.up;
      },
      seconds(20));
  EXPECT_GE(went_down.count(), 0) << c.DescribeOsds();
  std::printf("osd.2 marked down %.1f s after its device began to hang\n",
              std::chrono::duration<double>(Clock::now() - hang_start).count());
  EXPECT_NE(c.osds[2]->LogFile().find("leaving the map until it answers"), std::string::npos);
  // Down, osd.2 is read by nobody: every object reads back right, each within the sub-op timeout
  // of a read that had been sent to it before the map changed.
  auto other = c.Pool("rs");
  for (const auto& [name, bytes] : model) {
    const auto t0 = Clock::now();
    auto got = other.Read(name);
    ASSERT_TRUE(got.ok()) << "osd.2 down and hung: " << name << ": " << got.status().ToString();
    EXPECT_TRUE(ectest::ToVector(got->data) == bytes) << name;
    EXPECT_LT(Clock::now() - t0, seconds(12)) << name;
  }
  admin("config rm osd.2 bdev_inject_stall_ms");
  hung_reader.join();
  const auto back_up = c.WaitForMap(
      [](const ec::cluster::ClusterMap& m) {
        const auto it = m.osds.find(2);
        return it != m.osds.end() && it->second.up;
      },
      seconds(30));
  EXPECT_GE(back_up.count(), 0) << c.DescribeOsds();
  EXPECT_NE(c.osds[2]->LogFile().find("joining the map again"), std::string::npos);
  admin("config rm osd.2 osd_op_thread_timeout");
  ASSERT_TRUE(c.WaitClean(seconds(60))) << c.DescribeOsds();
  read_all("after osd.2's device answered again");

  // 4. osd.3's device fails every write: it leaves service on the first one.
  admin("config set osd.3 bdev_inject_write_eio all");
  ASSERT_TRUE(in_force(3, "bdev_inject_write_eio", "all"));
  write(24, 48);
  // A shard whose store fails the write is a position that did not take it: the writes stand on
  // the other five (osd/pg/object_io_write.cc), also where osd.3 is the primary.
  EXPECT_EQ(model.size(), 48u);
  const auto left = c.WaitForMap(
      [](const ec::cluster::ClusterMap& m) {
        const auto it = m.osds.find(3);
        return it != m.osds.end() && !it->second.up && !it->second.in;
      },
      seconds(20));
  EXPECT_GE(left.count(), 0) << c.DescribeOsds();
  int status = -1;
  for (int i = 0; i < 100 && status < 0; ++i) {
    status = c.osds[3]->Exited();
    if (status < 0) std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(status, EIO) << c.osds[3]->Log().substr(0, 2000);
  EXPECT_NE(c.osds[3]->LogFile().find("taking osd.3 out of service"), std::string::npos);
  ASSERT_TRUE(c.WaitClean(seconds(60))) << c.DescribeOsds();
  read_all("after osd.3 left service");
  EXPECT_TRUE(health_says("osd.3 (host=h3, down, out): ", seconds(10)));
}

}  // namespace
