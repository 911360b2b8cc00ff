#include "cluster/map/scrub_record.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <utility>
#include <vector>

namespace ec::cluster {

std::string_view ScrubKindName(ScrubKind kind) {
  switch (kind) {
    case ScrubKind::kScrub:
      return "scrub";
    case ScrubKind::kDeepScrub:
      return "deep-scrub";
    case ScrubKind::kRepair:
      return "repair";
  }
  return "unknown";
}

Result<ScrubKind> ParseScrubKind(std::string_view name) {
  for (ScrubKind k : {ScrubKind::kScrub, ScrubKind::kDeepScrub, ScrubKind::kRepair}) {
    if (name == ScrubKindName(k)) return k;
  }
  return Status::Invalid("unknown scrub kind '" + std::string(name) +
                         "' (scrub, deep-scrub, repair)");
}

std::string ScrubRequestPrefix(std::string_view prefix) {
  return std::string(prefix) + "scrub_requests/";
}
std::string ScrubResultPrefix(std::string_view prefix) {
  return std::string(prefix) + "scrub/";
}
std::string ScrubRequestKey(std::string_view prefix, std::string_view pgid) {
  return ScrubRequestPrefix(prefix) + std::string(pgid);
}
std::string ScrubResultKey(std::string_view prefix, std::string_view pgid) {
  return ScrubResultPrefix(prefix) + std::string(pgid);
}

std::optional<std::string> PgidOfKey(std::string_view key_prefix, std::string_view key) {
  if (key.size() <= key_prefix.size() || key.substr(0, key_prefix.size()) != key_prefix) {
    return std::nullopt;
  }
  const std::string_view pgid = key.substr(key_prefix.size());
  if (pgid.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(pgid);
}

namespace {

// A field failed: `what` names it for the message.
struct Bad {
  std::string what;
};

// Parses `text` as one JSON value, refusing a key repeated within one object (nlohmann keeps the
// last silently, which would let two writers' views pass as one).
std::optional<nlohmann::json> ParseStrict(std::string_view text) {
  std::vector<std::set<std::string>> open;  // the keys seen in each enclosing object
  bool repeated = false;
  auto cb = [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    switch (event) {
      case nlohmann::json::parse_event_t::object_start:
        open.emplace_back();
        break;
      case nlohmann::json::parse_event_t::object_end:
        if (!open.empty()) open.pop_back();
        break;
      case nlohmann::json::parse_event_t::key:
        if (!open.empty() && !open.back().insert(parsed.get<std::string>()).second) {
          repeated = true;
        }
        break;
      default:
        break;
    }
    return true;
  };
  nlohmann::json j = nlohmann::json::parse(text, cb, false);
  if (j.is_discarded() || repeated) return std::nullopt;
  return j;
}

// Exactly the fields `names` in the object `j`, by name; else the first one missing (or "unknown
// field").
std::optional<Bad> HasExactly(const nlohmann::json& j, std::initializer_list<const char*> names,
                              const std::string& where) {
  for (const char* n : names) {
    if (!j.contains(n)) return Bad{where + n};
  }
  if (j.size() != names.size()) return Bad{where + "unknown field"};
  return std::nullopt;
}

// An integer in [0, max] (nlohmann keeps integers above INT64_MAX unsigned, and 1.0 a float).
bool GetInt(const nlohmann::json& j, std::int64_t max, std::int64_t* out) {
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(max)) return false;
    *out = static_cast<std::int64_t>(v);
    return true;
  }
  if (!j.is_number_integer()) return false;
  *out = j.get<std::int64_t>();
  return *out >= 0 && *out <= max;
}

bool GetCount(const nlohmann::json& j, std::int64_t* out) {
  return GetInt(j, INT64_MAX, out);
}

bool GetSmall(const nlohmann::json& j, int* out) {
  std::int64_t v = 0;
  if (!GetInt(j, INT32_MAX, &v)) return false;
  *out = static_cast<int>(v);
  return true;
}

bool GetName(const nlohmann::json& j, std::string* out) {
  if (!j.is_string()) return false;
  *out = j.get<std::string>();
  return !out->empty();
}

bool GetNames(const nlohmann::json& j, std::vector<std::string>* out) {
  if (!j.is_array()) return false;
  out->clear();
  for (const nlohmann::json& e : j) {
    std::string name;
    if (!GetName(e, &name)) return false;
    out->push_back(std::move(name));
  }
  return true;
}

bool GetKind(const nlohmann::json& j, ScrubKind* out) {
  if (!j.is_string()) return false;
  auto k = ParseScrubKind(j.get_ref<const std::string&>());
  if (!k.ok()) return false;
  *out = *k;
  return true;
}

std::optional<Bad> DecodeShard(const nlohmann::json& j, const std::string& at, ShardScrubError* s) {
  if (!j.is_object()) return Bad{at + "not an object"};
  if (auto bad = HasExactly(j, {"osd", "primary", "shard", "errors", "size", "version"}, at)) {
    return bad;
  }
  if (!GetSmall(j["osd"], &s->osd)) return Bad{at + "osd"};
  if (!j["primary"].is_boolean()) return Bad{at + "primary"};
  s->primary = j["primary"].get<bool>();
  if (!GetSmall(j["shard"], &s->shard)) return Bad{at + "shard"};
  if (!GetNames(j["errors"], &s->errors)) return Bad{at + "errors"};
  if (!GetCount(j["size"], &s->size)) return Bad{at + "size"};
  if (!GetCount(j["version"], &s->version)) return Bad{at + "version"};
  return std::nullopt;
}

std::optional<Bad> DecodeObject(const nlohmann::json& j, const std::string& at,
                                InconsistentObject* o) {
  if (!j.is_object()) return Bad{at + "not an object"};
  if (auto bad = HasExactly(j, {"object", "errors", "union_shard_errors", "shards"}, at)) {
    return bad;
  }
  const nlohmann::json& id = j["object"];
  if (!id.is_object()) return Bad{at + "object"};
  if (auto bad = HasExactly(id, {"name", "version"}, at + "object ")) return bad;
  if (!GetName(id["name"], &o->name)) return Bad{at + "object name"};
  if (!GetCount(id["version"], &o->version)) return Bad{at + "object version"};
  if (!GetNames(j["errors"], &o->errors)) return Bad{at + "errors"};
  if (!GetNames(j["union_shard_errors"], &o->union_shard_errors)) {
    return Bad{at + "union_shard_errors"};
  }
  const nlohmann::json& shards = j["shards"];
  if (!shards.is_array()) return Bad{at + "shards"};
  o->shards.resize(shards.size());
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const std::string where = at + "shards[" + std::to_string(i) + "] ";
    if (auto bad = DecodeShard(shards[i], where, &o->shards[i])) return bad;
  }
  return std::nullopt;
}

