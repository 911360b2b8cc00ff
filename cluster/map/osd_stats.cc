#include "cluster/map/osd_stats.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "cluster/map/osd_reports.h"

namespace ec::cluster {

using osd_reports::GetCount;

std::string OsdStatsKey(std::string_view prefix, int osd) {
  return std::string(prefix) + "osdstats/" + std::to_string(osd);
}

namespace {

struct StatfsField {
  const char* name;
  std::int64_t OsdStatfs::*field;
};
constexpr StatfsField kStatfsFields[] = {
    {"total", &OsdStatfs::total}, {"available", &OsdStatfs::available}, {"data", &OsdStatfs::data},
    {"omap", &OsdStatfs::omap},   {"meta", &OsdStatfs::meta},
};
struct IoField {
  const char* name;
  std::int64_t OsdIo::*field;
};
constexpr IoField kIoFields[] = {
    {"rd", &OsdIo::rd},
    {"rd_bytes", &OsdIo::rd_bytes},
    {"wr", &OsdIo::wr},
    {"wr_bytes", &OsdIo::wr_bytes},
};

nlohmann::json IoJson(const OsdIo& io) {
  nlohmann::json j = nlohmann::json::object();
  for (const IoField& f : kIoFields) j[f.name] = io.*f.field;
  return j;
}

bool GetIo(const nlohmann::json& j, OsdIo* out) {
  if (!j.is_object() || j.size() != std::size(kIoFields)) return false;
  for (const IoField& f : kIoFields) {
    if (!GetCount(j, f.name, &(out->*f.field))) return false;
  }
  return true;
}

bool GetLatency(const nlohmann::json& j, const char* name, double* out) {
  const auto it = j.find(name);
  if (it == j.end() || !it->is_number()) return false;
  *out = it->get<double>();
  return std::isfinite(*out) && *out >= 0 && *out <= kMaxOsdLatencyMs;
}

bool GetPerf(const nlohmann::json& j, OsdPerfStat* out) {
  return j.is_object() && j.size() == 3 &&
         GetLatency(j, "commit_latency_ms", &out->commit_latency_ms) &&
         GetLatency(j, "apply_latency_ms", &out->apply_latency_ms) && GetCount(j, "ops", &out->ops);
}

// A pool id key: decimal digits only, no sign or padding, fits int64.
bool PoolIdOf(const std::string& text, std::int64_t* id) {
  if (text.empty() || text.size() > 19 || (text.size() > 1 && text[0] == '0')) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *id);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string EncodeOsdStats(const OsdStatsReport& report) {
  nlohmann::json statfs = nlohmann::json::object();
  for (const StatfsField& f : kStatfsFields) statfs[f.name] = report.statfs.*f.field;
  nlohmann::json pools = nlohmann::json::object();
  for (const auto& [id, io] : report.pools) pools[std::to_string(id)] = IoJson(io);
  nlohmann::json j = {
      {"v", kOsdStatsVersion},
      {"osd", report.osd},
      {"stamp_ms", report.stamp_ms},
      {"statfs", std::move(statfs)},
      {"io", IoJson(report.io)},
      {"rates", IoJson(report.rates)},
      {"pools", std::move(pools)},
      {"perf_stat",
       {{"commit_latency_ms", report.perf.commit_latency_ms},
        {"apply_latency_ms", report.perf.apply_latency_ms},
        {"ops", report.perf.ops}}},
      {"op_latency", {{"rd_ns", report.op_latency.rd_ns}, {"wr_ns", report.op_latency.wr_ns}}},
      {"device",
       {{"read_errors", report.device.read_errors},
        {"write_errors", report.device.write_errors},
        {"slow_ops", report.device.slow_ops},
        {"slow_ops_interval", report.slow_ops_interval}}}};
  return j.dump();
}

Result<OsdStatsReport> DecodeOsdStats(std::string_view key, std::string_view value) {
  const auto bad = [&](const std::string& why) {
    return Status::Error(EBADMSG, "bad osd stats at " + std::string(key) + ": " + why);
  };
  if (value.size() > kMaxOsdStatsBytes) {
    return bad("value of " + std::to_string(value.size()) + " bytes, more than " +
               std::to_string(kMaxOsdStatsBytes));
  }
  nlohmann::json j = nlohmann::json::parse(value, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  for (const char* field : {"v", "osd", "stamp_ms"}) {
    if (!j.contains(field) || !j[field].is_number_integer()) return bad(field);
  }
  // Version 3 lacks device, 2 op_latency too, 1 perf_stat too; the field set is otherwise the
  // same.
  const std::int64_t version = j["v"].get<std::int64_t>();
  if (version < 1 || version > 4) return bad("unknown format");
  if (j.size() != 6u + static_cast<std::size_t>(version)) return bad("unknown field");
  OsdStatsReport r;
  const std::int64_t osd = j["osd"].get<std::int64_t>();
  if (osd < 0 || osd > INT32_MAX) return bad("osd");
  r.osd = static_cast<int>(osd);
  r.stamp_ms = j["stamp_ms"].get<std::int64_t>();

  const auto statfs = j.find("statfs");
  if (statfs == j.end() || !statfs->is_object() || statfs->size() != std::size(kStatfsFields)) {
    return bad("statfs");
  }
  for (const StatfsField& f : kStatfsFields) {
    if (!GetCount(*statfs, f.name, &(r.statfs.*f.field)))
      return bad(std::string("statfs ") + f.name);
  }
  // Each part is at most total, so the sum cannot overflow before it is compared.
  const OsdStatfs& s = r.statfs;
  if (s.available > s.total || s.data > s.total || s.omap > s.total || s.meta > s.total ||
      s.available + s.data > s.total || s.available + s.data + s.omap > s.total ||
      s.available + s.data + s.omap + s.meta > s.total) {
    return bad("statfs parts add up to more than total");
  }
  for (const auto& [name, io] :
       {std::pair<const char*, OsdIo*>{"io", &r.io}, {"rates", &r.rates}}) {
    const auto it = j.find(name);
    if (it == j.end() || !GetIo(*it, io)) return bad(name);
  }
  const auto pools = j.find("pools");
  if (pools == j.end() || !pools->is_object()) return bad("pools");
  if (pools->size() > kMaxOsdStatsPools)
    return bad("more than " + std::to_string(kMaxOsdStatsPools) + " pools");
  for (const auto& [id_text, io] : pools->items()) {
    std::int64_t id = 0;
    if (!PoolIdOf(id_text, &id)) return bad("pool id '" + id_text + "'");
    if (!GetIo(io, &r.pools[id])) return bad("pool " + id_text);
  }
  if (version >= 2) {
    const auto perf = j.find("perf_stat");
    if (perf == j.end() || !GetPerf(*perf, &r.perf)) return bad("perf_stat");
  }
  if (version >= 3) {
    const auto lat = j.find("op_latency");
    if (lat == j.end() || !lat->is_object() || lat->size() != 2 ||
        !GetCount(*lat, "rd_ns", &r.op_latency.rd_ns) ||
        !GetCount(*lat, "wr_ns", &r.op_latency.wr_ns)) {
      return bad("op_latency");
    }
  }
  if (version >= 4) {
    const auto dev = j.find("device");
    if (dev == j.end() || !dev->is_object() || dev->size() != 4 ||
        !GetCount(*dev, "read_errors", &r.device.read_errors) ||
        !GetCount(*dev, "write_errors", &r.device.write_errors) ||
        !GetCount(*dev, "slow_ops", &r.device.slow_ops) ||
        !GetCount(*dev, "slow_ops_interval", &r.slow_ops_interval) ||
        r.slow_ops_interval > r.device.slow_ops) {
      return bad("device");
    }
  }
  return r;
}

Status PublishOsdStats(const etcd::Client& client, std::string_view prefix,
                       const OsdStatsReport& report) {
  return osd_reports::Put(client, OsdStatsKey(prefix, report.osd), EncodeOsdStats(report));
}

Result<std::map<int, OsdStatsReport>> LoadOsdStats(const etcd::Client& client,
                                                   std::string_view prefix) {
  return osd_reports::Load<OsdStatsReport>(client, prefix, "osdstats/", DecodeOsdStats,
                                           OsdStatsKey);
}

}  // namespace ec::cluster
