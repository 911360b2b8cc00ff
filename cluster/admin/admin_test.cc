// ec-admin's commands in-process (cluster/admin) against a real etcd (testing::EtcdServer, one per
// suite; every test has its own key prefix): each command's output in plain and JSON, Ceph's
// messages, every error, and that no command leaves the map half-changed. The pool commands are in
// pool_admin_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/admin_test_fixture.h"
#include "cluster/admin/status_report.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/map/map_store.h"
#include "cluster/map/pool_geometry.h"
#include "cluster/placement/placement_hash.h"

namespace ec::cluster::admin {
namespace {

using etcd::testing::EtcdServer;
using nlohmann::json;

using test_support::Contains;
using test_support::kNow;
using test_support::Split;

class AdminTest : public test_support::AdminFixture {
 protected:
  // OSDs 0..n-1 on `hosts` hosts h0, h1, ... (round robin).
  void BootCluster(int n, int hosts) {
    for (int i = 0; i < n; ++i) Boot(i, "h" + std::to_string(i % hosts));
  }
};

// ---- global flags, formats, usage ----------------------------------------------------------

TEST(AdminArgs, GlobalFlagsAnywhere) {
  Result<GlobalArgs> g =
      ParseGlobalArgs({"osd", "-c", "/x.conf", "pool", "--format", "json-pretty", "ls", "--force"});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->conf, "/x.conf");
  EXPECT_EQ(g->format, Format::kJsonPretty);
  EXPECT_EQ(g->words, (std::vector<std::string>{"osd", "pool", "ls", "--force"}));

  g = ParseGlobalArgs({"-s", "-f", "json", "--conf=/y.conf"});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->words, (std::vector<std::string>{"status"}));
  EXPECT_EQ(g->format, Format::kJson);
  EXPECT_EQ(g->conf, "/y.conf");

  g = ParseGlobalArgs({"--help"});
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->help);
  g = ParseGlobalArgs({"--version"});
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(g->version);

  EXPECT_EQ(ParseGlobalArgs({"status", "-c"}).status().code(), EINVAL);
  g = ParseGlobalArgs({"--format", "xml", "status"});
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(Contains(g.status().message(), "unknown format 'xml'"));
}

TEST(AdminArgs, HelpListsEveryCommand) {
  const std::string help = HelpText();
  for (const char* c :
       {"osd erasure-code-profile set", "osd erasure-code-profile get",
        "osd erasure-code-profile ls", "osd erasure-code-profile rm", "osd pool create",
        "osd pool ls", "osd pool rm", "osd tree", "osd out", "osd in", "osd rm", "osd dump",
        "osd map", "status", "health", "-s", "--format", "-c, --conf"}) {
    EXPECT_TRUE(Contains(help, c)) << c;
  }
}

TEST(AdminArgs, TextTableAndFormats) {
  TextTable t;
  t.AddColumn("ID", TextTable::Align::kRight);
  t.AddColumn("NAME", TextTable::Align::kLeft);
  t.AddRow({"-1", "root"});
  t.AddRow({"10", "x"});
  EXPECT_EQ(t.Render(), "ID  NAME\n-1  root\n10  x\n");
  EXPECT_EQ(DumpJson(json{{"a", 1}}, Format::kJson), "{\"a\":1}\n");
  EXPECT_EQ(DumpJson(json{{"a", 1}}, Format::kJsonPretty), "{\n    \"a\": 1\n}\n");
  EXPECT_EQ(ErrnoName(ENOENT), "ENOENT");
  EXPECT_EQ(ErrnoName(EBADMSG), "EBADMSG");
  EXPECT_EQ(ErrorResult(Status::NotFound("x")).err, "Error ENOENT: x\n");
}

