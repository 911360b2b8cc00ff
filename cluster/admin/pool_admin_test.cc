// ec-admin's pool commands in-process (osd pool create|ls|rm) against a real etcd (the fixture of
// admin_test_fixture.h): Ceph's output and messages, every error, the default profile made in the
// same epoch, and allow_ec_optimizations from osd_pool_default_flag_ec_optimizations, shown by
// `osd pool ls detail` and `osd dump` and fixed for the pool's life.
#include <gtest/gtest.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/admin_test_fixture.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/map_store.h"

namespace ec::cluster::admin {
namespace {

using nlohmann::json;
using test_support::Contains;

class PoolAdminTest : public test_support::AdminFixture {};

TEST_F(PoolAdminTest, PoolCreateAndLs) {
  Ok("osd erasure-code-profile set rs k=4 m=2");
  CommandResult r = Ok("osd pool create p 32 erasure rs");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pool 'p' created\n");
  const ClusterMap map = Map();
  const Pool* p = map.FindPool("p");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->pg_num, 32u);
  EXPECT_EQ(p->stripe_unit, 4096u);
  EXPECT_EQ(p->min_size, 5);                                  // k + 1 (m > 1)
  EXPECT_EQ(p->data_chunks, (std::vector<int>{0, 1, 2, 3}));  // for clients' direct reads

  r = Ok("osd pool create p 32 erasure rs");
  EXPECT_EQ(r.err, "pool 'p' already exists\n");
  EXPECT_EQ(Map().epoch, map.epoch);

  // PGP_NUM equal to PG_NUM; a profile with m = 1 gets min_size k; its own stripe_unit.
  Ok("osd erasure-code-profile set m1 k=2 m=1 stripe_unit=8K");
  Ok("osd pool create q 16 16 erasure m1");
  EXPECT_EQ(Map().FindPool("q")->min_size, 2);
  EXPECT_EQ(Map().FindPool("q")->stripe_unit, 8192u);

  EXPECT_EQ(Ok("osd pool ls").out, "p\nq\n");
  EXPECT_EQ(Json("osd pool ls"), json::array({"p", "q"}));
  const std::string detail = Ok("osd pool ls detail").out;
  EXPECT_TRUE(Contains(detail, "pool " + std::to_string(p->id) +
                                   " 'p' erasure profile rs size 6 min_size 5 pg_num 32 pgp_num "
                                   "32 flags ec_optimizations stripe_width 16384\n"))
      << detail;
  EXPECT_TRUE(Contains(detail,
                       "'q' erasure profile m1 size 3 min_size 2 pg_num 16 pgp_num 16 "
                       "flags ec_optimizations stripe_width 16384\n"))
      << detail;
  json j = Json("osd pool ls detail");
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["pool_id"], p->id);
  EXPECT_EQ(j[0]["pool_name"], "p");
  EXPECT_EQ(j[0]["type"], 3);
  EXPECT_EQ(j[0]["size"], 6);
  EXPECT_EQ(j[0]["min_size"], 5);
  EXPECT_EQ(j[0]["pg_num"], 32);
  EXPECT_EQ(j[0]["pg_placement_num"], 32);
  EXPECT_EQ(j[0]["erasure_code_profile"], "rs");
  EXPECT_EQ(j[0]["stripe_width"], 16384);
  EXPECT_EQ(j[0]["flags_names"], "ec_optimizations");
}

// A pool records where its data chunks are (clients' direct reads): LRC by its mapping.
TEST_F(PoolAdminTest, PoolCreateRecordsTheDataChunks) {
  Ok("osd erasure-code-profile set lrc plugin=lrc mapping=__DD__DD "
     "layers=[[\"_cDD_cDD\",\"\"],[\"cDDD____\",\"\"],[\"____cDDD\",\"\"]]");
  Ok("osd pool create l 8 erasure lrc");
  ASSERT_NE(Map().FindPool("l"), nullptr);
  EXPECT_EQ(Map().FindPool("l")->data_chunks, (std::vector<int>{2, 3, 6, 7}));
}

