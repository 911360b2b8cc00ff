// Repair chains with authentication (issue 32 on issue 33's chains), on the fixture of
// repair_chain_test_util.h with every OSD requiring cephx.
#include <gtest/gtest.h>

#include "msg/authorize.h"
#include "osd/pg/repair_chain.h"
#include "osd/pg/repair_chain_test_util.h"

namespace ec::osd::pg {
namespace {

using testing::Ask;
using testing::kChainStripes;
using testing::kOsds;
using testing::kRsPool;
using testing::kStripeUnit;
using testing::RepairChainTest;

// With cephx required on every OSD (auth_cluster_required = cephx, the launcher's default): every
// link of a chain is a connection that proved an osd.N key (the requester's pull clients, each
// hop's own clients), and only OSDs may send a hop.
class RepairChainCephxTest : public RepairChainTest {
 protected:
  bool Cephx() const override { return true; }
};

TEST_F(RepairChainCephxTest, ChainsRunOverAuthenticatedConnections) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "auth", 7, &size);
  ASSERT_EQ(shards.size(), 6u);
  ASSERT_TRUE(RebuiltOn6(kRsPool, "auth", 7, size, shards, 2));
  // Through the chain 0 -> 1 -> 3 -> 4 (one chunk to the requester), not a fallback to direct
  // reads: a hop that could not authenticate to its predecessor would fail every slice.
  EXPECT_EQ(RequesterIn(6), kChainStripes * kStripeUnit);
  EXPECT_EQ(Count(6, "ecstore_repair_chain_slices_total{result=\"failed\"}"), 0u);
  for (int osd : {0, 1, 3, 4}) {
    EXPECT_EQ(BatchReads(osd), 0u) << "osd." << osd;
    EXPECT_GT(osds_[osd]->server->counters().authenticated_connections, 0u) << "osd." << osd;
  }
  for (int osd = 0; osd < kOsds; ++osd) {
    for (std::uint64_t refused : osds_[osd]->server->counters().auth_refusals) {
      EXPECT_EQ(refused, 0u) << "osd." << osd;
    }
  }
}

TEST_F(RepairChainCephxTest, OnlyAnOsdMaySendAHop) {
  std::vector<Buffer> shards;
  std::shared_ptr<const recovery::PipelinePlan> plan;
  const msg::SubRepairChainRequest r = FirstHopRequest("inject", 3, &shards, &plan);
  ASSERT_TRUE(plan);
  const int first = r.hops[0].osd;
  auto osd = Client(first);
  ASSERT_TRUE(osd);
  const msg::ChainResult served = Ask(*osd, r);
  EXPECT_TRUE(served.status.ok()) << served.status.ToString();
  // client.admin proves its key and its caps allow every pool, but a hop is an OSD's request.
  auto admin = Client(first, "client.admin");
  ASSERT_TRUE(admin);
  const msg::ChainResult refused = Ask(*admin, r);
  EXPECT_EQ(refused.status.code(), EACCES) << refused.status.ToString();
  // A peer that offers no authentication is not served anything.
  msg::ClientOptions co;
  co.port = osds_[first]->server->port();
  auto plain = msg::OsdClient::Create(co);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(Ask(**plain, r).status.code(), EACCES);
  const msg::ServerCounters c = osds_[first]->server->counters();
  EXPECT_EQ(c.auth_refusals[static_cast<std::size_t>(msg::AuthRefusal::kNotOsd)], 1u);
  EXPECT_EQ(c.auth_refusals[static_cast<std::size_t>(msg::AuthRefusal::kNoAuth)], 1u);
  EXPECT_EQ(Count(first, "ecstore_osd_ops_total{op=\"sub_repair_chain\"}"), 1u)
      << "only the OSD's hop reached the chain service";
}

}  // namespace
}  // namespace ec::osd::pg
