#include "cluster/map/pg_stats.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ec::cluster {

std::string PgStatsKey(std::string_view prefix, int osd) {
  return std::string(prefix) + "pgstats/" + std::to_string(osd);
}

std::string EncodePgStats(const PgStatsReport& report) {
  nlohmann::json pgs = nlohmann::json::object();
  for (const auto& [id, s] : report.pgs) {
    pgs[id] = {{"objects", s.objects},
               {"state", s.state},
               {"degraded", s.degraded},
               {"missing", s.missing},
               {"unfound", s.unfound}};
  }
  nlohmann::json j = {{"v", 2},
                      {"osd", report.osd},
                      {"epoch", report.epoch},
                      {"stamp_ms", report.stamp_ms},
                      {"pgs", pgs}};
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
  if (version != 1 && version != 2) return bad("unknown format");
  if (!j.contains("pgs") || !j["pgs"].is_object()) return bad("pgs");
  if (j.size() != 5) return bad("unknown field");
  PgStatsReport r;
  const std::int64_t osd = j["osd"].get<std::int64_t>();
  if (osd < 0 || osd > INT32_MAX) return bad("osd");
  r.osd = static_cast<int>(osd);
  r.epoch = j["epoch"].get<std::int64_t>();
  r.stamp_ms = j["stamp_ms"].get<std::int64_t>();
  // v1 has "objects" only; v2 adds the primary's view of the PG.
  const std::vector<const char*> counts =
      version == 1 ? std::vector<const char*>{"objects"}
                   : std::vector<const char*>{"objects", "degraded", "missing", "unfound"};
  for (const auto& [id, s] : j["pgs"].items()) {
    if (!s.is_object() || s.size() != counts.size() + (version == 1 ? 0 : 1)) {
      return bad("pg " + id);
    }
    std::vector<std::int64_t> values;
    for (const char* c : counts) {
      if (!s.contains(c) || !s[c].is_number_integer() || s[c].get<std::int64_t>() < 0) {
        return bad("pg " + id + " " + c);
      }
      values.push_back(s[c].get<std::int64_t>());
    }
    PgStat st;
    st.objects = values[0];
    if (version == 2) {
      if (!s.contains("state") || !s["state"].is_string()) return bad("pg " + id + " state");
      st.state = s["state"].get<std::string>();
      st.degraded = values[1];
      st.missing = values[2];
      st.unfound = values[3];
    }
    r.pgs[id] = st;
  }
  return r;
}

Status PublishPgStats(const etcd::Client& client, std::string_view prefix,
                      const PgStatsReport& report) {
  etcd::PutRequest put;
  put.key = PgStatsKey(prefix, report.osd);
  put.value = EncodePgStats(report);
  auto r = client.Put(put);
  return r.ok() ? Status::OK() : r.status();
}

Result<std::map<int, PgStatsReport>> LoadPgStats(const etcd::Client& client,
                                                 std::string_view prefix) {
  etcd::RangeRequest range;
  range.key = std::string(prefix) + "pgstats/";
  range.range_end = etcd::PrefixEnd(range.key);
  auto got = client.Range(range);
  if (!got.ok()) return got.status();
  std::map<int, PgStatsReport> out;
  for (const etcd::KeyValue& kv : got->kvs) {
    auto r = DecodePgStats(kv.key, kv.value);
    if (r.ok() && PgStatsKey(prefix, r->osd) == kv.key) out[r->osd] = std::move(r).value();
  }
  return out;
}

}  // namespace ec::cluster