TEST_F(PoolAdminTest, PoolCreateMakesTheDefaultProfileInTheSameEpoch) {
  const std::int64_t epoch = Map().epoch;
  Ok("osd pool create p 8 erasure");
  const ClusterMap map = Map();
  EXPECT_EQ(map.epoch, epoch + 1);  // profile and pool in one change set
  ASSERT_EQ(map.profiles.count("default"), 1u);
  EXPECT_EQ(
      map.profiles.at("default").profile,
      (ec::Profile{{"k", "2"}, {"m", "2"}, {"plugin", "jerasure"}, {"technique", "reed_sol_van"}}));
  EXPECT_EQ(map.FindPool("p")->profile, "default");
  EXPECT_EQ(map.FindPool("p")->min_size, 3);
  // A second pool uses the existing default profile.
  Ok("osd pool create q 8 erasure default");
  EXPECT_EQ(Map().epoch, epoch + 2);
}

TEST_F(PoolAdminTest, PoolCreateErrors) {
  Ok("osd erasure-code-profile set rs k=4 m=2");
  const std::int64_t epoch = Map().epoch;
  const std::string range = "'pg_num' must be greater than 0 and less than or equal to 65536";
  EXPECT_TRUE(Contains(Fails("osd pool create p 0 erasure rs", "ERANGE"), range));
  EXPECT_TRUE(Contains(Fails("osd pool create p 65537 erasure rs", "ERANGE"), range));
  EXPECT_TRUE(
      Contains(Fails("osd pool create p 99999999999999999999 erasure rs", "ERANGE"), range));
  EXPECT_TRUE(Contains(Fails("osd pool create p lots erasure rs", "EINVAL"),
                       "invalid pg_num 'lots': not a number"));
  EXPECT_TRUE(Contains(Fails("osd pool create p -1 erasure rs", "EINVAL"), "not a number"));
  EXPECT_TRUE(Contains(Fails("osd pool create p 8 4 erasure rs", "EINVAL"), "'pgp_num'"));
  EXPECT_TRUE(Contains(Fails("osd pool create p 8 erasure nope", "ENOENT"),
                       "erasure-code-profile nope does not exist"));
  EXPECT_TRUE(Contains(Fails("osd pool create p 8 mirrored", "EINVAL"), "pool type 'mirrored'"));
  // Replicated pools: Ceph's size bounds and messages, a rule other than replicated_rule.
  EXPECT_EQ(Fails("osd pool create p 8 replicated --size 11", "EINVAL"),
            "Error EINVAL: pool size must be between 1 and 10\n");
  EXPECT_EQ(Fails("osd pool create p 8 replicated --size 0", "EINVAL"),
            "Error EINVAL: pool size must be between 1 and 10\n");
  EXPECT_EQ(Fails("osd pool create p 8 replicated --size 1", "EPERM"),
            "Error EPERM: WARNING: setting pool size 1 could lead to data loss without recovery. "
            "If you are *ABSOLUTELY CERTAIN* that is what you want, pass the flag "
            "--yes-i-really-mean-it.\n");
  EXPECT_TRUE(Contains(Fails("osd pool create p 8 replicated --size three", "EINVAL"),
                       "error parsing integer value 'three' for size"));
  EXPECT_TRUE(Contains(Fails("osd pool create p 8 replicated rs", "ENOENT"),
                       "specified rule rs doesn't exist"));
  EXPECT_TRUE(Contains(Fails("osd pool create p 8 replicated --frob", "EINVAL"), "'--frob'"));
  EXPECT_TRUE(Contains(Fails("osd pool create p 0 replicated", "ERANGE"), range));
  EXPECT_EQ(Map().epoch, epoch);
  EXPECT_EQ(Map().pools.size(), 0u);
}

// ---- replicated pools (issue 30) ---------------------------------------------------------------

