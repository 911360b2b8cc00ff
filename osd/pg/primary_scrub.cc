// Scrub, deep scrub and repair of the PGs this OSD is primary of, and the repair of shards that
// failed a checksum during a client read (issue 16 items 2-4). See primary.h for the contract.
//
// Each object is checked on its own strand (the one its client operations run on), so a scrub
// never sees half of a write and a repair never races one. What is compared:
//   scrub       every up shard's SubState: present, at the object's version, the object's size,
//               and the shard size the layout gives for it; and its metadata (a shard Stat):
//               the object's xattrs on every shard at its position's version, the object's
//               mtime on every shard at the object's version (object_io.h "Metadata"), against
//               what most of them hold ("attr_name_mismatch" / "attr_value_mismatch",
//               "object_info_inconsistency" for the mtime);
//   deep-scrub  also every shard's bytes, read whole (the store verifies each 4 KiB block's crc32c:
//               a failure is "read_error"), and the shards against the code: the parity must be
//               what the data encodes to (recovery/shard_consistency.h), the wrong shard located
//               when the code allows it ("ec_hash_error");
//   repair      a deep scrub that then has the OSD of each bad shard rebuild it from the good ones
//               (SubPull kRepair: the repair engine's least-cost plan, written over the bad bytes
//               at the same version; kRebuild for a shard left behind at an older version).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <set>
#include <thread>

#include "cluster/map/pool_geometry.h"
#include "osd/pg/object_io_internal.h"
#include "osd/pg/primary_impl.h"
#include "osd/shard/shard_meta.h"
#include "recovery/shard_consistency.h"

namespace ec::osd::pg {
namespace {

void AddError(std::vector<std::string>& errors, const char* name) {
  if (std::find(errors.begin(), errors.end(), name) == errors.end()) errors.emplace_back(name);
}

// What most of `values` are (position -> value; a tie goes to the value of the lowest position).
template <typename T>
T Majority(const std::map<int, T>& values) {
  std::vector<std::pair<T, int>> votes;
  for (const auto& entry : values) {
    const T& v = entry.second;  // a plain name for the lambda (clang 14 cannot capture a binding)
    auto it = std::find_if(votes.begin(), votes.end(), [&](const auto& e) { return e.first == v; });
    if (it == votes.end()) {
      votes.emplace_back(v, 1);
    } else {
      ++it->second;
    }
  }
  auto best = votes.begin();
  for (auto it = votes.begin(); it != votes.end(); ++it) {
    if (it->second > best->second) best = it;
  }
  return best->first;
}

bool SameNames(const std::vector<msg::Attr>& a, const std::vector<msg::Attr>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const msg::Attr& x, const msg::Attr& y) { return x.key == y.key; });
}

}  // namespace

// The object's metadata on the shards of `positions` (each present at its position's version):
// the xattrs every one of them must hold and the mtime those at the object's version must, each
// against what most of them hold; a shard that differs is bad (its repair rewrites the metadata
// with its bytes, from a good shard).
void Primary::Impl::CheckScrubMeta(const ObjectIo& io, const std::vector<int>& positions,
                                   ObjectScrub& out) {
  const ObjectState& st = out.state;
  std::map<int, std::vector<msg::Attr>> xattrs;
  std::map<int, std::uint64_t> mtimes;
  for (int p : positions) {
    auto got = io.clients.at(p)->Stat(
        msg::StatRequest{io.loc->collection, io.object, static_cast<std::uint32_t>(p)},
        object_io_detail::Call(io));
    if (!got.ok()) {
      if (got.status().is_data_loss()) {
        AddError(out.shards[p].errors, "stat_error");
        out.bad[p] = st.VersionOf(p);
      }
      continue;  // else unreachable: its OSD is going away; not judged
    }
    if (got->version != st.VersionOf(p)) continue;  // changed meanwhile: the next scrub sees it
    xattrs[p] = shard::XattrsOf(got->attrs);
    if (st.VersionOf(p) == st.version)
      mtimes[p] = shard::DecimalAttr(got->attrs, shard::kMtimeAttr);
  }
  if (!xattrs.empty()) {
    const std::vector<msg::Attr> want = Majority(xattrs);
    for (const auto& [p, have] : xattrs) {
      if (have == want) continue;
      AddError(out.object_errors,
               SameNames(have, want) ? "attr_value_mismatch" : "attr_name_mismatch");
      out.bad[p] = st.VersionOf(p);
    }
  }
  if (!mtimes.empty()) {
    const std::uint64_t want = Majority(mtimes);
    for (const auto& [p, have] : mtimes) {
      if (have == want) continue;
      AddError(out.object_errors, "object_info_inconsistency");
      out.bad[p] = st.VersionOf(p);
    }
  }
}

