// ObjList: a page of a peered PG's objects, from the PG's table (pg_table.h).
#include <fmt/format.h>

#include "osd/pg/primary_impl.h"

namespace ec::osd::pg {

msg::ObjListReply Primary::Impl::List(const msg::ObjListRequest& r) {
  msg::ObjListReply reply;
  if (options_.may_serve && !options_.may_serve()) {
    reply.status = Status::Retryable(
        EAGAIN, fmt::format("osd.{} has not renewed its liveness lease in time: not acting as a "
                            "primary until it has",
                            options_.osd_id));
    return reply;
  }
  auto locator = Locator(r.epoch);
  if (!locator.ok()) {
    reply.status = locator.status();
    return reply;
  }
  auto loc = CheckPrimary(**locator, r.pool, nullptr, r.pg);
  if (!loc.ok()) {
    reply.status = loc.status();
    return reply;
  }
  // A page of the peered PG's objects, as reads see them (pg_table.h): the objects that exist,
  // and those whose state an operation left unknown. Paging through the table costs the page,
  // where merging every shard's whole listing for each page cost the PG's size per page (a
  // listing of 10^5 objects per OSD took 12 s, bench/scale.sh). A stray shard of a position that
  // moved away (an OSD out and in, a replicated pool's size change) is not listed unless
  // peering settled its object as existing.
  Prepared p;
  p.locator = *locator;
  p.loc = std::move(loc).value();
  Status filled = FillPg(p);
  if (!filled.ok()) {
    reply.status = filled;
    return reply;
  }
  Fix(p);
  Status peered = EnsurePeered(*p.locator, p.io);
  if (!peered.ok()) {
    reply.status = peered;
    return reply;
  }
  const std::size_t max = r.max_entries;
  auto names = table_.List(p.loc.pgid, r.cursor, max + 1);  // one more: is this the last page?
  if (!names) {
    reply.status = Status::Retryable(
        EAGAIN, fmt::format("pg {} changed interval during the listing", p.loc.pgid));
    return reply;
  }
  reply.end = names->size() <= max;
  if (!reply.end) names->resize(max);
  // Objects an operation left unknown are settled first, as recovery would (on their strand), so
  // that the page lists what reads see; one that cannot be settled now is listed (it may exist).
  const auto pool = static_cast<std::uint64_t>(p.loc.pool_id);
  for (const std::string& name : *names) {
    bool exists = true;
    if (!table_.Lookup(p.loc.pgid, name)) {
      OnStrand(pool, name, [&] {
        if (auto known = table_.Lookup(p.loc.pgid, name)) {
          exists = known->exists;
          return;
        }
        ObjectIo one = p.io;
        one.object = name;
        auto st = ResolveObject(one);
        if (st.ok()) {
          table_.Update(p.loc, name, *st);
          exists = st->exists;
        }
      });
    }
    if (exists) reply.objects.push_back(name);
  }
  // The cursor is the last name looked at, listed or not.
  reply.next_cursor = reply.end ? std::string() : names->back();
  return reply;
}

}  // namespace ec::osd::pg