TEST_F(AdminTest, UsageErrorsNameTheCommand) {
  EXPECT_EQ(Unknown("frobnicate", "frobnicate"),
            "no valid command found; 'frobnicate' is not a command (see ec-admin --help)\n"
            "Error EINVAL: invalid command\n");
  // The closest commands: those sharing the most leading words, the nearest next word first.
  EXPECT_EQ(Unknown("osd pool frob x", "osd pool frob"),
            "no valid command found; 'osd pool frob' is not a command (see ec-admin --help); 5 "
            "closest matches:\n"
            "osd pool rm NAME NAME --yes-i-really-really-mean-it\n"
            "osd pool ls [detail]\n"
            "osd pool get NAME "
            "size|min_size|pg_num|pgp_num|erasure_code_profile|allow_ec_optimizations|"
            "ec_min_object_size|all\n"
            "osd pool set NAME min_size|size|ec_min_object_size N\n"
            "osd pool create NAME PG_NUM [PGP_NUM] [erasure [PROFILE] | replicated [--size N]]\n"
            "Error EINVAL: invalid command\n");
  const std::string osd = Unknown("osd foo", "osd foo");
  EXPECT_TRUE(Contains(osd, "; 10 closest matches:\n")) << osd;  // at most 10, as ceph
  EXPECT_TRUE(Contains(osd, "\nosd out ID [ID ...]\n")) << osd;
  EXPECT_FALSE(Contains(osd, "\nstatus\n")) << osd;
  EXPECT_TRUE(Contains(Unknown("osd erasure-code-profile", "osd erasure-code-profile"),
                       "4 closest matches:\nosd erasure-code-profile set NAME"));
  EXPECT_TRUE(Contains(Unknown("stauts", "stauts"), "1 closest match:\nstatus\n"));
  EXPECT_TRUE(Contains(Unknown("helth detail", "helth"), "1 closest match:\nhealth [detail]\n"));
  EXPECT_TRUE(Contains(Fails("osd map p", "EINVAL"), "osd map POOL OBJECT"));
  EXPECT_TRUE(Contains(Fails("osd pool create p", "EINVAL"), "osd pool create NAME PG_NUM"));
  EXPECT_TRUE(Contains(Fails("osd erasure-code-profile get", "EINVAL"),
                       "osd erasure-code-profile get NAME"));
  EXPECT_TRUE(Contains(Fails("osd tree x", "EINVAL"), "osd tree"));
  EXPECT_TRUE(Contains(Fails("status now", "EINVAL"), "'status' takes no arguments"));
  EXPECT_TRUE(Contains(Fails("health everything", "EINVAL"), "health [detail]"));
  EXPECT_TRUE(Contains(Fails("osd out", "EINVAL"), "osd out ID"));
  EXPECT_TRUE(Contains(Fails("osd pool create p 8 erasure rs extra", "EINVAL"), "too many"));
  EXPECT_EQ(Run("").exit_code, EINVAL);
}

// The exit code is the errno of the error, as `ceph`'s; a command that only warns exits 0.
TEST_F(AdminTest, ExitCodeIsTheErrno) {
  CommandResult r = Run("osd erasure-code-profile get nosuch");
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_EQ(r.err, "Error ENOENT: unknown erasure code profile 'nosuch'\n");
  EXPECT_EQ(Run("osd map nosuchpool obj").exit_code, ENOENT);
  EXPECT_EQ(Run("osd erasure-code-profile set bad plugin=nosuchplugin").exit_code, EINVAL);
  EXPECT_EQ(Run("osd erasure-code-profile set bad k=abc").exit_code, EINVAL);
  Ok("osd erasure-code-profile set rs k=4 m=2");
  EXPECT_EQ(Run("osd erasure-code-profile set rs k=3 m=2").exit_code, EPERM);
  EXPECT_EQ(Run("osd pool create p 0 erasure rs").exit_code, ERANGE);
  EXPECT_EQ(Run("osd pool rm p").exit_code, EPERM);  // not confirmed
  Ok("osd pool create p 8 erasure rs");
  EXPECT_EQ(Run("osd erasure-code-profile rm rs").exit_code, EBUSY);
  EXPECT_EQ(Run("osd out 9").exit_code, ENOENT);
  EXPECT_EQ(Run("osd tree extra").exit_code, EINVAL);
  // Ceph's successes with a message: an existing pool again, a missing pool or profile removed.
  r = Run("osd pool create p 8 erasure rs");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "pool 'p' already exists\n");
  r = Run("osd pool rm nosuchpool nosuchpool --yes-i-really-really-mean-it");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "pool 'nosuchpool' does not exist\n");
  EXPECT_EQ(Run("osd erasure-code-profile rm nosuch").exit_code, 0);
  // HEALTH_WARN (the pool's PGs are down: no OSD) is a warning, not an error.
  r = Run("health");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "HEALTH_WARN")) << r.out;
}

// ---- erasure-code profiles -------------------------------------------------------------------

TEST_F(AdminTest, ProfileSetGetLsWithCephDefaults) {
  CommandResult set = Ok("osd erasure-code-profile set rs k=4 m=2");
  EXPECT_EQ(set.out, "");
  EXPECT_EQ(set.err, "");
  const std::string get = Ok("osd erasure-code-profile get rs").out;
  // The plugin's normalised profile: the given keys plus Ceph's defaults.
  EXPECT_EQ(get,
            "crush-device-class=\ncrush-failure-domain=host\ncrush-root=default\n"
            "jerasure-per-chunk-alignment=false\nk=4\nm=2\nplugin=jerasure\n"
            "technique=reed_sol_van\nw=8\n");
  json j = Json("osd erasure-code-profile get rs");
  EXPECT_EQ(j["k"], "4");
  EXPECT_EQ(j["plugin"], "jerasure");
  EXPECT_EQ(j["crush-failure-domain"], "host");

  // No keys at all: Ceph's default profile.
  Ok("osd erasure-code-profile set plain");
  EXPECT_EQ(Json("osd erasure-code-profile get plain")["k"], "2");
  EXPECT_EQ(Json("osd erasure-code-profile get plain")["m"], "2");

  EXPECT_EQ(Ok("osd erasure-code-profile ls").out, "plain\nrs\n");
  EXPECT_EQ(Json("osd erasure-code-profile ls"), json::array({"plain", "rs"}));
  EXPECT_TRUE(
      Contains(Ok("osd erasure-code-profile ls", Format::kJsonPretty).out, "[\n    \"plain\""));
}