// One object's shards as the strand sees them: their states (scrub) and whole bytes (deep), with
// what those show on their own. The comparison with the code is CheckScrubbed's.
Primary::Impl::ObjectScrub Primary::Impl::ReadForScrub(const Prepared& pg, const std::string& name,
                                                       bool deep) {
  ObjectScrub out;
  auto known = table_.Lookup(pg.loc, name);
  if (!known || !known->exists) return out;  // removed or unsettled meanwhile: not scrubbed now
  out.scrubbed = true;
  out.state = *known;
  const ObjectState& st = out.state;
  ObjectIo io = pg.io;
  io.loc = &pg.loc;
  io.object = name;
  io.codec = &pg.codec->ForForm(st.form);  // a small object's copies (issue 30 item 2)
  const StripeLayout& layout = io.codec->layout;
  std::map<int, std::uint64_t> readable;  // position -> shard size, for the deep read
  std::vector<int> at_version;            // present at their position's version
  for (auto& [p, reply] : AskStates(io)) {
    cluster::ShardScrubError& e = out.shards[p];
    e.osd = pg.loc.acting[p];
    e.primary = p == io.self_position;
    e.shard = p;
    if (!reply.ok()) {
      if (reply.status().is_data_loss()) {
        AddError(e.errors, "stat_error");
        out.bad[p] = st.VersionOf(p);
      }
      // Unreachable: its OSD is going down; not the shard's fault, and not checked.
      continue;
    }
    const msg::SubStateReply& s = *reply;
    e.size = static_cast<std::int64_t>(s.shard_size);
    e.version = static_cast<std::int64_t>(s.version);
    if (s.state != msg::ShardState::kPresent) {
      AddError(e.errors, "missing");
      out.bad[p] = s.state == msg::ShardState::kAbsent ? 0 : s.version;
      continue;
    }
    if (s.version != st.VersionOf(p)) {
      AddError(e.errors, "missing");
      AddError(out.object_errors, "version_mismatch");
      out.bad[p] = s.version;
      continue;
    }
    at_version.push_back(p);
    bool ok = true;
    // A shard a partial write left alone records the object's size of its own write: only a
    // shard whose record is the object's own must give the object's size.
    const std::uint64_t recorded =
        s.versions.empty() ? s.version : *std::max_element(s.versions.begin(), s.versions.end());
    if (recorded == st.version && s.object_size != st.size) {
      AddError(e.errors, "size_mismatch_info");
      AddError(out.object_errors, "size_mismatch");
      ok = false;
    }
    // What the object's size gives this shard (without padding, only what its data reaches).
    const std::uint64_t want_shard = layout.stored_size(st.size, p);
    if (s.shard_size != want_shard) {
      AddError(e.errors, "ec_size_error");
      ok = false;
    }
    if (ok) {
      readable[p] = want_shard;
    } else {
      out.bad[p] = st.VersionOf(p);
    }
  }
  CheckScrubMeta(io, at_version, out);
  if (!deep || readable.empty()) return out;
  for (auto& [p, got] : ReadWholeShards(io, st, readable)) {
    if (got.ok() && got->size() < layout.padded_shard_size(st.size)) {
      // A shard stored without its zero tail, padded back for the check against the code.
      Buffer whole = Buffer::Allocate(layout.padded_shard_size(st.size), true);
      std::memcpy(whole.data(), got->data(), got->size());
      out.bytes.emplace(p, std::move(whole));
    } else if (got.ok()) {
      out.bytes.emplace(p, std::move(got).value());
    } else if (got.status().is_data_loss()) {
      AddError(out.shards[p].errors, "read_error");
      out.bad[p] = st.VersionOf(p);
    } else if (got.status().code() == ESTALE || got.status().code() == ENOENT) {
      // Not at the version its state said a moment ago, on the object's strand: stale or gone.
      AddError(out.shards[p].errors, "missing");
      AddError(out.object_errors, "version_mismatch");
      out.bad[p] = 0;
    }
    // Other errors (a transport error, a timeout): its OSD is going away; not judged.
  }
  return out;
}