// Ceph's syntax and defaults: `replicated` (or no type at all) makes a pool of
// osd_pool_default_size (3) copies and min_size size - size/2 (2), no profile, data chunk 0,
// shown as Ceph shows a replicated pool.
TEST_F(PoolAdminTest, ReplicatedPoolCreateAndLs) {
  CommandResult r = Ok("osd pool create rep 16 replicated");
  EXPECT_EQ(r.err, "pool 'rep' created\n");
  Ok("osd pool create plain 8");  // Ceph's default type
  Ok("osd pool create two 8 8 replicated replicated_rule --size 2");
  Ok("osd pool create one 8 replicated --size=1 --yes-i-really-mean-it");
  Ok("osd pool create four 8 --size 4");
  const ClusterMap map = Map();
  const Pool* rep = map.FindPool("rep");
  ASSERT_NE(rep, nullptr);
  EXPECT_EQ(rep->type, PoolType::kReplicated);
  EXPECT_EQ(rep->size, 3);
  EXPECT_EQ(rep->min_size, 2);
  EXPECT_EQ(rep->profile, "");
  EXPECT_EQ(rep->pg_num, 16u);
  EXPECT_EQ(rep->stripe_unit, 4096u);
  EXPECT_EQ(rep->data_chunks, (std::vector<int>{0}));
  EXPECT_FALSE(rep->ec_optimizations);
  EXPECT_EQ(map.FindPool("plain")->type, PoolType::kReplicated);
  EXPECT_EQ(map.FindPool("two")->size, 2);
  EXPECT_EQ(map.FindPool("two")->min_size, 1);  // 2 - 2/2
  EXPECT_EQ(map.FindPool("one")->size, 1);
  EXPECT_EQ(map.FindPool("one")->min_size, 1);
  EXPECT_EQ(map.FindPool("four")->min_size, 2);  // 4 - 4/2
  EXPECT_TRUE(map.profiles.empty());             // no default profile made for them

  const std::string detail = Ok("osd pool ls detail").out;
  EXPECT_TRUE(Contains(detail, "pool " + std::to_string(rep->id) +
                                   " 'rep' replicated size 3 min_size 2 pg_num 16 pgp_num 16 "
                                   "stripe_width 0\n"))
      << detail;
  json j = Json("osd pool ls detail");
  EXPECT_EQ(j[0]["pool_name"], "rep");
  EXPECT_EQ(j[0]["type"], 1);  // Ceph's pg_pool_t::TYPE_REPLICATED
  EXPECT_EQ(j[0]["size"], 3);
  EXPECT_EQ(j[0]["min_size"], 2);
  EXPECT_EQ(j[0]["erasure_code_profile"], "");
  EXPECT_EQ(j[0]["stripe_width"], 0);
  EXPECT_EQ(j[0]["flags_names"], "");
  const std::string dump = Ok("osd dump").out;
  EXPECT_TRUE(Contains(dump, "'rep' replicated size 3 min_size 2 pg_num 16 stripe_unit 4096\n"))
      << dump;
  j = Json("osd dump");
  EXPECT_EQ(j["pools"][0]["type"], 1);
  EXPECT_EQ(j["pools"][0]["size"], 3);

  // The map refuses a change of its type, a profile on it, a size out of range.
  Ok("osd erasure-code-profile set rs k=4 m=2");
  Pool changed = *rep;
  changed.type = PoolType::kErasure;
  changed.size = 0;
  changed.profile = "rs";
  Result<ClusterMap> refused = store_->Apply({MapChange::PutPool(changed)});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), EINVAL);
  EXPECT_TRUE(Contains(refused.status().message(), "type is fixed at pool creation"))
      << refused.status().message();
  Pool too_big = *rep;
  too_big.size = 11;
  EXPECT_EQ(store_->Apply({MapChange::PutPool(too_big)}).status().code(), EINVAL);
  Pool with_profile = *rep;
  with_profile.id = -1;
  with_profile.name = "x";
  with_profile.profile = "rs";
  EXPECT_EQ(store_->Apply({MapChange::PutPool(with_profile)}).status().code(), EINVAL);
}

// The size and min_size come from osd_pool_default_size / osd_pool_default_min_size: the file's
// (ctx), unless the cluster's config sets them.
TEST_F(PoolAdminTest, ReplicatedPoolTakesItsSizeFromTheConfigOptions) {
  ctx_.osd_pool_default_size = 4;
  ctx_.osd_pool_default_min_size = 3;
  Ok("osd pool create a 8 replicated");
  EXPECT_EQ(Map().FindPool("a")->size, 4);
  EXPECT_EQ(Map().FindPool("a")->min_size, 3);
  Ok("config set global osd_pool_default_size 5");
  Ok("config set global osd_pool_default_min_size 0");
  Ok("osd pool create b 8 replicated");
  EXPECT_EQ(Map().FindPool("b")->size, 5);
  EXPECT_EQ(Map().FindPool("b")->min_size, 3);  // 5 - 5/2
  Ok("config set global osd_pool_default_min_size 9");
  Ok("osd pool create c 8 replicated --size 2");
  EXPECT_EQ(Map().FindPool("c")->size, 2);
  EXPECT_EQ(Map().FindPool("c")->min_size, 2);  // at most the size
}