TEST_F(AdminTest, ProfileSetAgainEqualIsNoOpDifferentIsRefused) {
  Ok("osd erasure-code-profile set rs k=4 m=2");
  const std::int64_t epoch = Map().epoch;
  // The same profile (the defaults written out or not): success, nothing written.
  Ok("osd erasure-code-profile set rs k=4 m=2");
  Ok("osd erasure-code-profile set rs k=4 m=2 plugin=jerasure technique=reed_sol_van w=8");
  EXPECT_EQ(Map().epoch, epoch);

  const std::string err = Fails("osd erasure-code-profile set rs k=3 m=2", "EPERM");
  EXPECT_TRUE(Contains(err,
                       "will not override erasure code profile rs because the existing profile "
                       "{crush-device-class=,crush-failure-domain=host,crush-root=default,"
                       "jerasure-per-chunk-alignment=false,k=4,m=2,"))
      << err;
  EXPECT_TRUE(Contains(err, "is different from the proposed profile {"));
  EXPECT_TRUE(Contains(err, ",k=3,m=2,"));
  EXPECT_EQ(Map().epoch, epoch);

  Ok("osd erasure-code-profile set rs k=3 m=2 --force");
  EXPECT_EQ(Map().epoch, epoch + 1);
  EXPECT_EQ(Map().profiles.at("rs").profile.at("k"), "3");
}

TEST_F(AdminTest, ProfileValidatedByLoadingThePlugin) {
  const std::int64_t epoch = Map().epoch;
  std::string err = Fails("osd erasure-code-profile set bad plugin=nosuchplugin", "EINVAL");
  EXPECT_TRUE(Contains(err, "nosuchplugin")) << err;
  err = Fails("osd erasure-code-profile set bad technique=nosuch", "EINVAL");
  EXPECT_TRUE(Contains(err, "technique=nosuch is not a valid coding technique")) << err;
  err = Fails("osd erasure-code-profile set bad k=abc", "EINVAL");
  EXPECT_TRUE(Contains(err, "k=abc")) << err;
  err = Fails("osd erasure-code-profile set bad crush-failure-domain=rack", "EINVAL");
  EXPECT_TRUE(Contains(err, "unknown crush-failure-domain 'rack'")) << err;
  err = Fails("osd erasure-code-profile set bad k", "EINVAL");
  EXPECT_TRUE(Contains(err, "'k': expected key=value")) << err;
  err = Fails("osd erasure-code-profile set bad plugin=", "EINVAL");
  EXPECT_TRUE(Contains(err, "no 'plugin' entry")) << err;
  // stripe_unit: the plugin's chunk size for k * stripe_unit must be stripe_unit (Ceph's rule).
  err = Fails("osd erasure-code-profile set bad k=4 m=2 stripe_unit=100", "EINVAL");
  EXPECT_TRUE(Contains(err,
                       "stripe_unit 100 does not match ec profile alignment. Would be padded "
                       "to 128"))
      << err;
  err = Fails("osd erasure-code-profile set bad k=4 m=2 stripe_unit=4000", "EINVAL");
  EXPECT_TRUE(Contains(err, "stripe_unit should be a multiple of 4096 bytes")) << err;
  err = Fails("osd erasure-code-profile set bad k=4 m=2 stripe_unit=lots", "EINVAL");
  EXPECT_TRUE(Contains(err, "could not parse stripe_unit 'lots'")) << err;
  EXPECT_EQ(Map().epoch, epoch);
  EXPECT_EQ(Map().profiles.count("bad"), 0u);

  Ok("osd erasure-code-profile set su k=4 m=2 stripe_unit=4000 --force");
  Ok("osd erasure-code-profile set su16 k=4 m=2 stripe_unit=16K");
  Ok("osd erasure-code-profile set byosd k=4 m=2 crush-failure-domain=osd");
  // Another plugin: the user's keys alone (not over the default profile's k=2 m=2), normalised
  // by that plugin (CLAY's defaults k=4 m=2 d=k+m-1).
  Ok("osd erasure-code-profile set clay plugin=clay");
  EXPECT_EQ(Map().profiles.at("clay").profile.at("k"), "4");
  EXPECT_EQ(Map().profiles.at("clay").profile.at("d"), "5");
  EXPECT_EQ(Map().profiles.at("clay").profile.at("plugin"), "clay");
  // shec: Ceph's defaults written back (the pool's size comes from k and m), and Ceph's message
  // for k, m, c given in part.
  Ok("osd erasure-code-profile set shec plugin=shec");
  const ClusterMap with_shec = Map();  // kept: the profile is a reference into it
  const ec::Profile& shec = with_shec.profiles.at("shec").profile;
  EXPECT_EQ(shec.at("k"), "4");
  EXPECT_EQ(shec.at("m"), "3");
  EXPECT_EQ(shec.at("c"), "2");
  EXPECT_EQ(shec.at("technique"), "multiple");
  err = Fails("osd erasure-code-profile set bad plugin=shec k=4 m=3", "EINVAL");
  EXPECT_TRUE(Contains(err, "(k, m, c) must be choosed")) << err;
}

