// Direct reads and read leases (issue 28 item 3): both sides, read_lease.h has the argument.
//   - DirectRead: this OSD answers a client's read of its own shard when it can vouch for it.
//   - GrantLeases: as a PG's primary, the leases other OSDs of the PG ask for.
//   - LeaseLoop / RenewLeases: this OSD asks the primaries of the PGs it serves direct reads of.
//   - SettleWrite: as primary, a write's end for the leases (and the wait they may impose).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/map/pool_geometry.h"
#include "osd/pg/primary_impl.h"

namespace ec::osd::pg {
namespace {

// How long a PG stays "wanted" (its lease renewed) after its last direct read.
constexpr std::chrono::seconds kWantWindow{10};
// How long a direct read that finds no lease waits for the one its OSD asks for, and how many
// may wait at once (beyond that they are refused at once, as before). Without the wait the first
// direct read of a PG in kWantWindow was always refused, and a client reading at random over many
// PGs (each PG's shard read more than kWantWindow apart) had most of its direct reads refused and
// read again through the primary: 78 of 101 in issue 33's 100 Mbit/s run, where a 4 MiB read
// then took two link times instead of one.
constexpr auto kLeaseWait = std::chrono::milliseconds(250);
constexpr std::size_t kMaxParkedReads = 1024;

// The positions of `loc` whose OSD is up and that `st` does not hold at its version.
std::vector<int> OsdsBehind(const cluster::PgLocation& loc, const ObjectState& st) {
  std::vector<int> out;
  for (std::size_t p = 0; p < loc.up.size(); ++p) {
    if (loc.up[p] == cluster::kItemNone) continue;
    if (std::find(st.current.begin(), st.current.end(), static_cast<int>(p)) == st.current.end()) {
      out.push_back(loc.up[p]);
    }
  }
  return out;
}

}  // namespace

void Primary::Impl::SettleWrite(const Prepared& p, std::uint64_t version,
                                const Result<ObjectState>& next) {
  if (!next.ok()) {
    // Shards may hold it: it settles when a later resolve does (the object is unknown now).
    granter_.Settle(p.loc.pgid, version, false);
    return;
  }
  const std::vector<int> behind = OsdsBehind(p.loc, *next);
  granter_.Settle(p.loc.pgid, version, behind.empty());
  if (behind.empty()) return;
  const auto deadline = granter_.AckDeadline(p.loc.pgid, behind);
  if (deadline <= LeaseClock::now()) return;
  metrics_
      ->GetCounter("ecstore_osd_read_lease_waits_total",
                   "Writes acknowledged without an up position, held back until the read leases "
                   "of its OSD ran out")
      .Inc();
  std::this_thread::sleep_until(deadline);
}

void Primary::Impl::DirectRead(const msg::ObjDirectReadRequest& r,
                               const std::shared_ptr<msg::Responder>& responder, bool may_wait) {
  const auto refuse = [&](const char* reason, const std::string& why) {
    metrics_
        ->GetCounter("ecstore_osd_direct_reads_total",
                     "Direct reads of this OSD's shards: served, or refused by reason",
                     {{"result", reason}})
        .Inc();
    (void)responder->SendError(
        Status::Retryable(EAGAIN, fmt::format("osd.{} cannot vouch for shard {} of {}: {}",
                                              options_.osd_id, r.shard, r.object, why)));
  };
  if (options_.read_lease.count() == 0 || options_.shards == nullptr) {
    return refuse("off", "direct reads are off here (osd_read_lease_ms = 0)");
  }
  if (options_.may_serve && !options_.may_serve()) {
    return refuse("not_serving", "it has not renewed its liveness lease in time");
  }
  if (static_cast<std::int64_t>(r.epoch) > map_->Get()->epoch) {
    return refuse("map", fmt::format("its map is older than the client's (epoch {})", r.epoch));
  }
  auto locator = Locator(0);
  if (!locator.ok()) return refuse("map", locator.status().message());
  const cluster::ClusterMap& map = (*locator)->map();
  auto loc = (*locator)->LocateObject(static_cast<std::int64_t>(r.pool), r.object);
  if (!loc.ok()) return refuse("map", loc.status().message());
  if (loc->up_count() != static_cast<int>(loc->acting.size()) || r.shard >= loc->acting.size() ||
      loc->acting[r.shard] != options_.osd_id || loc->primary == options_.osd_id) {
    return refuse("map", fmt::format("at epoch {} pg {} is not all up with this OSD at shard {} "
                                     "and another OSD its primary",
                                     map.epoch, loc->pgid, r.shard));
  }
  const auto now = LeaseClock::now();
  if (held_.Want(loc->pgid, r.pool, loc->pg, now)) {
    std::lock_guard lock(lease_mu_);
    lease_now_ = true;
    lease_cv_.notify_all();
  }
  auto lease = held_.Get(loc->pgid, now);
  if (!lease) {
    if (may_wait && ParkDirectRead(loc->pgid, r, responder)) return;
    return refuse("no_lease", "no read lease for pg " + loc->pgid + " from its primary");
  }
  if (lease->acting != loc->acting) {
    return refuse("no_lease", "its lease of pg " + loc->pgid + " is for another acting set");
  }
  if (options_.shards->FenceOf(loc->collection) > lease->epoch) {
    return refuse("no_lease", "pg " + loc->pgid + " was peered again since its lease");
  }
  auto codec = codecs_.Get(map, map.pools.at(loc->pool_id));
  if (!codec.ok()) return refuse("map", codec.status().message());
  const StripeLayout& layout = (*codec)->layout;
  auto extents = layout.data_extents(r.offset, r.length);
  if (!extents.ok() || extents->size() != 1 || (*extents)[0].shard != static_cast<int>(r.shard) ||
      (*extents)[0].length != r.length) {
    return refuse("range", fmt::format("object bytes {}+{} are not all in shard {}", r.offset,
                                       r.length, r.shard));
  }
  const store::Extent e{(*extents)[0].offset, (*extents)[0].length};
  auto got = options_.shards->ReadNow(loc->collection, r.object, r.shard, {&e, 1});
  if (!got.ok()) {
    return refuse(got.status().is_data_loss() ? "error" : "absent", got.status().message());
  }
  if (got->version == 0 || got->version >= lease->settled_below) {
    return refuse("unsettled", fmt::format("its version {} may not be settled (below {} are)",
                                           got->version, lease->settled_below));
  }
  // A shard of the wrong length is an I/O error of that shard: the primary's read finds it.
  if (got->size != layout.stored_size(got->object_size, static_cast<int>(r.shard))) {
    return refuse(
        "error",
        fmt::format("the shard holds {} bytes, not the {} its object size {} "
                    "gives",
                    got->size, layout.stored_size(got->object_size, static_cast<int>(r.shard)),
                    got->object_size));
  }
  if (got->extents.size() != 1 || got->extents[0].size() != r.length) {
    return refuse("range", "the bytes reach past the object's end");
  }
  direct_served_->Inc();
  std::vector<Buffer> payload;
  payload.push_back(std::move(got->extents[0]));
  (void)responder->Send(msg::ObjDirectReadReply{}, std::move(payload));
}

bool Primary::Impl::ParkDirectRead(const std::string& pgid, const msg::ObjDirectReadRequest& r,
                                   const std::shared_ptr<msg::Responder>& responder) {
  {
    std::lock_guard lock(parked_mu_);
    if (parked_count_ >= kMaxParkedReads) return false;
    parked_[pgid].push_back(ParkedRead{r, responder, LeaseClock::now() + kLeaseWait});
    ++parked_count_;
  }
  // Ask now (a PG already wanted whose lease ran out is asked again too).
  std::lock_guard lock(lease_mu_);
  lease_now_ = true;
  lease_cv_.notify_all();
  return true;
}

void Primary::Impl::ReleaseDirectReads(const std::string& pgid) {
  std::vector<ParkedRead> reads;
  {
    std::lock_guard lock(parked_mu_);
    auto it = parked_.find(pgid);
    if (it == parked_.end()) return;
    reads = std::move(it->second);
    parked_.erase(it);
    parked_count_ -= reads.size();
  }
  for (ParkedRead& p : reads) {
    const std::size_t key = std::hash<std::string>()(CacheKey(p.request.pool, p.request.object));
    dispatcher_.Post(key, [this, p = std::move(p)] { DirectRead(p.request, p.responder, false); });
  }
}

bool Primary::Impl::ReleaseExpiredDirectReads(bool all) {
  std::vector<std::string> due;
  bool waiting = false;
  {
    std::lock_guard lock(parked_mu_);
    const auto now = LeaseClock::now();
    for (const auto& [pgid, reads] : parked_) {
      // A PG's reads were parked in order, so its first one is due first.
      if (all || reads.front().deadline <= now) {
        due.push_back(pgid);
      } else {
        waiting = true;
      }
    }
  }
  for (const std::string& pgid : due) ReleaseDirectReads(pgid);
  return waiting;
}

msg::ReadLeaseReply Primary::Impl::GrantLeases(const msg::ReadLeaseRequest& r) {
  metrics_
      ->GetCounter("ecstore_osd_read_lease_requests_total",
                   "ReadLease requests this OSD answered as primary (each asks for several PGs)")
      .Inc();
  msg::ReadLeaseReply reply;
  reply.duration_ms = static_cast<std::uint32_t>(
      std::min<std::int64_t>(r.duration_ms, options_.read_lease.count()));
  const bool serving = options_.read_lease.count() > 0 &&
                       (!options_.may_serve || options_.may_serve()) && r.osd != options_.osd_id;
  auto locator = Locator(0);
  const auto now = LeaseClock::now();
  std::uint64_t granted = 0;
  for (const msg::ReadLeasePg& asked : r.pgs) {
    msg::ReadLeaseGrant& g = reply.grants.emplace_back();
    g.pool = asked.pool;
    g.pg = asked.pg;
    if (!serving || !locator.ok()) continue;
    g.epoch = static_cast<std::uint64_t>((*locator)->map().epoch);
    auto loc = CheckPrimary(**locator, asked.pool, nullptr, asked.pg);
    if (!loc.ok()) continue;
    g.acting.assign(loc->acting.begin(), loc->acting.end());
    if (std::find(loc->acting.begin(), loc->acting.end(), r.osd) == loc->acting.end()) continue;
    table_.Observe(**locator);
    // The ticket first, then the table (read_lease.h Grant).
    const std::uint64_t ticket = granter_.Generation(loc->pgid);
    const bool clean = table_.Clean(*loc);
    auto lease = granter_.Grant(loc->pgid, r.osd, std::chrono::milliseconds(reply.duration_ms),
                                clean, ticket, g.epoch << 32, now);
    if (!lease) continue;
    g.granted = true;
    g.settled_below = lease->settled_below;
    ++granted;
  }
  metrics_
      ->GetCounter("ecstore_osd_read_leases_total", "Read leases asked of this OSD as primary",
                   {{"result", "granted"}})
      .Inc(granted);
  metrics_
      ->GetCounter("ecstore_osd_read_leases_total", "Read leases asked of this OSD as primary",
                   {{"result", "refused"}})
      .Inc(r.pgs.size() - granted);
  return reply;
}

void Primary::Impl::StartLeases() {
  // Looked up once: every served direct read counts it.
  direct_served_ = &metrics_->GetCounter(
      "ecstore_osd_direct_reads_total",
      "Direct reads of this OSD's shards: served, or refused by reason", {{"result", "served"}});
  if (options_.read_lease.count() == 0 || options_.shards == nullptr) return;
  lease_thread_ = std::thread([this] { LeaseLoop(); });
}

void Primary::Impl::LeaseLoop() {
  // Renew at a third of the lease: two renewals may fail before a lease held runs out.
  const auto period =
      std::max<std::chrono::milliseconds>(options_.read_lease / 3, std::chrono::milliseconds(10));
  // While direct reads wait for a lease, the loop also wakes often enough to release those whose
  // answer did not come within kLeaseWait (they are refused then).
  const auto tick = std::min<std::chrono::milliseconds>(period, kLeaseWait / 5);
  bool waiting = false;
  std::unique_lock lock(lease_mu_);
  for (;;) {
    lease_cv_.wait_for(lock, waiting ? tick : period, [this] { return lease_stop_ || lease_now_; });
    if (lease_stop_) return;
    const bool now = lease_now_;
    lease_now_ = false;
    lock.unlock();
    if (now || !waiting) RenewLeases();
    waiting = ReleaseExpiredDirectReads(false);
    lock.lock();
  }
}

void Primary::Impl::RenewLeases() {
  const auto now = LeaseClock::now();
  auto wanted = held_.Wanted(now, kWantWindow);
  if (wanted.empty()) return;
  auto locator = Locator(0);
  if (!locator.ok()) return;
  const cluster::ClusterMap& map = (*locator)->map();
  // One request per primary, for every PG of it this OSD serves direct reads of.
  std::map<int, msg::ReadLeaseRequest> asks;
  std::map<int, std::vector<std::string>> asked_pgids;  // the same PGs by name
  for (const LeaseHolder::WantedPg& w : wanted) {
    auto loc = (*locator)->LocatePg(static_cast<std::int64_t>(w.pool), w.pg);
    if (!loc.ok() || loc->primary == cluster::kItemNone || loc->primary == options_.osd_id ||
        std::find(loc->acting.begin(), loc->acting.end(), options_.osd_id) == loc->acting.end()) {
      held_.Drop(w.pgid);
      ReleaseDirectReads(w.pgid);  // refused: there is no lease to ask for
      continue;
    }
    msg::ReadLeaseRequest& ask = asks[loc->primary];
    ask.osd = options_.osd_id;
    ask.epoch = static_cast<std::uint64_t>(map.epoch);
    ask.duration_ms = static_cast<std::uint32_t>(
        std::min<std::int64_t>(options_.read_lease.count(), msg::kMaxReadLeaseMs));
    if (ask.pgs.size() < 1024) {
      ask.pgs.push_back(msg::ReadLeasePg{w.pool, w.pg});
      asked_pgids[loc->primary].push_back(w.pgid);
    }
  }
  for (auto& [primary, ask] : asks) {
    auto entry = map.osds.find(primary);
    if (entry == map.osds.end()) continue;
    auto client = peers_.Get(primary, entry->second.addr);
    if (!client.ok()) continue;
    // The lease counts from now, before the primary grants it (read_lease.h).
    const auto asked_at = LeaseClock::now();
    const std::uint32_t asked_ms = ask.duration_ms;
    msg::CallOptions call;
    call.timeout = std::max<std::chrono::milliseconds>(options_.read_lease / 2,
                                                       std::chrono::milliseconds(100));
    (*client)->ReadLeaseAsync(
        std::move(ask),
        [this, asked_at, asked_ms,
         pgids = std::move(asked_pgids[primary])](Result<msg::ReadLeaseReply> got) {
          // The direct reads waiting for these PGs' leases run again once the answer is taken
          // in: served with a lease granted, refused without.
          struct Release {
            Impl* impl;
            const std::vector<std::string>& pgids;
            ~Release() {
              for (const std::string& pgid : pgids) impl->ReleaseDirectReads(pgid);
            }
          } release{this, pgids};
          if (!got.ok()) return;  // what is held runs out by itself
          // Never longer than asked, whatever the reply says.
          const auto length = std::chrono::duration_cast<LeaseClock::duration>(
                                  std::chrono::milliseconds(std::min(got->duration_ms, asked_ms))) *
                              kHolderShare;
          for (const msg::ReadLeaseGrant& g : got->grants) {
            const std::string pgid = cluster::PgName(static_cast<std::int64_t>(g.pool), g.pg);
            if (!g.granted) {
              held_.Drop(pgid);
              continue;
            }
            held_.Put(
                pgid,
                LeaseHolder::Lease{
                    g.epoch, g.settled_below, std::vector<int>(g.acting.begin(), g.acting.end()),
                    asked_at + std::chrono::duration_cast<LeaseClock::duration>(length)});
          }
        },
        call);
  }
}

}  // namespace ec::osd::pg