// get and set on a replicated pool: Ceph's outputs, exit codes and messages.
TEST_F(PoolAdminTest, ReplicatedPoolGetAndSet) {
  Ok("osd pool create rep 8 replicated");
  const std::int64_t id = Map().FindPool("rep")->id;
  EXPECT_EQ(Ok("osd pool get rep size").out, "size: 3\n");
  EXPECT_EQ(Ok("osd pool get rep min_size").out, "min_size: 2\n");
  EXPECT_EQ(Ok("osd pool get rep all").out, "size: 3\nmin_size: 2\npg_num: 8\npgp_num: 8\n");
  json all = Json("osd pool get rep all");
  EXPECT_EQ(all["size"], 3);
  EXPECT_EQ(all["min_size"], 2);
  EXPECT_FALSE(all.contains("erasure_code_profile"));
  EXPECT_EQ(Fails("osd pool get rep erasure_code_profile", "EACCES"),
            "Error EACCES: pool 'rep' is not a erasure pool: variable not applicable\n");
  Fails("osd pool get rep allow_ec_optimizations", "EACCES");

  EXPECT_EQ(Ok("osd pool set rep min_size 1").err,
            "set pool " + std::to_string(id) + " min_size to 1\n");
  EXPECT_EQ(Map().FindPool("rep")->min_size, 1);
  Ok("osd pool set rep min_size 3");
  EXPECT_EQ(Fails("osd pool set rep min_size 4", "EINVAL"),
            "Error EINVAL: pool min_size must be between 1 and size, which is set to 3\n");
  Fails("osd pool set rep min_size 0", "EINVAL");
  EXPECT_EQ(Map().FindPool("rep")->min_size, 3);

  // The size: its own changes nothing; another is one epoch, min_size lowered to it when above.
  std::int64_t epoch = Map().epoch;
  EXPECT_EQ(Ok("osd pool set rep size 3").err, "set pool " + std::to_string(id) + " size to 3\n");
  EXPECT_EQ(Map().epoch, epoch);
  EXPECT_EQ(Ok("osd pool set rep size 4").err, "set pool " + std::to_string(id) + " size to 4\n");
  EXPECT_EQ(Map().epoch, epoch + 1);
  EXPECT_EQ(Map().FindPool("rep")->size, 4);
  EXPECT_EQ(Map().FindPool("rep")->min_size, 3);
  EXPECT_EQ(Ok("osd pool get rep size").out, "size: 4\n");
  Ok("osd pool set rep size 2");
  EXPECT_EQ(Map().FindPool("rep")->size, 2);
  EXPECT_EQ(Map().FindPool("rep")->min_size, 2);
  epoch = Map().epoch;
  EXPECT_TRUE(Contains(Fails("osd pool set rep size 1", "EPERM"), "--yes-i-really-mean-it"));
  EXPECT_EQ(Fails("osd pool set rep size 11", "EINVAL"),
            "Error EINVAL: pool size must be between 1 and 10\n");
  EXPECT_EQ(Fails("osd pool set rep size 0", "EINVAL"),
            "Error EINVAL: pool size must be between 1 and 10\n");
  EXPECT_TRUE(Contains(Fails("osd pool set rep size x", "EINVAL"), "'x'"));
  EXPECT_TRUE(Contains(Fails("osd pool set nope size 2", "ENOENT"), "unrecognized pool 'nope'"));
  EXPECT_EQ(Map().epoch, epoch);
  Ok("osd pool set rep size 1 --yes-i-really-mean-it");
  EXPECT_EQ(Map().FindPool("rep")->size, 1);
  EXPECT_EQ(Map().FindPool("rep")->min_size, 1);
  // An erasure pool's size is its profile's.
  Ok("osd pool create ec 8 erasure");
  EXPECT_TRUE(Contains(Fails("osd pool set ec size 5", "EPERM"), "erasure-coded pool"));
}