void Primary::Impl::CheckScrubbed(const Prepared& pg, const std::string& name, ObjectScrub& o) {
  if (!o.scrubbed) return;
  if (!o.bytes.empty()) {
    // A small object's copies are compared as a replicated pool's (the repetition code); its
    // empty shards past them hold nothing to compare.
    const PoolCodec& codec = pg.codec->ForForm(o.state.form);
    const StripeLayout& layout = codec.layout;
    std::map<int, std::span<const std::byte>> good;
    for (const auto& [p, b] : o.bytes) {
      if (p < static_cast<int>(layout.chunk_count())) good[p] = b.span();
    }
    auto check = recovery::CheckShards(*codec.code, layout, layout.stripes_of(o.state.size), good);
    if (!check.ok()) {
      log_->warn("pg {} object {}: consistency check: {}", pg.loc.pgid, name,
                 check.status().message());
    } else if (check->checked && !check->consistent) {
      if (check->located) {
        for (int p : check->bad) {
          AddError(o.shards[p].errors, "ec_hash_error");
          o.bad[p] = o.state.VersionOf(p);
        }
      } else {
        // The shards disagree but the code cannot tell which one is wrong (m = 1, or several).
        AddError(o.object_errors, "ec_hash_error");
        o.unlocated = true;
      }
    }
    o.bytes.clear();
  }
  std::vector<std::string> union_errors;
  for (const auto& [p, e] : o.shards) {
    for (const std::string& err : e.errors) AddError(union_errors, err.c_str());
  }
  if (union_errors.empty() && o.object_errors.empty()) return;
  cluster::InconsistentObject found;
  found.name = name;
  found.version = static_cast<std::int64_t>(o.state.version);
  found.errors = o.object_errors;
  found.union_shard_errors = std::move(union_errors);
  for (const auto& [p, e] : o.shards) found.shards.push_back(e);
  o.found = std::move(found);
}

// Has the OSD of each bad position of `name` rebuild it from the good ones. Returns how many
// shards were rewritten.
int Primary::Impl::RepairObject(const Prepared& pg, const std::string& name,
                                const std::map<int, std::uint64_t>& bad, const char* why) {
  auto known = table_.Lookup(pg.loc, name);
  if (!known || !known->exists) return 0;
  const ObjectState& st = *known;
  std::vector<msg::SubPullHelper> helpers;
  for (int p : st.current) {
    if (bad.count(p) != 0 || pg.io.clients.count(p) == 0) continue;
    helpers.push_back(msg::SubPullHelper{static_cast<std::uint32_t>(p), pg.loc.up[p]});
  }
  if (static_cast<int>(helpers.size()) < pg.loc.k) {
    log_->error("pg {} object {}: cannot repair shard(s) {}: only {} good shard(s), {} needed",
                pg.loc.pgid, name, fmt::join(KeysOf(bad), ","), helpers.size(), pg.loc.k);
    return 0;
  }
  int repaired = 0;
  for (const auto& [p, at] : bad) {
    auto client = pg.io.clients.find(p);
    if (client == pg.io.clients.end()) continue;
    msg::SubPullRequest r;
    r.pool = static_cast<std::uint64_t>(pg.loc.pool_id);
    r.epoch = static_cast<std::uint64_t>(pg.locator->map().epoch);
    r.collection = pg.loc.collection;
    r.shard = static_cast<std::uint32_t>(p);
    r.mode = at == st.VersionOf(p) ? msg::SubPullMode::kRepair : msg::SubPullMode::kRebuild;
    r.helpers = helpers;
    r.objects.push_back(msg::SubPullObject{name, st.version, st.size, at, st.versions, st.form});
    msg::CallOptions call;
    call.timeout = options_.subop_timeout * 2;
    auto reply = client->second->SubPull(std::move(r), call);
    Status s = reply.ok() ? reply->status : reply.status();
    if (s.ok() && reply->results.size() == 1) s = reply->results[0].status;
    if (!s.ok()) {
      log_->error("pg {} object {}: repair of shard {} on osd.{} failed: {}", pg.loc.pgid, name, p,
                  pg.loc.acting[p], s.message());
      continue;
    }
    log_->warn("pg {} object {}: shard {} on osd.{} repaired ({})", pg.loc.pgid, name, p,
               pg.loc.acting[p], why);
    if (at != st.VersionOf(p)) table_.MarkRecovered(pg.loc, name, p, st.version);
    metrics_
        ->GetCounter("ecstore_pool_shards_repaired_total",
                     "Shards rewritten because their bytes were bad (scrub repair, self-healing "
                     "reads)",
                     {{"pool", pg.pool_name}, {"reason", why}})
        .Inc();
    ++repaired;
  }
  return repaired;
}

