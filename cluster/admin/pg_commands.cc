// pg scrub | deep-scrub | repair PGID: a scrub request for the PG's primary, left in etcd
// (cluster/map/scrub_record.h) where Ceph's mgr sends the primary a message. What the primary
// then does is osd/pg/scrub_scheduler.h's; what it found is shown by `health detail`
// (scrub_health.h) and `ec-rados list-inconsistent-obj`.
#include <cerrno>
#include <memory>
#include <optional>
#include <string>

#include "cluster/admin/commands.h"
#include "cluster/admin/scrub_health.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/pool_geometry.h"
#include "cluster/map/scrub_record.h"

namespace ec::cluster::admin {
namespace {

// Ceph's answer: "instructing pg 1.3 on osd.2 to deep-scrub" on stderr (a status message, as
// "pool 'p' created"), nothing on stdout. Errors: EINVAL "invalid pgid 'x'"; ENOENT "pg 9.0 does
// not exist" (no such pool, or pg >= its pg_num); EAGAIN "pg 1.3 has no primary osd: ..." when no
// OSD of the PG is up (nothing is written then); etcd's errors, an unreachable etcd naming the
// endpoints.
CommandResult PgScrub(ScrubKind kind, const Words& args, const AdminContext& ctx) {
  const std::string op(ScrubKindName(kind));
  const std::string usage = UsageOf("pg " + op);
  if (args.empty()) return UsageError("missing PGID", usage);
  if (args.size() > 1) return UsageError("too many arguments to 'pg " + op + "'", usage);
  const std::optional<PgId> id = ParsePgId(args[0]);
  if (!id) return ErrorResult(Status::Invalid("invalid pgid '" + args[0] + "'"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  const std::string pgid = PgName(id->pool, id->pg);
  auto pool = map->pools.find(id->pool);
  if (pool == map->pools.end() || id->pg >= pool->second.pg_num) {
    return ErrorResult(Status::NotFound("pg " + pgid + " does not exist"));
  }
  auto locator = ObjectLocator::Make(std::make_shared<const ClusterMap>(std::move(map).value()));
  if (!locator.ok()) return ErrorResult(locator.status());
  Result<PgLocation> loc = (*locator)->LocatePg(id->pool, id->pg);
  if (!loc.ok()) return ErrorResult(loc.status());
  if (loc->primary == kItemNone) {
    return ErrorResult(Status::Retryable(EAGAIN, "pg " + pgid + " has no primary osd: no OSD of " +
                                                     OsdList(loc->acting) + " is up"));
  }
  const etcd::Client* client = ctx.store->client();
  if (client == nullptr) return ErrorResult(Status::Invalid("no etcd client"));
  etcd::PutRequest put;
  put.key = ScrubRequestKey(ctx.store->prefix(), pgid);
  put.value = EncodeScrubRequest(ScrubRequest{kind, NowMs(ctx)});
  Result<etcd::PutResponse> written = client->Put(put);
  if (!written.ok()) return ErrorResult(FromStore(ctx, written.status()));
  return Success(
      "", "instructing pg " + pgid + " on osd." + std::to_string(loc->primary) + " to " + op);
}

}  // namespace

CommandResult RunPgCommand(const Words& words, const AdminContext& ctx) {
  const std::string sub = words.empty() ? "" : words[0];
  Result<ScrubKind> kind = ParseScrubKind(sub);
  if (kind.ok()) return PgScrub(*kind, Tail(words, 1), ctx);
  if (std::optional<CommandResult> r = RunPgQueryCommand(words, ctx)) return std::move(*r);
  return UnknownCommand(Prefixed({"pg"}, words));
}

}  // namespace ec::cluster::admin
