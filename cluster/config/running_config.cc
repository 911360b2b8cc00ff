#include "cluster/config/running_config.h"

#include <nlohmann/json.hpp>

#include "cluster/config/config_db.h"
#include "cluster/map/osd_reports.h"

namespace ec::cluster {
namespace {

constexpr std::int64_t kRunningConfigVersion = 1;
constexpr std::size_t kMaxOverrides = 4;

bool IsSource(const std::string& s) {
  return s == "default" || s == "file" || s == "mon" || s == "cmdline";
}

// A string field of at most kMaxConfigValueBytes; false when missing or anything else.
bool GetText(const nlohmann::json& j, const char* name, std::string* out) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_string()) return false;
  *out = it->get<std::string>();
  return out->size() <= kMaxConfigValueBytes;
}

}  // namespace

std::string RunningConfigKey(std::string_view prefix, int osd) {
  return std::string(prefix) + "running_config/" + std::to_string(osd);
}

nlohmann::json RunningOptionJson(const RunningOption& o) {
  nlohmann::json j = {{"name", o.name}, {"value", o.value}, {"source", o.source}};
  if (!o.overrides.empty()) {
    nlohmann::json overrides = nlohmann::json::array();
    for (const auto& [source, value] : o.overrides) {
      overrides.push_back({{"source", source}, {"value", value}});
    }
    j["overrides"] = std::move(overrides);
  }
  if (o.ignores_mon) j["ignores"] = "mon";
  return j;
}

std::string EncodeRunningConfig(const RunningConfig& config) {
  nlohmann::json options = nlohmann::json::array();
  for (const RunningOption& o : config.options) options.push_back(RunningOptionJson(o));
  return nlohmann::json{{"v", kRunningConfigVersion},
                        {"osd", config.osd},
                        {"stamp_ms", config.stamp_ms},
                        {"options", std::move(options)}}
      .dump();
}

Result<RunningConfig> DecodeRunningConfig(std::string_view key, std::string_view value) {
  const auto bad = [&](const std::string& why) {
    return Status::Error(EBADMSG, "bad running config at " + std::string(key) + ": " + why);
  };
  if (value.size() > kMaxRunningConfigBytes) {
    return bad("value of " + std::to_string(value.size()) + " bytes, more than " +
               std::to_string(kMaxRunningConfigBytes));
  }
  nlohmann::json j = nlohmann::json::parse(value, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (j.size() != 4) return bad("unknown field");
  std::int64_t version = 0, osd = 0;
  RunningConfig c;
  if (!osd_reports::GetCount(j, "v", &version) || version != kRunningConfigVersion) {
    return bad("unknown format");
  }
  if (!osd_reports::GetCount(j, "osd", &osd) || osd > INT32_MAX) return bad("osd");
  c.osd = static_cast<int>(osd);
  if (!osd_reports::GetCount(j, "stamp_ms", &c.stamp_ms)) return bad("stamp_ms");
  const auto options = j.find("options");
  if (options == j.end() || !options->is_array()) return bad("options");
  if (options->size() > kMaxRunningConfigOptions) {
    return bad("more than " + std::to_string(kMaxRunningConfigOptions) + " options");
  }
  for (const nlohmann::json& o : *options) {
    RunningOption r;
    if (!o.is_object() || !GetText(o, "name", &r.name) || r.name.empty()) {
      return bad("an option without a name");
    }
    const auto option_bad = [&](const std::string& what) { return bad(r.name + ": " + what); };
    if (!GetText(o, "value", &r.value)) return option_bad("value");
    if (!GetText(o, "source", &r.source) || !IsSource(r.source)) return option_bad("source");
    std::size_t fields = 3;
    if (const auto ov = o.find("overrides"); ov != o.end()) {
      ++fields;
      if (!ov->is_array() || ov->empty() || ov->size() > kMaxOverrides) {
        return option_bad("overrides");
      }
      for (const nlohmann::json& e : *ov) {
        std::string source, text;
        if (!e.is_object() || e.size() != 2 || !GetText(e, "source", &source) ||
            !IsSource(source) || !GetText(e, "value", &text)) {
          return option_bad("overrides");
        }
        r.overrides.emplace_back(std::move(source), std::move(text));
      }
    }
    if (const auto ig = o.find("ignores"); ig != o.end()) {
      ++fields;
      if (*ig != "mon") return option_bad("ignores");
      r.ignores_mon = true;
    }
    if (o.size() != fields) return option_bad("unknown field");
    c.options.push_back(std::move(r));
  }
  return c;
}

Status PublishRunningConfig(const etcd::Client& client, std::string_view prefix,
                            const RunningConfig& config) {
  return osd_reports::Put(client, RunningConfigKey(prefix, config.osd),
                          EncodeRunningConfig(config));
}

Result<RunningConfig> LoadRunningConfig(const etcd::Client& client, std::string_view prefix,
                                        int osd) {
  const std::string key = RunningConfigKey(prefix, osd);
  auto got = client.Get(key);
  if (!got.ok()) return got.status();
  Result<RunningConfig> c = DecodeRunningConfig(key, got->value);
  if (c.ok() && c->osd != osd) {
    return Status::Error(
        EBADMSG, "bad running config at " + key + ": it names osd." + std::to_string(c->osd));
  }
  return c;
}

}  // namespace ec::cluster