TEST_F(AdminTest, ProfileGetRmAndInUse) {
  std::string err = Fails("osd erasure-code-profile get nope", "ENOENT");
  EXPECT_EQ(err, "Error ENOENT: unknown erasure code profile 'nope'\n");
  CommandResult rm = Ok("osd erasure-code-profile rm nope");
  EXPECT_EQ(rm.err, "erasure-code-profile nope does not exist\n");

  Ok("osd erasure-code-profile set rs k=4 m=2");
  Ok("osd pool create p 8 erasure rs");
  err = Fails("osd erasure-code-profile rm rs", "EBUSY");
  EXPECT_TRUE(Contains(err, "erasure-code-profile rs is in use by pool p")) << err;
  err = Fails("osd erasure-code-profile set rs k=3 m=2 --force", "EBUSY");
  EXPECT_TRUE(Contains(err, "erasure-code-profile rs is in use by pool p")) << err;

  Ok("osd pool rm p p --yes-i-really-really-mean-it");
  rm = Ok("osd erasure-code-profile rm rs");
  EXPECT_EQ(rm.err, "");
  EXPECT_EQ(Map().profiles.count("rs"), 0u);
}

// ---- OSDs ------------------------------------------------------------------------------------

TEST_F(AdminTest, OsdTreePlainAndJson) {
  BootCluster(3, 2);  // osd.0, osd.2 on h0; osd.1 on h1
  Down(2);
  Ok("osd out 2");
  const std::string tree = Ok("osd tree").out;
  EXPECT_EQ(tree,
            "ID  CLASS   WEIGHT  TYPE NAME      STATUS  REWEIGHT  PRI-AFF\n"
            "-1         3.00000  root default\n"
            "-2         2.00000      host h0\n"
            " 0         1.00000          osd.0      up   1.00000  1.00000\n"
            " 2         1.00000          osd.2    down         0  1.00000\n"
            "-3         1.00000      host h1\n"
            " 1         1.00000          osd.1      up   1.00000  1.00000\n")
      << tree;
  json j = Json("osd tree");
  ASSERT_EQ(j["nodes"].size(), 6u);
  EXPECT_EQ(j["stray"], json::array());
  EXPECT_EQ(j["nodes"][0]["id"], -1);
  EXPECT_EQ(j["nodes"][0]["type"], "root");
  EXPECT_EQ(j["nodes"][0]["children"], json::array({-2, -3}));
  EXPECT_EQ(j["nodes"][1]["name"], "h0");
  EXPECT_EQ(j["nodes"][1]["children"], json::array({0, 2}));
  json osd2 = j["nodes"][4];
  EXPECT_EQ(osd2["name"], "osd.2");
  EXPECT_EQ(osd2["status"], "down");
  EXPECT_EQ(osd2["reweight"], 0.0);
  EXPECT_EQ(osd2["crush_weight"], 1.0);
  EXPECT_EQ(osd2["type"], "osd");
}

TEST_F(AdminTest, OsdOutInIsOneEpochWithCephsMessages) {
  BootCluster(4, 2);
  const std::int64_t epoch = Map().epoch;
  CommandResult r = Ok("osd out 1 osd.2");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "marked out osd.1. marked out osd.2. \n");
  EXPECT_EQ(Map().epoch, epoch + 1);
  EXPECT_FALSE(Map().osds.at(1).in);
  EXPECT_FALSE(Map().osds.at(2).in);
  EXPECT_FALSE(Map().osds.at(2).auto_out);

  r = Ok("osd out 1");
  EXPECT_EQ(r.err, "osd.1 is already out. \n");
  EXPECT_EQ(Map().epoch, epoch + 1);

  // An unknown id refuses the whole command: osd.1 stays out.
  EXPECT_EQ(Fails("osd in 1 9", "ENOENT"), "Error ENOENT: osd.9 does not exist.\n");
  EXPECT_FALSE(Map().osds.at(1).in);
  EXPECT_EQ(Map().epoch, epoch + 1);
  EXPECT_TRUE(Contains(Fails("osd out x", "EINVAL"), "invalid osd id 'x'"));
  EXPECT_TRUE(Contains(Fails("osd out osd.-1", "EINVAL"), "invalid osd id"));

  r = Ok("osd in osd.1 2 0");
  EXPECT_EQ(r.err, "marked in osd.1. marked in osd.2. osd.0 is already in. \n");
  EXPECT_TRUE(Map().osds.at(1).in);
  EXPECT_EQ(Map().epoch, epoch + 2);
}