nlohmann::json Names(const std::vector<std::string>& names) {
  nlohmann::json a = nlohmann::json::array();
  for (const std::string& n : names) a.push_back(n);
  return a;
}

}  // namespace

std::string EncodeScrubRequest(const ScrubRequest& request) {
  nlohmann::json j = {{"v", 1},
                      {"kind", std::string(ScrubKindName(request.kind))},
                      {"requested_ms", request.requested_ms}};
  return j.dump();
}

Result<ScrubRequest> DecodeScrubRequest(std::string_view key, std::string_view json) {
  const auto bad = [&](const std::string& why) {
    return Status::Error(EBADMSG, "bad scrub request at " + std::string(key) + ": " + why);
  };
  std::optional<nlohmann::json> parsed = ParseStrict(json);
  if (!parsed || !parsed->is_object()) return bad("not a JSON object");
  const nlohmann::json& j = *parsed;
  if (auto b = HasExactly(j, {"v", "kind", "requested_ms"}, "")) return bad(b->what);
  std::int64_t v = 0;
  if (!GetCount(j["v"], &v) || v != 1) return bad("v: unknown format");
  ScrubRequest r;
  if (!GetKind(j["kind"], &r.kind)) return bad("kind");
  if (!GetCount(j["requested_ms"], &r.requested_ms)) return bad("requested_ms");
  return r;
}

std::string EncodeScrubResult(const ScrubResult& result) {
  nlohmann::json objects = nlohmann::json::array();
  const std::size_t n = std::min(result.inconsistents.size(), kMaxInconsistentsRecorded);
  for (std::size_t i = 0; i < n; ++i) {
    const InconsistentObject& o = result.inconsistents[i];
    nlohmann::json shards = nlohmann::json::array();
    for (const ShardScrubError& s : o.shards) {
      shards.push_back({{"osd", s.osd},
                        {"primary", s.primary},
                        {"shard", s.shard},
                        {"errors", Names(s.errors)},
                        {"size", s.size},
                        {"version", s.version}});
    }
    objects.push_back({{"object", {{"name", o.name}, {"version", o.version}}},
                       {"errors", Names(o.errors)},
                       {"union_shard_errors", Names(o.union_shard_errors)},
                       {"shards", std::move(shards)}});
  }
  nlohmann::json j = {
      {"v", 1},
      {"pgid", result.pgid},
      {"osd", result.osd},
      {"epoch", result.epoch},
      {"kind", std::string(ScrubKindName(result.kind))},
      {"stamp_ms", result.stamp_ms},
      {"last_scrub_ms", result.last_scrub_ms},
      {"last_deep_scrub_ms", result.last_deep_scrub_ms},
      {"objects", result.objects},
      {"errors", result.errors},
      {"repaired", result.repaired},
      {"inconsistents", std::move(objects)},
      {"truncated", result.truncated || result.inconsistents.size() > kMaxInconsistentsRecorded},
  };
  return j.dump();
}

