#include "cluster/liveness/liveness_keys.h"

#include <cerrno>
#include <limits>
#include <nlohmann/json.hpp>

namespace ec::cluster {
namespace {

using nlohmann::json;

Status Bad(std::string_view key, const std::string& what) {
  return Status::Error(EBADMSG, "cluster key '" + std::string(key) + "': " + what);
}

// Parses `value` as a JSON object with exactly `fields` (and "v": 1).
Result<json> ParseObject(std::string_view key, const std::string& value,
                         std::initializer_list<const char*> fields) {
  json j = json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Bad(key, "value is not a JSON object");
  for (const auto& [name, v] : j.items()) {
    (void)v;
    bool known = name == "v";
    for (const char* f : fields) known = known || name == f;
    if (!known) return Bad(key, "unknown field '" + name + "'");
  }
  auto v = j.find("v");
  if (v == j.end() || !v->is_number_integer() || v->get<std::int64_t>() != 1)
    return Bad(key, "missing or unsupported format field 'v' (expected 1)");
  for (const char* f : fields)
    if (!j.contains(f)) return Bad(key, std::string("missing field '") + f + "'");
  return j;
}

Status Int(std::string_view key, const json& j, const char* name, std::int64_t lo, std::int64_t hi,
           std::int64_t* out) {
  const json& f = j.at(name);
  if (!f.is_number_integer())
    return Bad(key, std::string("field '") + name + "' is not an integer");
  if (f.is_number_unsigned() &&
      f.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return Bad(key, std::string("field '") + name + "' is out of range");
  const std::int64_t v = f.get<std::int64_t>();
  if (v < lo || v > hi) return Bad(key, std::string("field '") + name + "' is out of range");
  *out = v;
  return Status::OK();
}

Status Str(std::string_view key, const json& j, const char* name, std::string* out) {
  const json& f = j.at(name);
  if (!f.is_string()) return Bad(key, std::string("field '") + name + "' is not a string");
  *out = f.get<std::string>();
  return Status::OK();
}

constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();

// A decimal OSD id as keys spell it: digits only, no leading zero (but "0"), at most INT_MAX.
bool ParseKeyId(std::string_view text, int* out) {
  if (text.empty() || text.size() > 10 || (text.size() > 1 && text[0] == '0')) return false;
  std::int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > std::numeric_limits<int>::max()) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

std::string AliveKey(std::string_view prefix, int osd_id) {
  return AlivePrefix(prefix) + std::to_string(osd_id);
}
std::string AlivePrefix(std::string_view prefix) {
  return std::string(prefix) + "alive/";
}
std::string LeaderKey(std::string_view prefix) {
  return std::string(prefix) + "mon/leader";
}

std::string EncodeAlive(const AliveValue& v) {
  return json{{"v", 1}, {"id", v.id}, {"uuid", v.uuid}, {"addr", v.addr}, {"pid", v.pid}}.dump();
}

Result<AliveValue> DecodeAlive(std::string_view key, const std::string& value) {
  auto j = ParseObject(key, value, {"id", "uuid", "addr", "pid"});
  if (!j.ok()) return j.status();
  AliveValue v;
  std::int64_t id = 0;
  EC_RETURN_IF_ERROR(Int(key, *j, "id", 0, std::numeric_limits<int>::max(), &id));
  v.id = static_cast<int>(id);
  EC_RETURN_IF_ERROR(Str(key, *j, "uuid", &v.uuid));
  EC_RETURN_IF_ERROR(Str(key, *j, "addr", &v.addr));
  EC_RETURN_IF_ERROR(Int(key, *j, "pid", 0, kMaxInt64, &v.pid));
  return v;
}

std::string EncodeLeader(const LeaderValue& v) {
  return json{{"v", 1}, {"name", v.name}, {"since_ms", v.since_ms}}.dump();
}

Result<LeaderValue> DecodeLeader(std::string_view key, const std::string& value) {
  auto j = ParseObject(key, value, {"name", "since_ms"});
  if (!j.ok()) return j.status();
  LeaderValue v;
  EC_RETURN_IF_ERROR(Str(key, *j, "name", &v.name));
  EC_RETURN_IF_ERROR(Int(key, *j, "since_ms", 0, kMaxInt64, &v.since_ms));
  return v;
}

std::string FailurePrefix(std::string_view prefix) {
  return std::string(prefix) + "failure/";
}
std::string FailureKey(std::string_view prefix, int target, int reporter) {
  return FailurePrefix(prefix) + std::to_string(target) + "/" + std::to_string(reporter);
}

std::string EncodeFailure(const FailureReport& r) {
  return json{{"v", 1},
              {"target", r.target},
              {"reporter", r.reporter},
              {"target_up_stamp_ms", r.target_up_stamp_ms},
              {"failed_since_ms", r.failed_since_ms},
              {"stamp_ms", r.stamp_ms}}
      .dump();
}

Result<FailureReport> DecodeFailure(std::string_view prefix, std::string_view key,
                                    const std::string& value) {
  const std::string head = FailurePrefix(prefix);
  if (key.size() <= head.size() || key.compare(0, head.size(), head) != 0)
    return Bad(key, "not a failure report key");
  const std::string_view ids = key.substr(head.size());
  const std::size_t slash = ids.find('/');
  FailureReport r;
  if (slash == std::string_view::npos || !ParseKeyId(ids.substr(0, slash), &r.target) ||
      !ParseKeyId(ids.substr(slash + 1), &r.reporter))
    return Bad(key, "a failure report key ends in <target>/<reporter> (decimal osd ids)");
  if (value.size() > kMaxFailureValueBytes)
    return Bad(key, "value of " + std::to_string(value.size()) + " bytes, above the " +
                        std::to_string(kMaxFailureValueBytes) + " a failure report may have");
  auto j = ParseObject(key, value,
                       {"target", "reporter", "target_up_stamp_ms", "failed_since_ms", "stamp_ms"});
  if (!j.ok()) return j.status();
  std::int64_t target = 0, reporter = 0;
  EC_RETURN_IF_ERROR(Int(key, *j, "target", 0, std::numeric_limits<int>::max(), &target));
  EC_RETURN_IF_ERROR(Int(key, *j, "reporter", 0, std::numeric_limits<int>::max(), &reporter));
  if (target != r.target || reporter != r.reporter)
    return Bad(key, "the value names osd." + std::to_string(target) + " reported by osd." +
                        std::to_string(reporter) + ", not the key's");
  EC_RETURN_IF_ERROR(Int(key, *j, "target_up_stamp_ms", 0, kMaxInt64, &r.target_up_stamp_ms));
  EC_RETURN_IF_ERROR(Int(key, *j, "failed_since_ms", 0, kMaxInt64, &r.failed_since_ms));
  EC_RETURN_IF_ERROR(Int(key, *j, "stamp_ms", 0, kMaxInt64, &r.stamp_ms));
  return r;
}

std::int64_t WallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t LeaseTtlSeconds(std::chrono::milliseconds grace) {
  const std::int64_t s = (grace.count() + 999) / 1000;
  return s < 2 ? 2 : s;
}

}  // namespace ec::cluster
