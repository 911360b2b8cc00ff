// Scrubs in ec-admin: the pgid parser, the scrub health checks as a pure function (and the
// status report's treatment of scrub flags in a PG state); then, against a real etcd (one per
// suite, a key prefix per test), `pg scrub|deep-scrub|repair` writing the request the primary
// reads, naming the primary placement gives, refusing bad pgids, and `health [detail]`/`status`
// showing a stored scrub result.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/admin_test_fixture.h"
#include "cluster/admin/scrub_health.h"
#include "cluster/admin/status_report.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/pg_stats.h"
#include "cluster/map/pool_geometry.h"
#include "cluster/map/scrub_record.h"

namespace ec::cluster::admin {
namespace {

using nlohmann::json;

using test_support::Contains;
using test_support::kNow;

// A result of PG `pgid` with `bad` inconsistent objects (one shard read_error each).
ScrubResult MakeResult(const std::string& pgid, int bad, std::int64_t errors,
                       std::int64_t repaired) {
  ScrubResult r;
  r.pgid = pgid;
  r.osd = 0;
  r.epoch = 5;
  r.kind = ScrubKind::kDeepScrub;
  r.stamp_ms = r.last_scrub_ms = r.last_deep_scrub_ms = kNow - 1000;
  r.objects = 10;
  r.errors = errors;
  r.repaired = repaired;
  for (int i = 0; i < bad; ++i) {
    InconsistentObject o;
    o.name = "obj" + std::to_string(i);
    o.version = 7;
    o.union_shard_errors = {scrub_error::kReadError};
    o.shards = {ShardScrubError{0, true, 0, {}, 4096, 7},
                ShardScrubError{1, false, 1, {scrub_error::kReadError}, 4096, 7}};
    r.inconsistents.push_back(o);
  }
  return r;
}

// Epoch 9: osd.0-3 up on four hosts; pool 1 "p" (k=2 m=2, failure domain osd, 8 PGs, each on all
// four OSDs).
ClusterMap FourOsdMap() {
  ClusterMap map;
  map.epoch = 9;
  map.profiles["rs"] = EcProfile{
      "rs", {{"plugin", "jerasure"}, {"k", "2"}, {"m", "2"}, {"crush-failure-domain", "osd"}}};
  map.pools[1] = Pool{1, "p", "rs", 8, 4096, 3};
  for (int i = 0; i < 4; ++i) {
    OsdEntry o;
    o.id = i;
    o.host = "h" + std::to_string(i);
    o.up = true;
    o.up_stamp_ms = kNow - 300'000;
    map.osds[i] = o;
  }
  return map;
}

PgLocation Locate(const ClusterMap& map, std::int64_t pool, std::uint32_t pg) {
  auto locator = ObjectLocator::Make(std::make_shared<const ClusterMap>(map));
  EXPECT_TRUE(locator.ok()) << locator.status().ToString();
  auto loc = (*locator)->LocatePg(pool, pg);
  EXPECT_TRUE(loc.ok()) << loc.status().ToString();
  return loc.ok() ? *loc : PgLocation{};
}

TEST(ScrubHealth, ParsePgId) {
  EXPECT_EQ(ParsePgId("1.1f"), (PgId{1, 0x1f}));
  EXPECT_EQ(ParsePgId("0.0"), (PgId{0, 0}));
  EXPECT_EQ(ParsePgId("12.A"), (PgId{12, 0xa}));
  EXPECT_EQ(ParsePgId("3.001f"), (PgId{3, 0x1f}));
  EXPECT_EQ(ParsePgId("2.ffffffff"), (PgId{2, 0xffffffffu}));
  for (const char* bad :
       {"", "1", "1.", ".1", "x", "1.g", "-1.0", "+1.0", "1.-1", "1.3s0", "1.1f ", " 1.1f", "1..1",
        "1.1.1", "1.100000000", "99999999999999999999.0", "0x1.0"}) {
    EXPECT_FALSE(ParsePgId(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(ScrubHealth, ChecksOfTheResultsThatLeftErrors) {
  const ClusterMap map = FourOsdMap();
  std::map<std::string, ScrubResult> results;
  results["1.3"] = MakeResult("1.3", 2, 5, 1);  // 4 errors left
  results["1.5"] = MakeResult("1.5", 0, 0, 0);  // truncated, nothing recorded: counts 1
  results["1.5"].truncated = true;
  results["1.2"] = MakeResult("1.2", 0, 3, 3);    // everything repaired: not counted
  results["2.0"] = MakeResult("2.0", 1, 1, 0);    // no pool 2
  results["1.8"] = MakeResult("1.8", 1, 1, 0);    // pg_num is 8
  results["1.03"] = MakeResult("1.03", 1, 1, 0);  // not Ceph's form of a pgid
  results["1.a"] = MakeResult("1.a", 1, 1, 0);    // beyond pg_num too (0xa)

  // The primary of 1.3 reported at the map's epoch; the one of 1.5 at an older epoch (not used).
  std::map<int, PgStatsReport> stats;
  const PgLocation pg3 = Locate(map, 1, 3);
  const PgLocation pg5 = Locate(map, 1, 5);
  stats[pg3.primary].osd = pg3.primary;
  stats[pg3.primary].epoch = 9;
  stats[pg3.primary].pgs["1.3"].state = "active+clean+scrubbing+deep";
  if (pg5.primary != pg3.primary) {
    stats[pg5.primary].osd = pg5.primary;
    stats[pg5.primary].epoch = 8;
    stats[pg5.primary].pgs["1.5"].state = "active+recovering+degraded";
  }

  Result<std::vector<HealthCheck>> checks = ScrubHealthChecks(map, stats, results);
  ASSERT_TRUE(checks.ok()) << checks.status().ToString();
  ASSERT_EQ(checks->size(), 2u);
  const HealthCheck& errors = (*checks)[0];
  EXPECT_EQ(errors.code, "OSD_SCRUB_ERRORS");
  EXPECT_EQ(errors.severity, "HEALTH_ERR");
  EXPECT_EQ(errors.summary, "5 scrub errors");
  EXPECT_EQ(errors.count, 5u);
  EXPECT_TRUE(errors.detail.empty());
  const HealthCheck& damaged = (*checks)[1];
  EXPECT_EQ(damaged.code, "PG_DAMAGED");
  EXPECT_EQ(damaged.severity, "HEALTH_ERR");
  EXPECT_EQ(damaged.summary, "Possible data damage: 2 pgs inconsistent");
  EXPECT_EQ(damaged.count, 2u);
  EXPECT_EQ(damaged.detail,
            (std::vector<std::string>{
                "pg 1.3 is active+clean+scrubbing+deep+inconsistent, acting " + OsdList(pg3.up),
                "pg 1.5 is active+clean+inconsistent, acting " + OsdList(pg5.up)}));

  // One PG: "1 pg"; a state that says inconsistent already is left as it is.
  stats[pg3.primary].pgs["1.3"].state = "active+clean+inconsistent";
  checks = ScrubHealthChecks(map, stats, {{"1.3", MakeResult("1.3", 1, 1, 0)}});
  ASSERT_TRUE(checks.ok());
  ASSERT_EQ(checks->size(), 2u);
  EXPECT_EQ((*checks)[0].summary, "1 scrub errors");
  EXPECT_EQ((*checks)[1].summary, "Possible data damage: 1 pg inconsistent");
  EXPECT_EQ(
      (*checks)[1].detail,
      std::vector<std::string>{"pg 1.3 is active+clean+inconsistent, acting " + OsdList(pg3.up)});

  // Nothing left: no checks.
  checks = ScrubHealthChecks(map, stats, {{"1.2", MakeResult("1.2", 0, 3, 3)}});
  ASSERT_TRUE(checks.ok());
  EXPECT_TRUE(checks->empty());
  checks = ScrubHealthChecks(map, {}, {});
  ASSERT_TRUE(checks.ok());
  EXPECT_TRUE(checks->empty());
}

TEST(ScrubHealth, DetailOfADegradedPgAndAtMostMaxDetailLines) {
  ClusterMap map = FourOsdMap();
  map.pools[1].pg_num = 64;
  map.osds[3].up = false;
  std::map<std::string, ScrubResult> results;
  for (std::uint32_t pg = 0; pg < 64; ++pg) {
    results[PgName(1, pg)] = MakeResult(PgName(1, pg), 1, 2, 0);
  }
  Result<std::vector<HealthCheck>> checks = ScrubHealthChecks(map, {}, results);
  ASSERT_TRUE(checks.ok());
  ASSERT_EQ(checks->size(), 2u);
  EXPECT_EQ((*checks)[0].summary, "128 scrub errors");
  EXPECT_EQ((*checks)[1].count, 64u);
  ASSERT_EQ((*checks)[1].detail.size(), kMaxDetail);
  // In PG order (1.2 before 1.10), with the state the map gives (osd.3 down: 3 of 4 up).
  EXPECT_EQ((*checks)[1].detail[2], "pg 1.2 is active+undersized+degraded+inconsistent, acting " +
                                        OsdList(Locate(map, 1, 2).up));
  EXPECT_TRUE(Contains((*checks)[1].detail[16], "pg 1.10 is ")) << (*checks)[1].detail[16];
}

TEST(ScrubHealth, AddedChecksAreInCodeOrderAndMakeHealthErr) {
  ClusterMap map = FourOsdMap();
  map.osds[3].up = false;
  Result<StatusReport> r = BuildStatusReport(map, "id");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->health_status, "HEALTH_WARN");
  Result<std::vector<HealthCheck>> checks =
      ScrubHealthChecks(map, {}, {{"1.3", MakeResult("1.3", 1, 2, 0)}});
  ASSERT_TRUE(checks.ok());
  AddHealthChecks(*checks, &*r);
  EXPECT_EQ(r->health_status, "HEALTH_ERR");
  std::vector<std::string> codes;
  for (const HealthCheck& c : r->checks) codes.push_back(c.code);
  EXPECT_EQ(codes, (std::vector<std::string>{"OSD_DOWN", "OSD_SCRUB_ERRORS", "PG_DAMAGED",
                                             "PG_DEGRADED"}));
  const std::string health = RenderHealthPlain(*r, true);
  EXPECT_EQ(health.substr(0, health.find('\n')),
            "HEALTH_ERR 1 osds down; 2 scrub errors; Possible data damage: 1 pg inconsistent; "
            "Degraded data redundancy: 8 pgs degraded, 8 pgs undersized");
  EXPECT_TRUE(Contains(health,
                       "\n[ERR] OSD_SCRUB_ERRORS: 2 scrub errors\n"
                       "[ERR] PG_DAMAGED: Possible data damage: 1 pg inconsistent\n"
                       "    pg 1.3 is active+undersized+degraded+inconsistent, acting "))
      << health;
  const json j = HealthJson(*r, true);
  EXPECT_EQ(j["status"], "HEALTH_ERR");
  EXPECT_EQ(j["checks"]["OSD_SCRUB_ERRORS"]["severity"], "HEALTH_ERR");
  EXPECT_EQ(j["checks"]["OSD_SCRUB_ERRORS"]["summary"]["count"], 2);
  EXPECT_EQ(j["checks"]["PG_DAMAGED"]["summary"]["message"],
            "Possible data damage: 1 pg inconsistent");
  EXPECT_EQ(j["checks"]["PG_DAMAGED"]["detail"].size(), 1u);

  // No checks to add: the status is what the report had.
  Result<StatusReport> clean = BuildStatusReport(FourOsdMap(), "id");
  ASSERT_TRUE(clean.ok());
  AddHealthChecks({}, &*clean);
  EXPECT_EQ(clean->health_status, "HEALTH_OK");
  EXPECT_TRUE(clean->checks.empty());
}

// A primary's state with scrub flags after "active+clean" is a clean PG (not PG_DEGRADED); any
// other addition is not.
TEST(ScrubHealth, ScrubFlagsInAReportedStateAreNotDegraded) {
  const ClusterMap map = FourOsdMap();
  const char* clean[] = {"active+clean+scrubbing", "active+clean+scrubbing+deep",
                         "active+clean+inconsistent", "active+clean+scrubbing+deep+inconsistent",
                         "active+clean+scrubbing+deep+repair"};
  std::map<int, PgStatsReport> stats;
  for (int osd = 0; osd < 4; ++osd) {
    stats[osd].osd = osd;
    stats[osd].epoch = 9;
    for (std::uint32_t pg = 0; pg < 8; ++pg) {
      stats[osd].pgs[PgName(1, pg)] = PgStat{1, clean[pg % 5], 0, 0, 0, 0, 0, 0, 0, {}, {}};
    }
  }
  Result<StatusReport> r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->health_status, "HEALTH_OK");
  EXPECT_TRUE(r->checks.empty());
  std::uint64_t total = 0;
  for (const PgStateCount& s : r->pgs_by_state) total += s.count;
  EXPECT_EQ(total, 8u);
  EXPECT_EQ(r->pgs_by_state.size(), 5u);

  for (int osd = 0; osd < 4; ++osd) {
    stats[osd].pgs["1.0"].state = "active+clean+wait";
    stats[osd].pgs["1.1"].state = "active+cleaning";
  }
  r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->checks.size(), 1u);
  EXPECT_EQ(r->checks[0].code, "PG_DEGRADED");
  EXPECT_EQ(r->checks[0].count, 2u);
}

// ---- against etcd ----------------------------------------------------------------------------

class ScrubAdminTest : public test_support::AdminFixture {
 protected:
  void Boot(int id) { AdminFixture::Boot(id, "h" + std::to_string(id % 2)); }
  // osd.0-3 on two hosts and pool "p" (k=2 m=2, failure domain osd, 16 PGs); returns its id.
  std::int64_t MakePool() {
    for (int i = 0; i < 4; ++i) Boot(i);
    Ok("osd erasure-code-profile set rs k=2 m=2 crush-failure-domain=osd");
    Ok("osd pool create p 16 erasure rs");
    return Map().FindPool("p")->id;
  }
  std::optional<ScrubRequest> Request(const std::string& pgid) {
    Result<etcd::KeyValue> kv = client_->Get(ScrubRequestKey(prefix_, pgid));
    if (!kv.ok()) return std::nullopt;
    Result<ScrubRequest> r = DecodeScrubRequest(kv->key, kv->value);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::optional<ScrubRequest>(*r) : std::nullopt;
  }
  std::size_t RequestCount() {
    Result<std::map<std::string, ScrubRequest>> all = LoadScrubRequests(*client_, prefix_);
    EXPECT_TRUE(all.ok());
    return all.ok() ? all->size() : 0;
  }
  void PutResult(const ScrubResult& result) {
    etcd::PutRequest put;
    put.key = ScrubResultKey(prefix_, result.pgid);
    put.value = EncodeScrubResult(result);
    ASSERT_TRUE(client_->Put(put).ok());
  }
};

TEST_F(ScrubAdminTest, PgScrubDeepScrubRepairWriteTheRequestForThePrimary) {
  const std::int64_t pool = MakePool();
  const std::string pgid = PgName(pool, 3);
  const int primary = Locate(Map(), pool, 3).primary;
  ASSERT_NE(primary, kItemNone);
  const std::string osd = "osd." + std::to_string(primary);
  for (ScrubKind kind : {ScrubKind::kScrub, ScrubKind::kDeepScrub, ScrubKind::kRepair}) {
    const std::string op(ScrubKindName(kind));
    SCOPED_TRACE(op);
    CommandResult r = Ok("pg " + op + " " + pgid);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "instructing pg " + pgid + " on " + osd + " to " + op + "\n");
    // The newer request replaces the older one: one key per PG.
    EXPECT_EQ(Request(pgid), (ScrubRequest{kind, kNow}));
    EXPECT_EQ(RequestCount(), 1u);
  }
  const std::int64_t epoch = Map().epoch;

  // Ceph's other spellings of the same PG ("1.A", "1.03") name it in Ceph's form.
  CommandResult r = Ok("pg deep-scrub " + std::to_string(pool) + ".A");
  EXPECT_TRUE(Contains(r.err, "instructing pg " + PgName(pool, 10) + " on osd.")) << r.err;
  EXPECT_EQ(Request(PgName(pool, 10)), (ScrubRequest{ScrubKind::kDeepScrub, kNow}));
  Ok("pg scrub " + std::to_string(pool) + ".03");
  EXPECT_EQ(Request(pgid), (ScrubRequest{ScrubKind::kScrub, kNow}));
  EXPECT_EQ(Map().epoch, epoch) << "a scrub request is not a map change";

  // The primary down: the next up OSD of the acting set is the one instructed.
  Down(primary);
  const PgLocation loc = Locate(Map(), pool, 3);
  ASSERT_NE(loc.primary, primary);
  r = Ok("pg repair " + pgid);
  EXPECT_EQ(r.err,
            "instructing pg " + pgid + " on osd." + std::to_string(loc.primary) + " to repair\n");
}

TEST_F(ScrubAdminTest, PgScrubErrors) {
  const std::int64_t pool = MakePool();
  const std::string p = std::to_string(pool);
  EXPECT_TRUE(Contains(Fails("pg scrub", "EINVAL"), "missing PGID; usage: pg scrub PGID"));
  EXPECT_TRUE(Contains(Fails("pg deep-scrub", "EINVAL"), "usage: pg deep-scrub PGID"));
  EXPECT_TRUE(Contains(Fails("pg repair " + p + ".1 " + p + ".2", "EINVAL"),
                       "too many arguments to 'pg repair'; usage: pg repair PGID"));
  const std::string frob = Unknown("pg frob " + p + ".1", "pg frob");
  EXPECT_TRUE(Contains(frob, "8 closest matches:\npg ")) << frob;
  EXPECT_TRUE(Contains(Unknown("pg", "pg"), "\npg scrub PGID\npg deep-scrub PGID\n"));
  EXPECT_EQ(Fails("pg scrub x", "EINVAL"), "Error EINVAL: invalid pgid 'x'\n");
  EXPECT_EQ(Fails("pg scrub " + p + ".3s0", "EINVAL"),
            "Error EINVAL: invalid pgid '" + p + ".3s0'\n");
  EXPECT_EQ(Fails("pg deep-scrub -1.0", "EINVAL"), "Error EINVAL: invalid pgid '-1.0'\n");
  EXPECT_EQ(Fails("pg scrub 9.0", "ENOENT"), "Error ENOENT: pg 9.0 does not exist\n");
  EXPECT_EQ(Fails("pg repair " + p + ".10", "ENOENT"),
            "Error ENOENT: pg " + p + ".10 does not exist\n");
  EXPECT_EQ(Fails("pg repair " + p + ".ffffffff", "ENOENT"),
            "Error ENOENT: pg " + p + ".ffffffff does not exist\n");
  EXPECT_EQ(RequestCount(), 0u);

  // No OSD of the PG up: EAGAIN, and nothing written.
  for (int i = 0; i < 4; ++i) Down(i);
  const std::string err = Fails("pg deep-scrub " + p + ".3", "EAGAIN");
  EXPECT_EQ(err.rfind("Error EAGAIN: pg " + p + ".3 has no primary osd: no OSD of [", 0), 0u)
      << err;
  EXPECT_EQ(RequestCount(), 0u);
}

TEST_F(ScrubAdminTest, HealthShowsWhatTheLastScrubLeft) {
  const std::int64_t pool = MakePool();
  const std::string pgid = PgName(pool, 3);
  const PgLocation loc = Locate(Map(), pool, 3);
  EXPECT_EQ(Ok("health detail").out, "HEALTH_OK\n");

  // A clean result, and one of a pool that does not exist: nothing to say.
  PutResult(MakeResult(PgName(pool, 4), 0, 0, 0));
  PutResult(MakeResult(PgName(pool + 7, 0), 1, 1, 0));
  EXPECT_EQ(Ok("health detail").out, "HEALTH_OK\n");
  EXPECT_EQ(Json("health detail")["checks"], json::object());

  PutResult(MakeResult(pgid, 1, 2, 0));
  EXPECT_EQ(Ok("health").out,
            "HEALTH_ERR 2 scrub errors; Possible data damage: 1 pg inconsistent\n");
  const std::string line =
      "pg " + pgid + " is active+clean+inconsistent, acting " + OsdList(loc.up);
  EXPECT_EQ(Ok("health detail").out,
            "HEALTH_ERR 2 scrub errors; Possible data damage: 1 pg inconsistent\n"
            "[ERR] OSD_SCRUB_ERRORS: 2 scrub errors\n"
            "[ERR] PG_DAMAGED: Possible data damage: 1 pg inconsistent\n"
            "    " +
                line + "\n");
  json j = Json("health detail");
  EXPECT_EQ(j["status"], "HEALTH_ERR");
  EXPECT_EQ(j["checks"]["OSD_SCRUB_ERRORS"]["summary"]["message"], "2 scrub errors");
  EXPECT_EQ(j["checks"]["OSD_SCRUB_ERRORS"]["summary"]["count"], 2);
  EXPECT_EQ(j["checks"]["PG_DAMAGED"]["severity"], "HEALTH_ERR");
  EXPECT_EQ(j["checks"]["PG_DAMAGED"]["summary"]["count"], 1);
  EXPECT_EQ(j["checks"]["PG_DAMAGED"]["detail"][0]["message"], line);
  const std::string status = Ok("status").out;
  EXPECT_TRUE(Contains(status,
                       "    health: HEALTH_ERR\n"
                       "            2 scrub errors\n"
                       "            Possible data damage: 1 pg inconsistent\n"))
      << status;
  EXPECT_EQ(Json("status")["health"]["checks"]["PG_DAMAGED"]["detail"][0]["message"], line);

  // The primary's report at the map's epoch gives the state (and scrub flags are not degraded).
  PgStatsReport report;
  report.osd = loc.primary;
  report.epoch = Map().epoch;
  report.stamp_ms = kNow;
  report.pgs[pgid] =
      PgStat{3, "active+clean+scrubbing+deep+inconsistent", 0, 0, 0, 0, 0, 0, 0, {}, {}};
  ASSERT_TRUE(PublishPgStats(*client_, prefix_, report).ok());
  j = Json("health detail");
  EXPECT_EQ(
      j["checks"]["PG_DAMAGED"]["detail"][0]["message"],
      "pg " + pgid + " is active+clean+scrubbing+deep+inconsistent, acting " + OsdList(loc.up));
  EXPECT_EQ(j["checks"].size(), 2u) << j.dump();

  // A repair that fixed everything overwrites the record: healthy again.
  PutResult(MakeResult(pgid, 0, 2, 2));
  EXPECT_EQ(Ok("health detail").out, "HEALTH_OK\n");
  EXPECT_EQ(Json("status")["health"]["status"], "HEALTH_OK");
}

TEST(AdminHelp, PgCommandsAreListedAndExplained) {
  const std::string help = HelpText();
  for (const char* c : {"pg scrub PGID", "pg deep-scrub PGID", "pg repair PGID"}) {
    EXPECT_TRUE(Contains(help, c)) << c;
  }
  const std::string pg = HelpFor({"pg"});
  EXPECT_TRUE(Contains(pg, "usage: ec-admin pg scrub PGID\n")) << pg;
  EXPECT_TRUE(Contains(pg, "usage: ec-admin pg repair PGID\n")) << pg;
  const std::string deep = HelpFor({"pg", "deep-scrub"});
  EXPECT_TRUE(Contains(deep, "checksums")) << deep;
  EXPECT_TRUE(Contains(deep, "ec-rados list-inconsistent-obj PGID")) << deep;
  EXPECT_FALSE(Contains(deep, "usage: ec-admin pg repair")) << deep;
}

}  // namespace
}  // namespace ec::cluster::admin