// ec_min_object_size (issue 30 item 2): an erasure pool's small-object class, set and shown as
// Ceph's pool options; refused on a replicated pool.
TEST_F(PoolAdminTest, EcMinObjectSize) {
  Ok("osd pool create ec 8 erasure");
  Ok("osd pool create rep 8 replicated");
  const std::string id = std::to_string(Map().FindPool("ec")->id);
  EXPECT_EQ(Ok("osd pool get ec ec_min_object_size").out, "ec_min_object_size: 0\n");
  EXPECT_FALSE(Contains(Ok("osd pool ls detail").out, "ec_min_object_size"));
  std::int64_t epoch = Map().epoch;
  EXPECT_EQ(Ok("osd pool set ec ec_min_object_size 16384").err,
            "set pool " + id + " ec_min_object_size to 16384\n");
  EXPECT_EQ(Map().epoch, epoch + 1);
  EXPECT_EQ(Map().FindPool("ec")->ec_min_object_size, 16384u);
  Ok("osd pool set ec ec_min_object_size 16384");
  EXPECT_EQ(Map().epoch, epoch + 1);  // no change, no epoch
  EXPECT_EQ(Ok("osd pool get ec ec_min_object_size").out, "ec_min_object_size: 16384\n");
  EXPECT_EQ(Json("osd pool get ec all")["ec_min_object_size"], 16384);
  EXPECT_TRUE(
      Contains(Ok("osd pool ls detail").out, " stripe_width 8192 ec_min_object_size 16384\n"))
      << Ok("osd pool ls detail").out;
  EXPECT_TRUE(Contains(Ok("osd dump").out, " stripe_unit 4096 ec_min_object_size 16384\n"));
  EXPECT_EQ(Json("osd pool ls detail")[0]["ec_min_object_size"], 16384);

  EXPECT_EQ(Fails("osd pool set rep ec_min_object_size 4096", "EINVAL"),
            "Error EINVAL: pool 'rep' is replicated: ec_min_object_size applies to erasure-coded "
            "pools only (every object of a replicated pool is kept as copies)\n");
  Fails("osd pool get rep ec_min_object_size", "EACCES");
  EXPECT_FALSE(Contains(Ok("osd pool get rep all").out, "ec_min_object_size"));
  EXPECT_TRUE(Contains(Fails("osd pool set ec ec_min_object_size 4k", "EINVAL"), "'4k'"));
  Fails("osd pool set ec ec_min_object_size -1", "EINVAL");
  EXPECT_EQ(Fails("osd pool set ec ec_min_object_size 134217729", "EINVAL"),
            "Error EINVAL: ec_min_object_size must be between 0 and 134217728 bytes\n");
  Fails("osd pool set nope ec_min_object_size 1", "ENOENT");
  Ok("osd pool set ec ec_min_object_size 0");
  EXPECT_EQ(Map().FindPool("ec")->ec_min_object_size, 0u);
}

TEST_F(PoolAdminTest, PoolRmNeedsCephsConfirmation) {
  Ok("osd pool create p 8 erasure");
  const std::string warning =
      "Error EPERM: WARNING: this will *PERMANENTLY DESTROY* all data stored in pool p.  If you "
      "are *ABSOLUTELY CERTAIN* that is what you want, pass the pool name *twice*, followed by "
      "--yes-i-really-really-mean-it.\n";
  EXPECT_EQ(Fails("osd pool rm p", "EPERM"), warning);
  EXPECT_EQ(Fails("osd pool rm p p", "EPERM"), warning);
  EXPECT_EQ(Fails("osd pool rm p q --yes-i-really-really-mean-it", "EPERM"), warning);
  EXPECT_NE(Map().FindPool("p"), nullptr);
  EXPECT_EQ(Ok("osd pool rm p p --yes-i-really-really-mean-it").err, "pool 'p' removed\n");
  EXPECT_EQ(Map().FindPool("p"), nullptr);
  EXPECT_EQ(Ok("osd pool rm p p --yes-i-really-really-mean-it").err, "pool 'p' does not exist\n");
}