TEST_F(AdminTest, OsdRmOnlyDownOsds) {
  BootCluster(3, 3);
  const std::int64_t epoch = Map().epoch;
  EXPECT_TRUE(Contains(Fails("osd rm 1", "EBUSY"), "osd.1 is still up"));
  EXPECT_TRUE(Contains(Fails("osd rm 7", "ENOENT"), "osd.7 does not exist."));
  Down(1);
  Down(2);
  // osd.0 is up: the set fails and osd.1 stays.
  EXPECT_TRUE(Contains(Fails("osd rm 1 0", "EBUSY"), "osd.0 is still up"));
  EXPECT_EQ(Map().osds.count(1), 1u);
  EXPECT_EQ(Ok("osd rm 1 osd.2").err, "removed osd.1, osd.2\n");
  EXPECT_EQ(Map().osds.size(), 1u);
  EXPECT_EQ(Map().epoch, epoch + 3);
}

TEST_F(AdminTest, OsdDump) {
  BootCluster(2, 2);
  Ok("osd pool create p 4 erasure");
  const std::string plain = Ok("osd dump").out;
  EXPECT_TRUE(Contains(plain, "epoch " + std::to_string(Map().epoch) + "\n")) << plain;
  EXPECT_TRUE(Contains(plain, "'p' erasure profile default")) << plain;
  EXPECT_TRUE(Contains(plain, "osd.1 up   in  weight 1.00000 host h1 127.0.0.1:6801")) << plain;
  json j = Json("osd dump");
  EXPECT_EQ(j["epoch"], Map().epoch);
  EXPECT_EQ(j["pools"][0]["pool_name"], "p");
  EXPECT_EQ(j["osds"][1]["osd"], 1);
  EXPECT_EQ(j["osds"][1]["up"], 1);
  EXPECT_EQ(j["osds"][1]["public_addr"], "127.0.0.1:6801");
  EXPECT_EQ(j["erasure_code_profiles"]["default"]["k"], "2");
}

TEST_F(AdminTest, OsdMapAgreesWithPlacement) {
  Ok("osd erasure-code-profile set r21 k=2 m=1 crush-failure-domain=osd");
  Ok("osd pool create p 16 erasure r21");
  BootCluster(5, 2);
  const ClusterMap map = Map();
  const Pool& pool = *map.FindPool("p");
  Result<PoolPlacement> pp = PlacementOf(map, pool);
  ASSERT_TRUE(pp.ok());
  EXPECT_EQ(pp->size, 3);
  EXPECT_EQ(pp->failure_domain, FailureDomain::kOsd);
  Result<std::uint32_t> pg = ObjectToPg(*pp, "obj1");
  ASSERT_TRUE(pg.ok());
  Result<Placement> placement = PlacementFor(map);
  ASSERT_TRUE(placement.ok());
  std::vector<int> acting = *placement->Place(*pp, *pg);
  ASSERT_EQ(acting.size(), 3u);

  const std::string pgid = PgName(pool.id, *pg);
  Result<std::uint32_t> raw = ObjectRawHash(*pp, "obj1");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(StableMod(*raw, pp->pg_num), *pg) << "the raw hash is what the modulo reduces";
  const std::string raw_pgid = PgName(pool.id, *raw);
  auto list = [](const std::vector<int>& v) { return OsdList(v); };
  std::string expected = "osdmap e" + std::to_string(map.epoch) + " pool 'p' (" +
                         std::to_string(pool.id) + ") object 'obj1' -> pg " + raw_pgid + " (" +
                         pgid + ") -> up (" + list(acting) + ", p" + std::to_string(acting[0]) +
                         ") acting (" + list(acting) + ", p" + std::to_string(acting[0]) + ")\n";
  EXPECT_EQ(Ok("osd map p obj1").out, expected);

  json j = Json("osd map p obj1");
  EXPECT_EQ(j["epoch"], map.epoch);
  EXPECT_EQ(j["pool"], "p");
  EXPECT_EQ(j["pool_id"], pool.id);
  EXPECT_EQ(j["objname"], "obj1");
  EXPECT_EQ(j["pgid"], pgid);
  EXPECT_EQ(j["raw_pgid"], raw_pgid);
  EXPECT_EQ(j["up"], json(acting));
  EXPECT_EQ(j["acting"], json(acting));
  EXPECT_EQ(j["up_primary"], acting[0]);
  EXPECT_EQ(j["acting_primary"], acting[0]);

  // The first OSD goes down: its slot is NONE (2147483647 in JSON) in up, acting keeps it, and
  // the primary is the next up OSD.
  Down(acting[0]);
  j = Json("osd map p obj1");
  EXPECT_EQ(j["up"][0], 2147483647);
  EXPECT_EQ(j["up"][1], acting[1]);
  EXPECT_EQ(j["acting"], json(acting));
  EXPECT_EQ(j["up_primary"], acting[1]);
  EXPECT_EQ(j["acting_primary"], acting[1]);
  const std::string plain = Ok("osd map p obj1").out;
  EXPECT_TRUE(Contains(plain, "-> up ([NONE," + std::to_string(acting[1]) + ",")) << plain;

  EXPECT_EQ(Fails("osd map nope obj1", "ENOENT"), "Error ENOENT: pool nope does not exist\n");
}

// ---- status and health -----------------------------------------------------------------------

