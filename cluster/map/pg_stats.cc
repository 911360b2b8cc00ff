#include "cluster/map/pg_stats.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iterator>

#include "cluster/map/osd_reports.h"

namespace ec::cluster {

using osd_reports::GetCount;

std::string PgStatsKey(std::string_view prefix, int osd) {
  return std::string(prefix) + "pgstats/" + std::to_string(osd);
}

namespace {

// The per-PG counts and the recovery fields, in the order of the structs, with the version that
// introduced each.
struct PgCount {
  const char* name;
  std::int64_t since;
  std::int64_t PgStat::*field;
};
constexpr PgCount kPgCounts[] = {
    {"objects", 1, &PgStat::objects},
    {"bytes", 5, &PgStat::bytes},
    {"degraded", 2, &PgStat::degraded},
    {"misplaced", 3, &PgStat::misplaced},
    {"missing", 2, &PgStat::missing},
    {"unfound", 2, &PgStat::unfound},
    {"missing_bytes", 3, &PgStat::missing_bytes},
    {"recovered", 3, &PgStat::recovered},
    {"recovered_bytes", 3, &PgStat::recovered_bytes},
};
struct RecoveryField {
  const char* name;
  std::int64_t since;
  std::int64_t RecoveryTotals::*field;
};
constexpr RecoveryField kRecoveryFields[] = {
    {"network_bytes", 3, &RecoveryTotals::network_bytes},
    {"helper_device_bytes", 3, &RecoveryTotals::helper_device_bytes},
    {"rebuilt_bytes", 3, &RecoveryTotals::rebuilt_bytes},
    {"objects", 3, &RecoveryTotals::objects},
    {"rebuilt_bytes_per_sec", 3, &RecoveryTotals::rebuilt_bytes_per_sec},
    {"objects_per_sec", 3, &RecoveryTotals::objects_per_sec},
    {"since_ms", 3, &RecoveryTotals::since_ms},
    {"last_since_ms", 5, &RecoveryTotals::last_since_ms},
    {"last_done_ms", 5, &RecoveryTotals::last_done_ms},
};

// A v4 OSD list: at most this many positions, each an OSD id or -1 (kItemNone).
constexpr std::size_t kMaxPositions = 256;

bool GetOsdList(const nlohmann::json& j, const char* name, std::vector<int>* out) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_array() || it->size() > kMaxPositions) return false;
  out->clear();
  for (const nlohmann::json& osd : *it) {
    if (!osd.is_number_integer()) return false;
    const std::int64_t id = osd.get<std::int64_t>();
    if (id < -1 || id > INT32_MAX) return false;
    out->push_back(static_cast<int>(id));
  }
  return true;
}

}  // namespace

std::string EncodePgStats(const PgStatsReport& report) {
  nlohmann::json pgs = nlohmann::json::object();
  for (const auto& [id, s] : report.pgs) {
    nlohmann::json pg = {{"state", s.state}};
    for (const PgCount& c : kPgCounts) pg[c.name] = s.*c.field;
    pg["up"] = s.up;
    pg["acting"] = s.acting;
    pgs[id] = std::move(pg);
  }
  nlohmann::json recovery = nlohmann::json::object();
  for (const RecoveryField& f : kRecoveryFields) recovery[f.name] = report.recovery.*f.field;
  nlohmann::json j = {{"v", kPgStatsVersion},  {"osd", report.osd},
                      {"epoch", report.epoch}, {"stamp_ms", report.stamp_ms},
                      {"pgs", std::move(pgs)}, {"recovery", std::move(recovery)}};
  return j.dump();
}

Result<PgStatsReport> DecodePgStats(std::string_view key, std::string_view value) {
  const auto bad = [&](const std::string& why) {
    return Status::Error(EBADMSG, "bad pg stats at " + std::string(key) + ": " + why);
  };
  nlohmann::json j = nlohmann::json::parse(value, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  for (const char* field : {"v", "osd", "epoch", "stamp_ms"}) {
    if (!j.contains(field) || !j[field].is_number_integer()) return bad(std::string(field));
  }
  const std::int64_t version = j["v"].get<std::int64_t>();
  if (version < 1 || version > kPgStatsVersion) return bad("unknown format");
  if (!j.contains("pgs") || !j["pgs"].is_object()) return bad("pgs");
  if (version >= 3 && (!j.contains("recovery") || !j["recovery"].is_object())) {
    return bad("recovery");
  }
  if (j.size() != (version >= 3 ? 6u : 5u)) return bad("unknown field");
  PgStatsReport r;
  const std::int64_t osd = j["osd"].get<std::int64_t>();
  if (osd < 0 || osd > INT32_MAX) return bad("osd");
  r.osd = static_cast<int>(osd);
  r.epoch = j["epoch"].get<std::int64_t>();
  r.stamp_ms = j["stamp_ms"].get<std::int64_t>();
  std::size_t fields = version >= 2 ? 1 : 0;  // "state"
  if (version >= 4) fields += 2;              // "up", "acting"
  for (const PgCount& c : kPgCounts) fields += c.since <= version ? 1 : 0;
  for (const auto& [id, s] : j["pgs"].items()) {
    if (!s.is_object() || s.size() != fields) return bad("pg " + id);
    PgStat st;
    for (const PgCount& c : kPgCounts) {
      if (c.since <= version && !GetCount(s, c.name, &(st.*c.field))) {
        return bad("pg " + id + " " + c.name);
      }
    }
    if (version >= 2) {
      if (!s.contains("state") || !s["state"].is_string()) return bad("pg " + id + " state");
      st.state = s["state"].get<std::string>();
    }
    if (version >= 4) {
      if (!GetOsdList(s, "up", &st.up)) return bad("pg " + id + " up");
      if (!GetOsdList(s, "acting", &st.acting)) return bad("pg " + id + " acting");
      if (st.up.size() != st.acting.size())
        return bad("pg " + id + " up and acting differ in size");
    }
    r.pgs[id] = std::move(st);
  }
  if (version >= 3) {
    const nlohmann::json& rec = j["recovery"];
    std::size_t rec_fields = 0;
    for (const RecoveryField& f : kRecoveryFields) rec_fields += f.since <= version ? 1 : 0;
    if (rec.size() != rec_fields) return bad("recovery: unknown field");
    for (const RecoveryField& f : kRecoveryFields) {
      if (f.since <= version && !GetCount(rec, f.name, &(r.recovery.*f.field))) {
        return bad(std::string("recovery ") + f.name);
      }
    }
  }
  return r;
}

Status PublishPgStats(const etcd::Client& client, std::string_view prefix,
                      const PgStatsReport& report) {
  return osd_reports::Put(client, PgStatsKey(prefix, report.osd), EncodePgStats(report));
}

Result<std::map<int, PgStatsReport>> LoadPgStats(const etcd::Client& client,
                                                 std::string_view prefix) {
  return osd_reports::Load<PgStatsReport>(client, prefix, "pgstats/", DecodePgStats, PgStatsKey);
}

}  // namespace ec::cluster
