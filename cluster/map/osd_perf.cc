#include "cluster/map/osd_perf.h"

#include <cerrno>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace ec::cluster {
namespace {

constexpr double kMaxLatencyMs = 1e9;

Status Bad(std::string_view key, const std::string& what) {
  return Status::Error(EBADMSG, "bad osd perf at " + std::string(key) + ": " + what);
}

bool GetCount(const nlohmann::json& j, const char* name, std::int64_t max, std::int64_t* out) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_number_integer()) return false;
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(max)) return false;
    *out = static_cast<std::int64_t>(v);
    return true;
  }
  *out = it->get<std::int64_t>();
  return *out >= 0 && *out <= max;
}

bool GetLatency(const nlohmann::json& j, const char* name, double* out) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_number()) return false;
  *out = it->get<double>();
  return std::isfinite(*out) && *out >= 0 && *out <= kMaxLatencyMs;
}

}  // namespace

std::string OsdPerfKey(std::string_view prefix, int osd) {
  return std::string(prefix) + "osdperf/" + std::to_string(osd);
}

std::string EncodeOsdPerf(const OsdPerf& perf) {
  return nlohmann::json{{"v", 1},
                        {"osd", perf.osd},
                        {"stamp_ms", perf.stamp_ms},
                        {"commit_latency_ms", perf.commit_latency_ms},
                        {"apply_latency_ms", perf.apply_latency_ms},
                        {"ops", perf.ops}}
      .dump();
}

Result<OsdPerf> DecodeOsdPerf(std::string_view key, std::string_view value) {
  const nlohmann::json j = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Bad(key, "not a JSON object");
  for (const auto& [name, v] : j.items()) {
    (void)v;
    if (name != "v" && name != "osd" && name != "stamp_ms" && name != "commit_latency_ms" &&
        name != "apply_latency_ms" && name != "ops") {
      return Bad(key, "unknown field '" + name + "'");
    }
  }
  std::int64_t version = 0, osd = 0;
  if (!GetCount(j, "v", 1000, &version) || version != 1) return Bad(key, "version is not 1");
  OsdPerf p;
  if (!GetCount(j, "osd", std::numeric_limits<int>::max(), &osd)) return Bad(key, "bad 'osd'");
  p.osd = static_cast<int>(osd);
  if (!GetCount(j, "stamp_ms", std::numeric_limits<std::int64_t>::max(), &p.stamp_ms)) {
    return Bad(key, "bad 'stamp_ms'");
  }
  if (!GetCount(j, "ops", std::numeric_limits<std::int64_t>::max(), &p.ops)) {
    return Bad(key, "bad 'ops'");
  }
  if (!GetLatency(j, "commit_latency_ms", &p.commit_latency_ms)) {
    return Bad(key, "bad 'commit_latency_ms'");
  }
  if (!GetLatency(j, "apply_latency_ms", &p.apply_latency_ms)) {
    return Bad(key, "bad 'apply_latency_ms'");
  }
  return p;
}

Status PublishOsdPerf(const etcd::Client& client, std::string_view prefix, const OsdPerf& perf) {
  auto put = client.Put(etcd::PutRequest{OsdPerfKey(prefix, perf.osd), EncodeOsdPerf(perf), 0});
  return put.ok() ? Status::OK() : put.status();
}

Result<std::map<int, OsdPerf>> LoadOsdPerf(const etcd::Client& client, std::string_view prefix) {
  etcd::RangeRequest range;
  range.key = std::string(prefix) + "osdperf/";
  range.range_end = etcd::PrefixEnd(range.key);
  auto got = client.Range(range);
  if (!got.ok()) return got.status();
  std::map<int, OsdPerf> out;
  for (const etcd::KeyValue& kv : got->kvs) {
    auto p = DecodeOsdPerf(kv.key, kv.value);
    if (p.ok() && OsdPerfKey(prefix, p->osd) == kv.key) out[p->osd] = std::move(p).value();
  }
  return out;
}

double LatencyWindow::Next(std::uint64_t count, double sum_seconds, std::int64_t* ops_out) {
  if (count < count_ || sum_seconds < sum_) {
    count_ = 0;
    sum_ = 0;
  }
  const std::uint64_t ops = count - count_;
  const double sum = sum_seconds - sum_;
  count_ = count;
  sum_ = sum_seconds;
  if (ops_out != nullptr) *ops_out = static_cast<std::int64_t>(ops);
  if (ops == 0) return 0;
  return sum * 1000.0 / static_cast<double>(ops);
}

}  // namespace ec::cluster