std::vector<int> Primary::Impl::KeysOf(const std::map<int, std::uint64_t>& m) {
  std::vector<int> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

Result<cluster::ScrubResult> Primary::Impl::Scrub(const std::string& pgid, const ScrubRun& run) {
  const auto id = cluster::ParsePgId(pgid);
  if (!id || cluster::PgName(id->pool, id->pg) != pgid) {
    return Status::Invalid(fmt::format("invalid pgid '{}': expected POOL.PG (e.g. 1.1f)", pgid));
  }
  auto locator = Locator(0);
  if (!locator.ok()) return locator.status();
  Prepared p;
  p.locator = *locator;
  if (p.locator->map().pools.count(id->pool) == 0) {
    return Status::NotFound(fmt::format("pg {}: pool {} does not exist", pgid, id->pool));
  }
  auto loc = CheckPrimary(*p.locator, static_cast<std::uint64_t>(id->pool), nullptr, id->pg);
  if (!loc.ok()) return loc.status();
  if (loc->pgid != pgid) {
    return Status::NotFound(fmt::format("pg {} does not exist (the pool has pg_num {})", pgid,
                                        p.locator->map().pools.at(id->pool).pg_num));
  }
  p.loc = std::move(loc).value();
  EC_RETURN_IF_ERROR(FillPg(p));
  Fix(p);
  EC_RETURN_IF_ERROR(EnsurePeered(*p.locator, p.io));
  const PgHealth health = table_.Health(p.loc, false);
  if (health.state != "active+clean") {
    return Status::Retryable(EAGAIN,
                             fmt::format("pg {} is {}, not active+clean: it is scrubbed once "
                                         "recovery is done",
                                         pgid, health.state));
  }
  const bool deep = run.kind != cluster::ScrubKind::kScrub;
  const bool repair = run.kind == cluster::ScrubKind::kRepair || run.auto_repair;
  {
    std::lock_guard lock(scrub_mu_);
    if (!scrubbing_.emplace(pgid, deep).second) {
      return Status::Retryable(EBUSY, fmt::format("pg {} is being scrubbed already", pgid));
    }
    health_changes_.fetch_add(1, std::memory_order_relaxed);
  }
  struct Done {
    Impl* self;
    std::string pgid;
    ~Done() {
      std::lock_guard lock(self->scrub_mu_);
      self->scrubbing_.erase(pgid);
      self->health_changes_.fetch_add(1, std::memory_order_relaxed);
    }
  } done{this, pgid};

  const auto t0 = Clock::now();
  cluster::ScrubResult result;
  result.pgid = pgid;
  result.osd = options_.osd_id;
  result.epoch = p.locator->map().epoch;
  result.kind = run.kind;
  std::string cursor;
  for (;;) {
    auto names = table_.List(pgid, cursor, 256);
    if (!names) {
      return Status::Retryable(EAGAIN,
                               fmt::format("pg {} changed interval during the scrub", pgid));
    }
    for (const std::string& name : *names) {
      if (Stopping() || (run.cancel != nullptr && run.cancel->load())) {
        return Status::Error(ECANCELED, fmt::format("pg {}: scrub cancelled", pgid));
      }
      // Client operations first: wait (a little) while any is in flight.
      for (int i = 0; i < 20 && client_ops_.load() > 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      const auto pool = static_cast<std::uint64_t>(p.loc.pool_id);
      // The reads on the object's strand; the check (CPU) on this thread, which is niced like
      // recovery's; a repair on the strand again (the pull refuses a shard a write changed).
      ObjectScrub one = OnStrand(pool, name, [&] { return ReadForScrub(p, name, deep); });
      CheckScrubbed(p, name, one);
      if (one.found && repair && !one.bad.empty()) {
        one.repaired =
            OnStrand(pool, name, [&] { return RepairObject(p, name, one.bad, "scrub"); });
      }
      if (one.scrubbed) ++result.objects;
      if (one.found) {
        const auto errors = static_cast<std::int64_t>(one.found->union_shard_errors.size() +
                                                      one.found->errors.size());
        result.errors += errors;
        result.repaired += one.repaired;
        metrics_
            ->GetCounter("ecstore_pool_scrub_errors_total",
                         "Inconsistent objects found by scrubs and deep scrubs",
                         {{"pool", p.pool_name}})
            .Inc();
        const bool fixed = !one.unlocated && one.repaired == static_cast<int>(one.bad.size());
        if (!fixed) {
          if (result.inconsistents.size() < cluster::kMaxInconsistentsRecorded) {
            result.inconsistents.push_back(*one.found);
          } else {
            result.truncated = true;
          }
        }
        log_->warn("pg {} {}: object {} inconsistent: {}{}", pgid, cluster::ScrubKindName(run.kind),
                   name, fmt::join(one.found->union_shard_errors, ","), fixed ? " (repaired)" : "");
      }
      if (run.sleep.count() > 0) std::this_thread::sleep_for(run.sleep);
    }
    if (names->empty() || names->size() < 256) break;
    cursor = names->back();
  }
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  result.stamp_ms = now_ms;
  result.last_scrub_ms = now_ms;
  result.last_deep_scrub_ms = deep ? now_ms : 0;
  NoteScrubResult(result);
  const Labels labels{{"pool", p.pool_name},
                      {"kind", std::string(cluster::ScrubKindName(run.kind))}};
  metrics_->GetCounter("ecstore_pool_scrubs_total", "PG scrubs finished", labels).Inc();
  log_->info("pg {} {} ok: {} objects, {} errors, {} repaired, {} left inconsistent, {:.2f} s",
             pgid, cluster::ScrubKindName(run.kind), result.objects, result.errors, result.repaired,
             result.inconsistents.size(), std::chrono::duration<double>(Clock::now() - t0).count());
  return result;
}

void Primary::Impl::NoteScrubResult(const cluster::ScrubResult& result) {
  std::lock_guard lock(scrub_mu_);
  if (result.inconsistents.empty() && !result.truncated) {
    inconsistent_.erase(result.pgid);
  } else {
    inconsistent_[result.pgid] = result.inconsistents.size();
  }
  health_changes_.fetch_add(1, std::memory_order_relaxed);
}

// A client read found shards failing their checksum: rebuild them in the background, on the
// object's strand (after the read that found them), from the shards that are good.
void Primary::Impl::HealAfterRead(std::uint64_t pool, const std::string& pool_name,
                                  const std::string& object, std::vector<int> corrupt) {
  metrics_
      ->GetCounter("ecstore_pool_self_heal_reads_total",
                   "Client reads served by reconstruction because a shard failed its checksum",
                   {{"pool", pool_name}})
      .Inc();
  dispatcher_.Post(std::hash<std::string>()(CacheKey(pool, object)),
                   [this, pool, object, corrupt = std::move(corrupt)] {
                     if (Stopping()) return;
                     auto p = Prepare(pool, 0, object, false);
                     if (!p.ok() || !p->state.exists) return;
                     Fix(*p);
                     std::map<int, std::uint64_t> bad;
                     for (int pos : corrupt) bad[pos] = p->state.VersionOf(pos);
                     RepairObject(*p, object, bad, "read");
                   });
}

}  // namespace ec::osd::pg