TEST(StatusReport, PgStateRule) {
  // k=4, m=2: size 6, min_size 5.
  EXPECT_EQ(ComputePgState(6, 6, 5, 4), PgState::kActiveClean);
  EXPECT_EQ(ComputePgState(5, 6, 5, 4), PgState::kActiveDegraded);
  EXPECT_EQ(ComputePgState(4, 6, 5, 4), PgState::kPeeredDegraded);
  EXPECT_EQ(ComputePgState(3, 6, 5, 4), PgState::kDown);
  EXPECT_EQ(ComputePgState(0, 6, 5, 4), PgState::kDown);
  EXPECT_STREQ(PgStateName(PgState::kActiveDegraded), "active+undersized+degraded");
  EXPECT_STREQ(PgStateName(PgState::kPeeredDegraded), "undersized+degraded+peered");
  EXPECT_EQ(ShortAge(45), "45s");
  EXPECT_EQ(ShortAge(600), "10m");
  EXPECT_EQ(ShortAge(3 * 3600), "3h");
  EXPECT_EQ(ShortAge(5 * 86400), "5d");
}

TEST(StatusReport, PureFunctionOfTheMap) {
  ClusterMap map;
  map.epoch = 7;
  map.profiles["rs"] = EcProfile{
      "rs", {{"plugin", "jerasure"}, {"k", "2"}, {"m", "2"}, {"crush-failure-domain", "osd"}}};
  map.pools[1] = Pool{1, "p", "rs", 64, 4096, 3};
  map.profiles["odd"] = EcProfile{"odd", {{"plugin", "jerasure"}, {"k", "two"}}};
  map.pools[2] = Pool{2, "q", "odd", 8, 4096, 1};
  for (int i = 0; i < 4; ++i) {
    OsdEntry o;
    o.id = i;
    o.host = "h" + std::to_string(i);
    o.up = i != 3;
    o.up_stamp_ms = kNow - 300'000;
    map.osds[i] = o;
  }
  Result<StatusReport> r = BuildStatusReport(map, "id");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_osds, 4);
  EXPECT_EQ(r->num_up_osds, 3);
  EXPECT_EQ(r->num_in_osds, 4);
  EXPECT_EQ(r->num_pgs, 72u);
  EXPECT_EQ(r->num_pools, 2u);
  // Every PG of p has all 4 OSDs; osd.3 is down: 3 of 4 up = min_size: active+undersized+degraded.
  ASSERT_EQ(r->pgs_by_state.size(), 2u);
  EXPECT_EQ(r->pgs_by_state[0].state_name, "active+undersized+degraded");
  EXPECT_EQ(r->pgs_by_state[0].count, 64u);
  EXPECT_EQ(r->pgs_by_state[1].state_name, "unknown");
  EXPECT_EQ(r->pgs_by_state[1].count, 8u);
  EXPECT_EQ(r->health_status, "HEALTH_WARN");
  // q's PGs are unknown (its profile gives no geometry): inactive, as Ceph counts unknown PGs.
  ASSERT_EQ(r->checks.size(), 3u);
  EXPECT_EQ(r->checks[0].code, "OSD_DOWN");
  EXPECT_EQ(r->checks[1].code, "PG_AVAILABILITY");
  EXPECT_EQ(r->checks[1].summary, "Reduced data availability: 8 pgs inactive");
  EXPECT_EQ(r->checks[1].count, 8u);
  EXPECT_EQ(r->checks[1].detail.front(), "pg 2.0 is unknown");
  EXPECT_EQ(r->checks[2].code, "PG_DEGRADED");
  EXPECT_EQ(r->checks[2].count, 64u);
  EXPECT_EQ(r->checks[2].detail.size(), kMaxDetail);
  EXPECT_EQ(RenderStatusPlain(*r, kNow),
            "  cluster:\n"
            "    id:     id\n"
            "    health: HEALTH_WARN\n"
            "            1 osds down\n"
            "            Reduced data availability: 8 pgs inactive\n"
            "            Degraded data redundancy: 64 pgs degraded, 64 pgs undersized\n"
            "\n"
            "  services:\n"
            "    osd: 4 osds: 3 up (since 5m), 4 in (since 5m)\n"
            "    auth: unknown\n"
            "\n"
            "  data:\n"
            "    pools:   2 pools, 72 pgs\n"
            "    objects: 0 objects, 0 B\n"
            "    usage:   0 B used, 0 B / 0 B avail\n"
            "    pgs:     64 active+undersized+degraded\n"
            "             8 unknown\n"
            "\n");

  // With the primaries' reports: every PG of p misses osd.3's shard, so each of its objects is
  // one degraded copy out of 4. osd.3 reported too, but it is no PG's primary while down.
  std::map<int, PgStatsReport> stats;
  for (int osd = 0; osd < 4; ++osd) stats[osd].osd = osd;
  for (std::uint32_t pg = 0; pg < 64; ++pg) {
    for (int osd = 0; osd < 4; ++osd) stats[osd].pgs[PgName(1, pg)].objects = osd == 3 ? 100 : 2;
  }
  r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->num_objects, 128u);
  EXPECT_EQ(r->degraded_objects, 128u);
  EXPECT_EQ(r->degraded_total, 512u);
  EXPECT_EQ(r->checks[2].summary,
            "Degraded data redundancy: 128/512 objects degraded (25.000%), 64 pgs degraded, 64 "
            "pgs undersized");
  // Whether the cluster authenticates, as the up OSDs report it (issue 32 item 5).
  EXPECT_EQ(AuthSummary({}), "unknown");
  EXPECT_EQ(AuthSummary({{"cephx", 3}}), "cephx");
  EXPECT_EQ(AuthSummary({{"none", 3}}), "none");
  EXPECT_EQ(AuthSummary({{"cephx", 1}, {"none", 2}}), "mixed (2 none, 1 cephx)");
  r->auth_modes = {{"none", 3}};
  EXPECT_TRUE(Contains(RenderStatusPlain(*r, kNow),
                       "    osd: 4 osds: 3 up (since 5m), 4 in (since 5m)\n    auth: none\n"));
  EXPECT_EQ(StatusJson(*r)["auth"], json::parse(R"({"mode":"none","osds":{"none":3}})"));
  const json j = StatusJson(*r);
  EXPECT_EQ(j["pgmap"]["num_objects"], 128);
  EXPECT_EQ(j["pgmap"]["degraded_objects"], 128);
  EXPECT_EQ(j["pgmap"]["degraded_total"], 512);
  EXPECT_TRUE(
      Contains(RenderStatusPlain(*r, kNow), "             128/512 objects degraded (25.000%)\n"));
}

