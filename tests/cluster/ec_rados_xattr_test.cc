// Object metadata through build/bin/ec-rados on a real cluster (issue 29 item 3): setxattr,
// getxattr, listxattr, rmxattr, touch, truncate and stat's mtime with rados's syntax, output and
// exit codes (the errno: ENOENT 2 for an absent object, ENODATA 61 for an absent xattr,
// ENAMETOOLONG, EFBIG, E2BIG for the limits, EINVAL 22 for a bad number); truncate's content,
// shrunk and grown; xattrs and mtime kept by writes; and the metadata surviving kill -9 of an OSD
// holding a shard, the OSD marked out and the shard rebuilt elsewhere (the rebuilt shard holds the
// object's xattrs and mtime). Seven ec-osd (one spare host for the rebuild), an RS(4,2) pool.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "cluster/map/map_store.h"
#include "msg/client.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using ectest::ProcessResult;
using std::chrono::seconds;

class EcRadosXattr : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = 7;
    o.pools = {ectest::PoolSpec{"p", ectest::RsProfile(4, 2)}};
    StartCluster(std::move(o));
    conf_ = cluster_->ToolConf();
  }

  static ProcessResult Rados(std::vector<std::string> args) {
    return ectest::RunPoolTool(EC_RADOS_PATH, conf_, "p", std::move(args));
  }
  // A shell line with $R standing for ec-rados -c CONF -p p.
  static ProcessResult Shell(const std::string& line) {
    return ectest::PoolToolShell(EC_RADOS_PATH, conf_, "p", line);
  }
  // `args` exits with `code` and prints `err_start` at the start of stderr, nothing on stdout.
  static void ExpectError(const std::vector<std::string>& args, int code,
                          const std::string& err_start) {
    ProcessResult r = Rados(args);
    EXPECT_EQ(r.exit_code, code) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.rfind(err_start, 0), 0u) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // rados's time of `seconds` (local time, whole seconds), computed here on its own.
  static std::string LocalTime(std::time_t t) {
    std::tm tm{};
    localtime_r(&t, &tm);
    char day[64];
    char zone[16];
    std::strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
    std::strftime(zone, sizeof(zone), "%z", &tm);
    return std::string(day) + ".000000" + zone;
  }
  // The stat line's mtime, parsed back to seconds (-1 when the line is not rados's).
  static std::time_t StatSeconds(const std::string& out, const std::string& object,
                                 std::uint64_t size) {
    // (Not std::regex: GCC 12 warns maybe-uninitialized inside <regex> under the sanitizers.)
    const std::string head = "p/" + object + " mtime ";
    const std::string tail = ", size " + std::to_string(size) + "\n";
    constexpr std::size_t kStamp = 31;  // "2026-11-28T10:00:00.000000+0000"
    if (out.size() != head.size() + kStamp + tail.size() || out.rfind(head, 0) != 0 ||
        out.compare(head.size() + kStamp, std::string::npos, tail) != 0) {
      return -1;
    }
    const std::string stamp = out.substr(head.size(), kStamp);
    int m[7] = {};
    char sign = 0;
    int zone = 0, used = 0;
    if (std::sscanf(stamp.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.000000%c%4d%n", &m[1], &m[2], &m[3],
                    &m[4], &m[5], &m[6], &sign, &zone, &used) != 8 ||
        used != static_cast<int>(kStamp) || (sign != '+' && sign != '-')) {
      return -1;
    }
    std::tm tm{};
    tm.tm_year = m[1] - 1900;
    tm.tm_mon = m[2] - 1;
    tm.tm_mday = m[3];
    tm.tm_hour = m[4];
    tm.tm_min = m[5];
    tm.tm_sec = m[6];
    tm.tm_isdst = -1;
    return std::mktime(&tm);
  }

  inline static std::string conf_;
  ectest::TempDir files_;
};