// ---- allow_ec_optimizations ------------------------------------------------------------------

// The default (option unset: ecstore's true) gives an unpadded pool; the option false a padded one.
// Both show in `osd pool ls detail` and `osd dump`, plain and JSON, as Ceph names the flag.
TEST_F(PoolAdminTest, CreateTakesEcOptimizationsFromTheConfigOption) {
  EXPECT_TRUE(AdminContext{}.osd_pool_default_flag_ec_optimizations);  // ecstore's default
  Ok("osd erasure-code-profile set rs k=4 m=2");
  Ok("osd pool create fast 8 erasure rs");
  ctx_.osd_pool_default_flag_ec_optimizations = false;
  Ok("osd pool create padded 8 erasure rs");
  const ClusterMap map = Map();
  ASSERT_NE(map.FindPool("fast"), nullptr);
  ASSERT_NE(map.FindPool("padded"), nullptr);
  EXPECT_TRUE(map.FindPool("fast")->ec_optimizations);
  EXPECT_FALSE(map.FindPool("padded")->ec_optimizations);

  const std::string detail = Ok("osd pool ls detail").out;
  EXPECT_TRUE(Contains(detail,
                       "'fast' erasure profile rs size 6 min_size 5 pg_num 8 pgp_num 8 flags "
                       "ec_optimizations stripe_width 16384\n"))
      << detail;
  EXPECT_TRUE(Contains(detail,
                       "'padded' erasure profile rs size 6 min_size 5 pg_num 8 pgp_num 8 "
                       "stripe_width 16384\n"))
      << detail;
  json j = Json("osd pool ls detail");
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["pool_name"], "fast");
  EXPECT_EQ(j[0]["flags_names"], "ec_optimizations");
  EXPECT_EQ(j[1]["pool_name"], "padded");
  EXPECT_EQ(j[1]["flags_names"], "");

  const std::string dump = Ok("osd dump").out;
  EXPECT_TRUE(Contains(dump,
                       "'fast' erasure profile rs min_size 5 pg_num 8 flags ec_optimizations "
                       "stripe_unit 4096\n"))
      << dump;
  EXPECT_TRUE(Contains(dump, "'padded' erasure profile rs min_size 5 pg_num 8 stripe_unit 4096\n"))
      << dump;
  j = Json("osd dump");
  EXPECT_EQ(j["pools"][0]["flags_names"], "ec_optimizations");
  EXPECT_EQ(j["pools"][1]["flags_names"], "");

  // Creating an existing pool again changes nothing, whatever the option says now.
  ctx_.osd_pool_default_flag_ec_optimizations = true;
  EXPECT_EQ(Ok("osd pool create padded 8 erasure rs").err, "pool 'padded' already exists\n");
  EXPECT_FALSE(Map().FindPool("padded")->ec_optimizations);
}

// The flag never changes once the pool exists: the map refuses a pool record that flips it, and
// the pool keeps its value (the admin tool has no `osd pool set` yet; this is the rule it meets).
TEST_F(PoolAdminTest, EcOptimizationsIsFixedForThePoolsLife) {
  Ok("osd pool create p 8 erasure");
  Pool pool = *Map().FindPool("p");
  ASSERT_TRUE(pool.ec_optimizations);
  pool.ec_optimizations = false;
  Result<ClusterMap> changed = store_->Apply({MapChange::PutPool(pool)});
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), EINVAL);
  EXPECT_TRUE(Contains(changed.status().message(),
                       "allow_ec_optimizations is fixed at pool creation: objects already stored "
                       "depend on it"))
      << changed.status().message();
  EXPECT_TRUE(Map().FindPool("p")->ec_optimizations);
}

TEST_F(PoolAdminTest, CreateHelpNamesTheOption) {
  const std::string help = HelpFor({"osd", "pool", "create"});
  EXPECT_TRUE(Contains(help, "osd_pool_default_flag_ec_optimizations")) << help;
  EXPECT_TRUE(Contains(help, "Ceph's is false")) << help;
}

}  // namespace
}  // namespace ec::cluster::admin