TEST_F(AdminTest, StatusAllUpIsHealthOk) {
  BootCluster(6, 3);
  Ok("osd erasure-code-profile set rs k=2 m=2 crush-failure-domain=osd");
  Ok("osd pool create p 32 erasure rs");
  Ok("osd pool create q 16 erasure rs");
  json s = Json("status");
  EXPECT_EQ(s["health"]["status"], "HEALTH_OK");
  EXPECT_EQ(s["health"]["checks"], json::object());
  EXPECT_EQ(s["osdmap"]["epoch"], Map().epoch);
  EXPECT_EQ(s["fsid"], Map().fsid) << "the map's fsid, once it has one";
  EXPECT_EQ(Map().fsid.size(), 36u);
  EXPECT_EQ(s["osdmap"]["num_osds"], 6);
  EXPECT_EQ(s["osdmap"]["num_up_osds"], 6);
  EXPECT_EQ(s["osdmap"]["num_in_osds"], 6);
  EXPECT_EQ(s["osdmap"]["osd_up_since"], (kNow - 90'000) / 1000);
  EXPECT_EQ(s["osdmap"]["num_remapped_pgs"], 0);
  EXPECT_EQ(s["pgmap"]["num_pgs"], 48);
  EXPECT_EQ(s["pgmap"]["num_pools"], 2);
  EXPECT_EQ(s["pgmap"]["pgs_by_state"],
            json::parse(R"([{"state_name":"active+clean","count":48}])"));
  const std::string plain = Ok("status").out;
  EXPECT_TRUE(Contains(plain, "    id:     " + Map().fsid + "\n")) << plain;
  EXPECT_TRUE(Contains(plain, "    health: HEALTH_OK\n")) << plain;
  EXPECT_TRUE(Contains(plain, "    osd: 6 osds: 6 up (since 90s), 6 in (since 90s)\n")) << plain;
  EXPECT_TRUE(Contains(plain,
                       "    pools:   2 pools, 48 pgs\n    objects: 0 objects, 0 B\n"
                       "    usage:   0 B used, 0 B / 0 B avail\n    pgs:     48 active+clean\n"))
      << plain;
  EXPECT_EQ(Ok("health").out, "HEALTH_OK\n");
  EXPECT_EQ(Ok("health detail").out, "HEALTH_OK\n");
  EXPECT_EQ(Json("health")["status"], "HEALTH_OK");
}

TEST_F(AdminTest, StatusAndHealthDetailWithOsdsDown) {
  BootCluster(4, 2);  // h0: 0, 2; h1: 1, 3
  Ok("osd erasure-code-profile set rs k=2 m=2 crush-failure-domain=osd");
  Ok("osd pool create p 8 erasure rs");  // size 4, min_size 3: every PG on all 4 OSDs
  Down(3);
  json s = Json("status");
  EXPECT_EQ(s["health"]["status"], "HEALTH_WARN");
  EXPECT_EQ(s["osdmap"]["num_up_osds"], 3);
  json down = s["health"]["checks"]["OSD_DOWN"];
  EXPECT_EQ(down["severity"], "HEALTH_WARN");
  EXPECT_EQ(down["summary"]["message"], "1 osds down");
  EXPECT_EQ(down["summary"]["count"], 1);
  EXPECT_EQ(down["detail"][0]["message"], "osd.3 (root=default,host=h1) is down");
  json degraded = s["health"]["checks"]["PG_DEGRADED"];
  EXPECT_EQ(degraded["summary"]["message"],
            "Degraded data redundancy: 8 pgs degraded, 8 pgs undersized");
  EXPECT_EQ(s["pgmap"]["pgs_by_state"][0]["state_name"], "active+undersized+degraded");
  EXPECT_EQ(s["pgmap"]["pgs_by_state"][0]["count"], 8);

  std::string detail = Ok("health detail").out;
  EXPECT_EQ(detail.substr(0, detail.find('\n')),
            "HEALTH_WARN 1 osds down; Degraded data redundancy: 8 pgs degraded, 8 pgs "
            "undersized");
  EXPECT_TRUE(Contains(detail,
                       "\n[WRN] OSD_DOWN: 1 osds down\n"
                       "    osd.3 (root=default,host=h1) is down\n"))
      << detail;
  EXPECT_TRUE(Contains(detail, "\n[WRN] PG_DEGRADED: Degraded data redundancy: 8 pgs degraded"))
      << detail;
  EXPECT_TRUE(Contains(detail, "\n    pg 1.0 is active+undersized+degraded, acting [")) << detail;

  // Two down: 2 of 4 = k, below min_size: peered (inactive). Three down: down.
  Down(2);
  s = Json("status");
  EXPECT_EQ(s["pgmap"]["pgs_by_state"][0]["state_name"], "undersized+degraded+peered");
  EXPECT_EQ(s["health"]["checks"]["PG_AVAILABILITY"]["summary"]["message"],
            "Reduced data availability: 8 pgs inactive");
  Down(1);
  s = Json("status");
  EXPECT_EQ(s["pgmap"]["pgs_by_state"][0]["state_name"], "down");
  EXPECT_EQ(s["health"]["checks"]["PG_AVAILABILITY"]["summary"]["message"],
            "Reduced data availability: 8 pgs inactive, 8 pgs down");
  EXPECT_EQ(s["health"]["checks"].size(), 2u);  // no PG is degraded-but-peered any more
  // An out OSD that is down is not "down" for OSD_DOWN (Ceph counts down and in).
  Ok("osd out 1 2 3");
  EXPECT_EQ(Json("status")["health"]["checks"].count("OSD_DOWN"), 0u);
  EXPECT_EQ(Json("health detail")["checks"]["PG_AVAILABILITY"]["detail"].size(), 8u);
}

// Three threads race to create the same pools: each pool is created exactly once (one epoch
// each), the losers see "already exists" on the map they re-decide on, nothing fails.
TEST_F(AdminTest, RacingCommandsDecideOnTheMapTheyChange) {
  Ok("osd erasure-code-profile set rs k=2 m=1");
  const std::int64_t epoch = Map().epoch;
  constexpr int kPools = 8;
  std::atomic<int> created{0}, existed{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPools; ++i) {
        const std::string name = "p" + std::to_string(i);
        CommandResult r = RunCommand(Split("osd pool create " + name + " 4 erasure rs"), ctx_);
        if (r.exit_code != 0) {
          ++failed;
        } else if (r.err == "pool '" + name + "' created\n") {
          ++created;
        } else if (r.err == "pool '" + name + "' already exists\n") {
          ++existed;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(created.load(), kPools);
  EXPECT_EQ(existed.load(), 2 * kPools);
  const ClusterMap map = Map();
  EXPECT_EQ(map.pools.size(), static_cast<std::size_t>(kPools));
  EXPECT_EQ(map.pool_max, map.pools.rbegin()->first);
  EXPECT_EQ(map.epoch, epoch + kPools);
}

// ---- faults ----------------------------------------------------------------------------------

TEST_F(AdminTest, UnreachableEtcdNamesTheEndpoints) {
  etcd::ClientOptions options;
  const std::uint16_t port = EtcdServer::FreePort();
  options.endpoints = {etcd::Endpoint{"127.0.0.1", port}};
  options.timeout = std::chrono::milliseconds(500);
  const etcd::Client dead(options);
  const MapStore store(&dead, prefix_);
  AdminContext ctx = ctx_;
  ctx.store = &store;
  ctx.etcd_endpoints = "http://127.0.0.1:" + std::to_string(port);
  const auto start = std::chrono::steady_clock::now();
  for (const char* line : {"status", "osd pool create p 8 erasure", "osd tree",
                           "osd erasure-code-profile set rs k=4 m=2"}) {
    CommandResult r = RunCommand(Split(line), ctx);
    EXPECT_EQ(r.exit_code, ECONNREFUSED) << line;
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(Contains(r.err, "cannot reach etcd at http://127.0.0.1:" + std::to_string(port)))
        << line << ": " << r.err;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(AdminTest, CorruptMapValueNamesTheKey) {
  Ok("osd pool create p 8 erasure");
  const std::string key = prefix_ + "pool/0";
  etcd::PutRequest put;
  put.key = key;
  put.value = "{not json";
  ASSERT_TRUE(client_->Put(put).ok());
  for (const char* line : {"status", "osd pool ls", "osd pool create q 8 erasure", "osd out 1"}) {
    const std::string err = Fails(line, "EBADMSG");
    EXPECT_TRUE(Contains(err, key)) << line << ": " << err;
  }
}

}  // namespace
}  // namespace ec::cluster::admin