TEST_F(EcRadosXattr, CommandsOutputAndExitCodes) {
  // setxattr creates the object; getxattr prints the value as it is; listxattr the names.
  ProcessResult r = Rados({"setxattr", "x1", "user.a", "hello"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = Rados({"getxattr", "x1", "user.a"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello");
  r = Shell("printf 'bin\\000ary' | $R setxattr x1 b && $R getxattr x1 b");  // VALUE from stdin
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("bin\0ary", 7));
  r = Rados({"listxattr", "x1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "b\nuser.a\n");
  const std::time_t now = std::time(nullptr);
  r = Rados({"stat", "x1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::time_t mtime = StatSeconds(r.out, "x1", 0);
  EXPECT_GE(mtime, now - 60) << r.out;
  EXPECT_LE(mtime, now + 60) << r.out;
  // rmxattr; an absent name is no error (as rados).
  ASSERT_EQ(Rados({"rmxattr", "x1", "user.a"}).exit_code, 0);
  ASSERT_EQ(Rados({"rmxattr", "x1", "user.a"}).exit_code, 0);
  EXPECT_EQ(Rados({"listxattr", "x1"}).out, "b\n");

  // Errors exit with the errno, rados's words after "error: ".
  ExpectError({"getxattr", "x1", "user.a"}, ENODATA,
              "error: getting xattr p/x1/user.a: (61) No data available");
  ExpectError({"getxattr", "nosuch", "a"}, ENOENT,
              "error: getting xattr p/nosuch/a: (2) No such file or directory");
  ExpectError({"listxattr", "nosuch"}, ENOENT,
              "error: getting xattr set p/nosuch: (2) No such file or directory");
  ExpectError({"rmxattr", "nosuch", "a"}, ENOENT,
              "error: removing xattr p/nosuch/a: (2) No such file or directory");
  ExpectError({"stat", "nosuch"}, ENOENT,
              "error: stat-ing p/nosuch: (2) No such file or directory");
  ExpectError({"setxattr", "x1", std::string(256, 'n'), "v"}, ENAMETOOLONG,
              "error: setting xattr p/x1/" + std::string(256, 'n') + ": (36) File name too long");
  r = Shell("head -c 40000 /dev/zero | $R setxattr x1 big");
  EXPECT_EQ(r.exit_code, EFBIG) << r.err;
  EXPECT_NE(r.err.find("(27) File too large: xattr big: value of 40000 bytes"), std::string::npos)
      << r.err;
  EXPECT_EQ(Rados({"listxattr", "nosuch"}).exit_code, ENOENT);  // nothing made by the refusals
  // The object's set: 2 xattrs of 20000 bytes fit, a third is over 48 KiB together.
  const std::string value(20000, 'v');
  ASSERT_EQ(Rados({"setxattr", "x1", "v1", value}).exit_code, 0);
  ASSERT_EQ(Rados({"setxattr", "x1", "v2", value}).exit_code, 0);
  r = Rados({"setxattr", "x1", "v3", value});
  EXPECT_EQ(r.exit_code, E2BIG) << r.err;
  EXPECT_NE(r.err.find("(7) Argument list too long"), std::string::npos) << r.err;
  EXPECT_EQ(Rados({"listxattr", "x1"}).out, "b\nv1\nv2\n");  // the refused change left nothing
  EXPECT_EQ(Rados({"getxattr", "x1", "v2"}).out, value);

  // touch: creates an empty object; a TIMESTAMP sets the mtime (rados's relative form under ten
  // years).
  ASSERT_EQ(Rados({"touch", "t1"}).exit_code, 0);
  EXPECT_GE(StatSeconds(Rados({"stat", "t1"}).out, "t1", 0), now - 60);
  ASSERT_EQ(Rados({"touch", "t1", "1000000000"}).exit_code, 0);
  EXPECT_EQ(Rados({"stat", "t1"}).out, "p/t1 mtime " + LocalTime(1000000000) + ", size 0\n");
  ASSERT_EQ(Rados({"touch", "t1", "5"}).exit_code, 0);
  EXPECT_EQ(Rados({"stat", "t1"}).out, "p/t1 mtime 5.000000, size 0\n");
  ExpectError({"touch", "t1", "abc"}, EINVAL, "error: Invalid value for timestamp: 'abc'");

  // truncate: cut, then grown with zeros; the xattrs stay, the mtime moves; an absent object
  // stays absent (exit 0, as rados).
  const auto bytes = ectest::RandomBytes(100000, 29);
  const auto in = files_ / "tr.in";
  const auto out = files_ / "tr.out";
  ectest::WriteBytes(in, bytes);
  ASSERT_EQ(Rados({"put", "tr", in.string()}).exit_code, 0);
  ASSERT_EQ(Rados({"setxattr", "tr", "k", "kept"}).exit_code, 0);
  ASSERT_EQ(Rados({"touch", "tr", "1000000000"}).exit_code, 0);
  r = Rados({"truncate", "tr", "5000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_EQ(Rados({"get", "tr", out.string()}).exit_code, 0);
  EXPECT_EQ(ectest::ReadBytes(out), std::vector<std::byte>(bytes.begin(), bytes.begin() + 5000));
  EXPECT_GE(StatSeconds(Rados({"stat", "tr"}).out, "tr", 5000), now - 60);
  ASSERT_EQ(Rados({"truncate", "tr", "70000"}).exit_code, 0);
  ASSERT_EQ(Rados({"get", "tr", out.string()}).exit_code, 0);
  std::vector<std::byte> want(bytes.begin(), bytes.begin() + 5000);
  want.resize(70000);
  EXPECT_EQ(ectest::ReadBytes(out), want);
  ASSERT_EQ(Rados({"truncate", "tr", "70000"}).exit_code, 0);  // its own size: the mtime only
  EXPECT_EQ(Rados({"getxattr", "tr", "k"}).out, "kept");
  // Writes keep the xattrs too: a whole rewrite and a write inside the object.
  ASSERT_EQ(Rados({"put", "tr", in.string()}).exit_code, 0);
  ASSERT_EQ(Rados({"put", "tr", in.string(), "--offset", "4096"}).exit_code, 0);
  EXPECT_EQ(Rados({"getxattr", "tr", "k"}).out, "kept");
  r = Rados({"truncate", "nosuch", "10"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Rados({"stat", "nosuch"}).exit_code, ENOENT);
  ExpectError({"truncate", "tr", "abc"}, EINVAL, "error: Invalid value for size: 'abc'");
  ExpectError({"truncate", "tr", "-1"}, EINVAL, "error: error, cannot truncate to negative value");
  ExpectError({"truncate", "tr", "200000000"}, EFBIG,
              "error: truncating oid tr to 200000000: (27) File too large");
  // Usage: missing arguments are usage errors.
  EXPECT_EQ(Rados({"getxattr", "x1"}).exit_code, EINVAL);
  EXPECT_EQ(Rados({"truncate", "tr"}).exit_code, EINVAL);
}

// kill -9 of an OSD holding a shard of an object with xattrs (not its primary): reads of the
// metadata go on, an xattr set meanwhile reaches the other shards, the OSD is marked out and its
// shard rebuilt on the spare OSD, which then holds the object's xattrs and mtime as every other
// shard does; getxattr and listxattr are right throughout.
TEST_F(EcRadosXattr, XattrsSurviveAKilledOsdAndTheRebuild) {
  const auto bytes = ectest::RandomBytes(30000, 31);
  const auto in = files_ / "kill.in";
  ectest::WriteBytes(in, bytes);
  ASSERT_EQ(Rados({"put", "kx", in.string()}).exit_code, 0);
  ASSERT_EQ(Rados({"setxattr", "kx", "a", "1"}).exit_code, 0);
  ASSERT_EQ(Rados({"setxattr", "kx", "b", std::string(1000, 'b')}).exit_code, 0);
  auto io = cluster_->Pool("p");
  auto loc = cluster_->Locate(io.pool_id(), "kx");
  ASSERT_TRUE(loc.ok()) << loc.status().ToString();
  std::size_t position = 0;
  while (loc->acting[position] == loc->primary) ++position;
  const int victim = loc->acting[position];
  ASSERT_TRUE(cluster_->Kill(victim));
  ASSERT_TRUE(cluster_->WaitUp(victim, false, seconds(10))) << cluster_->DescribeOsds();
  EXPECT_EQ(Rados({"getxattr", "kx", "a"}).out, "1");
  ProcessResult r = Rados({"setxattr", "kx", "c", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(cluster_->store->Apply({ec::cluster::MapChange::OsdOut(victim, false)}).ok());
  ASSERT_TRUE(cluster_->WaitClean(seconds(60)));
  EXPECT_EQ(Rados({"getxattr", "kx", "c"}).out, "3");
  EXPECT_EQ(Rados({"getxattr", "kx", "b"}).out, std::string(1000, 'b'));
  EXPECT_EQ(Rados({"listxattr", "kx"}).out, "a\nb\nc\n");
  auto st = io.Stat("kx");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->size, bytes.size());
  auto got = io.Read("kx");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->data.size(), bytes.size());
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), got->data.data()));

  // Every shard, the rebuilt one on its new OSD included, records the object's metadata.
  auto now = cluster_->Locate(io.pool_id(), "kx");
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  EXPECT_NE(now->acting[position], victim);
  for (std::size_t p = 0; p < now->acting.size(); ++p) {
    ec::msg::ClientOptions co;
    co.port = cluster_->osds[static_cast<std::size_t>(now->acting[p])]->port();
    auto client = ec::msg::OsdClient::Create(co);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    auto shard = (*client)->Stat({now->collection, "kx", static_cast<std::uint32_t>(p)});
    ASSERT_TRUE(shard.ok()) << "shard " << p << ": " << shard.status().ToString();
    std::map<std::string, std::string> attrs;
    for (const auto& a : shard->attrs) attrs[a.key] = a.value;
    EXPECT_EQ(attrs["_a"], "1") << p;
    EXPECT_EQ(attrs["_c"], "3") << p;
    EXPECT_EQ(attrs["_b"].size(), 1000u) << p;
    EXPECT_EQ(attrs["ec.mtime"], std::to_string(st->mtime)) << p;
  }
  cluster_->Restart(victim);  // back for the other cases (it stays out)
}

}  // namespace