Result<ScrubResult> DecodeScrubResult(std::string_view key, std::string_view json) {
  const auto bad = [&](const std::string& why) {
    return Status::Error(EBADMSG, "bad scrub result at " + std::string(key) + ": " + why);
  };
  std::optional<nlohmann::json> parsed = ParseStrict(json);
  if (!parsed || !parsed->is_object()) return bad("not a JSON object");
  const nlohmann::json& j = *parsed;
  if (auto b = HasExactly(
          j,
          {"v", "pgid", "osd", "epoch", "kind", "stamp_ms", "last_scrub_ms", "last_deep_scrub_ms",
           "objects", "errors", "repaired", "inconsistents", "truncated"},
          "")) {
    return bad(b->what);
  }
  std::int64_t v = 0;
  if (!GetCount(j["v"], &v) || v != 1) return bad("v: unknown format");
  ScrubResult r;
  if (!GetName(j["pgid"], &r.pgid)) return bad("pgid");
  if (!GetSmall(j["osd"], &r.osd)) return bad("osd");
  if (!GetCount(j["epoch"], &r.epoch)) return bad("epoch");
  if (!GetKind(j["kind"], &r.kind)) return bad("kind");
  struct Count {
    const char* name;
    std::int64_t ScrubResult::*field;
  };
  for (const Count& c :
       {Count{"stamp_ms", &ScrubResult::stamp_ms},
        Count{"last_scrub_ms", &ScrubResult::last_scrub_ms},
        Count{"last_deep_scrub_ms", &ScrubResult::last_deep_scrub_ms},
        Count{"objects", &ScrubResult::objects}, Count{"errors", &ScrubResult::errors},
        Count{"repaired", &ScrubResult::repaired}}) {
    if (!GetCount(j[c.name], &(r.*c.field))) return bad(c.name);
  }
  const nlohmann::json& objects = j["inconsistents"];
  if (!objects.is_array()) return bad("inconsistents");
  if (objects.size() > kMaxInconsistentsRecorded) {
    return bad("inconsistents: more than " + std::to_string(kMaxInconsistentsRecorded));
  }
  r.inconsistents.resize(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const std::string at = "inconsistents[" + std::to_string(i) + "] ";
    if (auto b = DecodeObject(objects[i], at, &r.inconsistents[i])) return bad(b->what);
  }
  if (!j["truncated"].is_boolean()) return bad("truncated");
  r.truncated = j["truncated"].get<bool>();
  return r;
}

nlohmann::json ListInconsistentObjJson(const ScrubResult& result) {
  nlohmann::json objects = nlohmann::json::array();
  for (const InconsistentObject& o : result.inconsistents) {
    nlohmann::json shards = nlohmann::json::array();
    for (const ShardScrubError& s : o.shards) {
      shards.push_back({{"osd", s.osd},
                        {"primary", s.primary},
                        {"shard", s.shard},
                        {"errors", Names(s.errors)},
                        {"size", s.size}});
    }
    objects.push_back({{"object",
                        {{"name", o.name},
                         {"nspace", ""},
                         {"locator", ""},
                         {"snap", "head"},
                         {"version", o.version}}},
                       {"errors", Names(o.errors)},
                       {"union_shard_errors", Names(o.union_shard_errors)},
                       {"shards", std::move(shards)}});
  }
  return {{"epoch", result.epoch}, {"inconsistents", std::move(objects)}};
}

namespace {

Result<etcd::RangeResponse> RangeOf(const etcd::Client& client, const std::string& key_prefix) {
  etcd::RangeRequest range;
  range.key = key_prefix;
  range.range_end = etcd::PrefixEnd(key_prefix);
  return client.Range(range);
}

}  // namespace

Result<std::map<std::string, ScrubResult>> LoadScrubResults(const etcd::Client& client,
                                                            std::string_view prefix) {
  const std::string key_prefix = ScrubResultPrefix(prefix);
  auto got = RangeOf(client, key_prefix);
  if (!got.ok()) return got.status();
  std::map<std::string, ScrubResult> out;
  for (const etcd::KeyValue& kv : got->kvs) {
    std::optional<std::string> pgid = PgidOfKey(key_prefix, kv.key);
    if (!pgid) continue;
    auto r = DecodeScrubResult(kv.key, kv.value);
    if (r.ok() && r->pgid == *pgid) out[*pgid] = std::move(r).value();
  }
  return out;
}

Result<std::map<std::string, ScrubRequest>> LoadScrubRequests(const etcd::Client& client,
                                                              std::string_view prefix) {
  const std::string key_prefix = ScrubRequestPrefix(prefix);
  auto got = RangeOf(client, key_prefix);
  if (!got.ok()) return got.status();
  std::map<std::string, ScrubRequest> out;
  for (const etcd::KeyValue& kv : got->kvs) {
    std::optional<std::string> pgid = PgidOfKey(key_prefix, kv.key);
    if (!pgid) continue;
    auto r = DecodeScrubRequest(kv.key, kv.value);
    if (r.ok()) out[*pgid] = std::move(r).value();
  }
  return out;
}

}  // namespace ec::cluster
