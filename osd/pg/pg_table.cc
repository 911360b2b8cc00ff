#include "osd/pg/pg_table.h"

#include <algorithm>

namespace ec::osd::pg {
namespace {

bool IsCurrent(const ObjectState& st, int p) {
  return std::find(st.current.begin(), st.current.end(), p) != st.current.end();
}

// Up positions of `up` that `st` does not hold at its version.
std::vector<int> MissingPositions(const ObjectState& st, const std::vector<int>& up) {
  std::vector<int> out;
  for (int p = 0; p < static_cast<int>(up.size()); ++p) {
    if (up[p] != cluster::kItemNone && !IsCurrent(st, p)) out.push_back(p);
  }
  return out;
}

// The shard bytes recovery writes to rebuild `position` of an existing object in a PG of
// `positions` positions: a share of its stripes (size / k, rounded up), or, for an erasure pool's
// small object kept as copies (issue 30 item 2), the whole object on the copies' positions
// 0..positions-k and an empty shard past them.
std::uint64_t RebuildBytes(const ObjectState& st, int position, std::uint64_t k,
                           std::size_t positions) {
  if (st.form == msg::ObjectForm::kReplicas) {
    const std::size_t copies = positions + 1 - std::min<std::size_t>(k, positions);
    return static_cast<std::size_t>(position) < copies ? st.size : 0;
  }
  return (st.size + k - 1) / k;
}

// The OSD holding `position` of `name` outside the acting set, or kItemNone.
int CopySource(const CopySources& copies, const std::string& name, int position) {
  auto o = copies.find(name);
  if (o == copies.end()) return cluster::kItemNone;
  auto p = o->second.find(position);
  return p == o->second.end() ? cluster::kItemNone : p->second;
}

}  // namespace

bool PgTable::Keep(const Pg& pg, const ObjectState& st) {
  if (st.exists || !st.stale.empty()) return true;
  // Not stale but not holding the removal either: its OSD was down (or did not answer) when the
  // object was removed or settled, and may come back with an older shard of it (a catch-up marks
  // the object unknown then, which finds that shard).
  for (std::size_t p = 0; p < pg.known.size(); ++p) {
    if (pg.known[p] != Known::kNothing && !IsCurrent(st, static_cast<int>(p))) return true;
  }
  return false;
}

bool PgTable::CanKeep(const Pg& pg, const cluster::PgLocation& loc) {
  if (!pg.peered && !pg.kept) return false;
  if (pg.acting != loc.acting || pg.known.size() != loc.up.size()) return false;
  // The same primary: this process served every interval in between (Observe saw each epoch).
  if (cluster::FirstUp(pg.up) != cluster::FirstUp(loc.up)) return false;
  for (std::size_t p = 0; p < loc.up.size(); ++p) {
    if (loc.up[p] != cluster::kItemNone && pg.known[p] == Known::kNothing) return false;
  }
  return true;
}

void PgTable::Track(Pg& pg, const std::string& object) {
  auto o = pg.objects.find(object);
  bool lacks = false;
  if (o != pg.objects.end()) {
    const ObjectState& st = o->second;
    if (st.exists) {
      lacks = !MissingPositions(st, pg.up).empty();
    } else {
      for (const auto& [p, v] : st.stale) {
        if (p >= 0 && p < static_cast<int>(pg.up.size()) && pg.up[p] != cluster::kItemNone) {
          lacks = true;
        }
      }
    }
  }
  if (lacks) {
    pg.lacking.insert(object);
  } else {
    pg.lacking.erase(object);
  }
}

void PgTable::Reset(Pg& pg) {
  pg.peered = false;
  pg.kept = false;
  pg.known.clear();
  pg.lacking.clear();
  pg.objects.clear();
  pg.unknown.clear();
  pg.unfound.clear();
  pg.copies.clear();
  pg.suspect.clear();
  pg.recovered = 0;
  pg.recovered_bytes = 0;
}

bool PgTable::Observe(const cluster::ObjectLocator& locator) {
  const std::int64_t epoch = locator.map().epoch;
  std::lock_guard lock(mu_);
  if (epoch < last_epoch_) return false;
  if (epoch == last_epoch_) return true;
  const bool jump = last_epoch_ != 0 && epoch != last_epoch_ + 1;
  last_epoch_ = epoch;
  changes_.fetch_add(1, std::memory_order_relaxed);
  for (auto& [pgid, pg] : pgs_) {
    // A peering in progress when epochs were jumped over: what it installs may predate another
    // primary's writes in those epochs (FinishPeering and FinishCatchUp drop it). Any other map
    // change is seen by the next BeginPeering (another interval than the one peered).
    if (pg.peering) {
      pg.overtaken = pg.overtaken || jump;
      continue;
    }
    if (!pg.peered && !pg.kept) continue;
    auto loc = locator.LocatePg(pg.pool_id, pg.pg);
    if (jump || !loc.ok()) {
      Reset(pg);
      continue;
    }
    if (pg.peered && SameInterval(pg, *loc)) continue;
    if (!CanKeep(pg, *loc)) {
      Reset(pg);
      continue;
    }
    // Kept for a catch-up: positions whose OSD is down now may miss writes from here on.
    pg.peered = false;
    pg.kept = true;
    for (std::size_t p = 0; p < loc->up.size(); ++p) {
      if (loc->up[p] == cluster::kItemNone && pg.known[p] == Known::kLive) {
        pg.known[p] = Known::kAway;
      }
    }
  }
  cv_.notify_all();
  return true;
}

PgTable::Peer PgTable::BeginPeering(const cluster::PgLocation& loc, std::int64_t epoch) {
  std::unique_lock lock(mu_);
  Pg& pg = pgs_[loc.pgid];
  pg.pool_id = loc.pool_id;
  pg.pg = loc.pg;
  for (;;) {
    if (epoch < last_epoch_) return Peer::kStale;
    if (pg.peered && SameInterval(pg, loc)) return Peer::kReady;
    if (!pg.peering) break;
    cv_.wait(lock);
  }
  pg.peering = true;
  pg.overtaken = false;
  changes_.fetch_add(1, std::memory_order_relaxed);
  if (pg.kept && CanKeep(pg, loc)) return Peer::kCatchUp;
  Reset(pg);
  return Peer::kMustPeer;
}

std::size_t PgTable::FinishCatchUp(const cluster::PgLocation& loc) {
  std::lock_guard lock(mu_);
  Pg& pg = pgs_[loc.pgid];
  pg.peering = false;
  if (pg.overtaken) {
    Reset(pg);  // the next operation peers in full
    changes_.fetch_add(1, std::memory_order_relaxed);
    cv_.notify_all();
    return 0;
  }
  pg.kept = false;
  pg.peered = true;
  pg.acting = loc.acting;
  pg.up = loc.up;
  // The fences just raised hold back every older sub-operation (pg_table.h, Forget).
  pg.suspect.clear();
  pg.recovered = 0;
  pg.recovered_bytes = 0;
  std::vector<int> back;
  for (std::size_t p = 0; p < loc.up.size(); ++p) {
    if (loc.up[p] == cluster::kItemNone) continue;
    if (pg.known[p] == Known::kAway) back.push_back(static_cast<int>(p));
    pg.known[p] = Known::kLive;
  }
  std::size_t marked = 0;
  if (!back.empty()) {
    for (const auto& [name, st] : pg.objects) {
      for (int p : back) {
        if (IsCurrent(st, p)) continue;
        marked += pg.unknown.insert(name).second ? 1 : 0;
        pg.copies.erase(name);
        break;
      }
    }
  }
  std::erase_if(pg.objects, [&](const auto& e) {
    return pg.unknown.count(e.first) == 0 && !Keep(pg, e.second);
  });
  pg.lacking.clear();
  for (const auto& [name, st] : pg.objects) Track(pg, name);
  changes_.fetch_add(1, std::memory_order_relaxed);
  cv_.notify_all();
  return marked;
}

void PgTable::FinishPeering(const cluster::PgLocation& loc,
                            std::map<std::string, ObjectState> objects,
                            std::set<std::string> unfound, CopySources copies,
                            const std::optional<std::set<int>>& scanned) {
  std::lock_guard lock(mu_);
  Pg& pg = pgs_[loc.pgid];
  pg.peering = false;
  if (pg.overtaken) {
    Reset(pg);  // the next operation peers again
    changes_.fetch_add(1, std::memory_order_relaxed);
    cv_.notify_all();
    return;
  }
  pg.peered = true;
  pg.acting = loc.acting;
  pg.up = loc.up;
  // What the scans showed of each position: a catch-up can start from it (pg_table.h).
  pg.known.assign(loc.up.size(), Known::kNothing);
  for (std::size_t p = 0; p < loc.up.size(); ++p) {
    const bool seen = !scanned || scanned->count(static_cast<int>(p)) != 0;
    if (loc.up[p] != cluster::kItemNone && seen) pg.known[p] = Known::kLive;
  }
  std::erase_if(objects, [&](const auto& e) { return !Keep(pg, e.second); });
  pg.objects = std::move(objects);
  pg.unfound = std::move(unfound);
  pg.unknown = pg.unfound;  // an op on one asks the shards again (and fails clearly)
  std::erase_if(copies, [&](const auto& e) { return pg.objects.count(e.first) == 0; });
  // Shards the settling found on OSDs outside the acting set are copy sources too.
  for (const auto& [name, st] : pg.objects) {
    for (const auto& [p, osd] : st.copy_from) copies[name].emplace(p, osd);
  }
  pg.copies = std::move(copies);
  pg.lacking.clear();
  for (const auto& [name, st] : pg.objects) Track(pg, name);
  changes_.fetch_add(1, std::memory_order_relaxed);
  cv_.notify_all();
}

void PgTable::AbortPeering(const cluster::PgLocation& loc) {
  std::lock_guard lock(mu_);
  Pg& pg = pgs_[loc.pgid];
  pg.peering = false;
  Reset(pg);
  changes_.fetch_add(1, std::memory_order_relaxed);
  cv_.notify_all();
}

std::optional<ObjectState> PgTable::Lookup(const std::string& pgid,
                                           const std::string& object) const {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(pgid);
  if (it == pgs_.end() || !it->second.peered) return std::nullopt;
  return LookupLocked(it->second, object);
}

std::optional<ObjectState> PgTable::Lookup(const cluster::PgLocation& loc,
                                           const std::string& object) const {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(loc.pgid);
  if (it == pgs_.end() || !it->second.peered || !SameInterval(it->second, loc)) {
    return std::nullopt;
  }
  return LookupLocked(it->second, object);
}

std::optional<ObjectState> PgTable::LookupLocked(const Pg& pg, const std::string& object) {
  if (pg.unknown.count(object) != 0) return std::nullopt;
  auto o = pg.objects.find(object);
  if (o != pg.objects.end()) {
    ObjectState st = o->second;
    auto s = pg.suspect.find(object);
    if (s != pg.suspect.end()) st.suspect = s->second;
    return st;
  }
  // Not in the PG: every shard is "at version 0" (absent), as a resolve would find it.
  ObjectState absent;
  for (int p = 0; p < static_cast<int>(pg.acting.size()); ++p) absent.current.push_back(p);
  auto s = pg.suspect.find(object);
  if (s != pg.suspect.end()) absent.suspect = s->second;
  return absent;
}

void PgTable::Update(const cluster::PgLocation& loc, const std::string& object,
                     const ObjectState& state) {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(loc.pgid);
  if (it == pgs_.end()) return;
  Pg& pg = it->second;
  if (!pg.peered || !SameInterval(pg, loc)) {
    // Learnt in another interval. A table built anew since scanned the shards after this
    // operation's sub-operations were fenced off; a kept one did not: ask the shards next time.
    if (pg.kept || pg.peered) {
      pg.unknown.insert(object);
      pg.copies.erase(object);
    }
    return;
  }
  pg.unknown.erase(object);
  pg.unfound.erase(object);
  auto old = pg.objects.find(object);
  if (old == pg.objects.end() || old->second.version != state.version) pg.copies.erase(object);
  for (const auto& [p, osd] : state.copy_from) pg.copies[object].emplace(p, osd);
  if (Keep(pg, state)) {
    pg.objects[object] = state;
  } else {
    pg.objects.erase(object);
  }
  Track(pg, object);
}

void PgTable::Forget(const std::string& pgid, const std::string& object,
                     const std::set<int>& suspect) {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(pgid);
  if (it == pgs_.end() || (!it->second.peered && !it->second.kept)) return;
  it->second.unknown.insert(object);
  it->second.copies.erase(object);
  if (!suspect.empty()) it->second.suspect[object].insert(suspect.begin(), suspect.end());
}

std::set<int> PgTable::Suspect(const std::string& pgid, const std::string& object) const {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(pgid);
  if (it == pgs_.end() || !it->second.peered) return {};
  auto s = it->second.suspect.find(object);
  return s == it->second.suspect.end() ? std::set<int>() : s->second;
}

void PgTable::SetSuspect(const cluster::PgLocation& loc, const std::string& object,
                         const std::set<int>& suspect) {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(loc.pgid);
  if (it == pgs_.end() || !it->second.peered || !SameInterval(it->second, loc)) return;
  if (suspect.empty()) {
    it->second.suspect.erase(object);
  } else {
    it->second.suspect[object] = suspect;
  }
}

void PgTable::NoteMeta(const std::string& pgid, const std::string& object, std::uint64_t version,
                       std::shared_ptr<const ObjectMeta> meta) {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(pgid);
  if (it == pgs_.end() || !it->second.peered || it->second.unknown.count(object) != 0) return;
  auto o = it->second.objects.find(object);
  if (o != it->second.objects.end() && o->second.version == version)
    o->second.meta = std::move(meta);
}

void PgTable::MarkRecovered(const cluster::PgLocation& loc, const std::string& object, int position,
                            std::uint64_t version, std::uint64_t bytes) {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(loc.pgid);
  if (it == pgs_.end() || !it->second.peered || !SameInterval(it->second, loc)) return;
  Pg& pg = it->second;
  if (pg.unknown.count(object) != 0) return;
  auto o = pg.objects.find(object);
  if (o == pg.objects.end() || o->second.version != version) return;
  ObjectState& st = o->second;
  ++pg.recovered;
  pg.recovered_bytes += bytes;
  auto c = pg.copies.find(object);
  if (c != pg.copies.end()) {
    c->second.erase(position);
    if (c->second.empty()) pg.copies.erase(c);
  }
  st.stale.erase(position);
  // It holds the object's version now (for a removed object: the removal).
  if (!IsCurrent(st, position)) st.current.push_back(position);
  std::sort(st.current.begin(), st.current.end());
  if (!st.exists && !Keep(pg, st)) pg.objects.erase(o);
  Track(pg, object);
}

bool PgTable::Clean(const cluster::PgLocation& loc) const {
  if (loc.up_count() != static_cast<int>(loc.up.size())) return false;
  std::lock_guard lock(mu_);
  auto it = pgs_.find(loc.pgid);
  if (it == pgs_.end()) return false;
  const Pg& pg = it->second;
  return pg.peered && !pg.peering && SameInterval(pg, loc) && pg.unknown.empty() &&
         pg.unfound.empty() && pg.lacking.empty();
}

std::vector<std::string> PgTable::Unknown(const cluster::PgLocation& loc, std::size_t max) const {
  std::vector<std::string> out;
  std::lock_guard lock(mu_);
  auto it = pgs_.find(loc.pgid);
  if (it == pgs_.end() || !it->second.peered || !SameInterval(it->second, loc)) return out;
  for (const std::string& n : it->second.unknown) {
    if (out.size() >= max) break;
    if (it->second.unfound.count(n) == 0) out.push_back(n);
  }
  return out;
}

std::vector<MissingShard> PgTable::Missing(const cluster::PgLocation& loc, std::size_t max,
                                           const std::set<std::string>& busy) const {
  std::vector<MissingShard> out;
  std::lock_guard lock(mu_);
  auto it = pgs_.find(loc.pgid);
  if (it == pgs_.end() || !it->second.peered || !SameInterval(it->second, loc)) return out;
  const Pg& pg = it->second;
  // Only the objects lacking a position (Track keeps them): walking every object from the first
  // made each batch cost the PG's size, and recovery of 10^5 objects per OSD ran at a quarter of
  // 10^4's rate (bench/scale.sh).
  for (const std::string& name : pg.lacking) {
    if (out.size() >= max) break;
    if (busy.count(name) != 0 || pg.unknown.count(name) != 0) continue;
    auto o = pg.objects.find(name);
    if (o == pg.objects.end()) continue;
    const ObjectState& st = o->second;
    if (st.exists) {
      for (int p : MissingPositions(st, pg.up)) {
        out.push_back({name, p, st, CopySource(pg.copies, name, p)});
      }
    } else {
      for (const auto& [p, v] : st.stale) {
        if (pg.up[p] != cluster::kItemNone) out.push_back({name, p, st, cluster::kItemNone});
      }
    }
  }
  return out;
}

PgHealth PgTable::Health(const cluster::PgLocation& loc, bool recovering) const {
  using namespace cluster::pg_state;
  PgHealth h;
  h.up = loc.up;
  h.acting = loc.acting;
  const auto finish = [&h](std::uint64_t flags) {
    h.flags = flags;
    h.state = cluster::PgStateString(flags);
    return h;
  };
  std::lock_guard lock(mu_);
  if (loc.up_count() < loc.k) return finish(kDown);
  auto it = pgs_.find(loc.pgid);
  if (it == pgs_.end() || !it->second.peered || !SameInterval(it->second, loc)) {
    return finish(kPeering);
  }
  const Pg& pg = it->second;
  const bool undersized = loc.up_count() < static_cast<int>(loc.up.size());
  const std::uint64_t k = static_cast<std::uint64_t>(std::max(loc.k, 1));
  std::uint64_t to_rebuild = 0, to_copy = 0;
  for (const auto& [name, st] : pg.objects) {
    if (!st.exists) {
      // A remove that an up position missed: the PG is not clean until recovery deletes the
      // stale shard there (what Missing() lists), or the pool would list the object meanwhile.
      for (const auto& [p, v] : st.stale) {
        if (pg.up[p] == cluster::kItemNone) continue;
        ++h.missing;
        ++to_rebuild;
      }
      continue;
    }
    ++h.objects;
    h.bytes += st.size;
    const std::vector<int> missing = MissingPositions(st, pg.up);
    std::size_t copies = 0;
    for (int p : missing) copies += CopySource(pg.copies, name, p) != cluster::kItemNone ? 1 : 0;
    h.missing += missing.size();
    for (int p : missing) h.missing_bytes += RebuildBytes(st, p, k, pg.up.size());
    to_copy += copies;
    to_rebuild += missing.size() - copies;
    if (undersized || copies < missing.size()) {
      ++h.degraded;
    } else if (copies > 0) {
      ++h.misplaced;
    }
  }
  h.recovered = pg.recovered;
  h.recovered_bytes = pg.recovered_bytes;
  h.unfound = pg.unfound.size();
  if (h.unfound > 0) return finish(kIncomplete);
  // Peered: active when min_size shards are up (it takes writes), else only peered (Ceph's
  // "undersized+degraded+peered"); recovery runs either way.
  const bool active = loc.up_count() >= loc.min_size;
  std::uint64_t flags = active ? kActive : kPeered;
  if (undersized) flags |= kUndersized;
  if (h.degraded > 0) flags |= kDegraded;
  if (to_copy > 0) flags |= kRemapped | (recovering ? kBackfilling : kBackfillWait);
  if (to_rebuild > 0) flags |= recovering ? kRecovering : kRecoveryWait;
  if (active && !undersized && h.missing == 0) flags |= kClean;
  return finish(flags);
}

std::optional<std::vector<std::string>> PgTable::List(const std::string& pgid,
                                                      const std::string& cursor,
                                                      std::size_t max) const {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(pgid);
  if (it == pgs_.end() || !it->second.peered) return std::nullopt;
  // Objects that exist, and unknown ones (they may: an operation on them failed midway).
  const Pg& pg = it->second;
  std::set<std::string> names(pg.unknown.upper_bound(cursor), pg.unknown.end());
  for (auto o = pg.objects.upper_bound(cursor); o != pg.objects.end(); ++o) {
    if (o->second.exists) names.insert(o->first);
    if (names.size() > max && o->first > *std::prev(names.end())) break;
  }
  std::vector<std::string> out;
  for (const std::string& n : names) {
    if (out.size() >= max) break;
    out.push_back(n);
  }
  return out;
}

}  // namespace ec::osd::pg
