#include "cluster/config/config_db.h"

#include <fmt/format.h>

namespace ec::cluster {

std::string ConfigDir(std::string_view prefix) {
  return std::string(prefix) + "config/";
}

std::string ConfigKey(std::string_view prefix, std::string_view who, std::string_view name) {
  return fmt::format("{}{}/{}", ConfigDir(prefix), who, name);
}

ConfigDb DecodeConfigDb(std::string_view prefix, const std::vector<etcd::KeyValue>& kvs,
                        std::int64_t revision) {
  const std::string dir = ConfigDir(prefix);
  ConfigDb db;
  db.revision = revision;
  for (const etcd::KeyValue& kv : kvs) {
    if (kv.key.compare(0, dir.size(), dir) != 0) continue;
    const std::string_view rest = std::string_view(kv.key).substr(dir.size());
    const std::size_t slash = rest.find('/');
    const auto bad = [&](const std::string& why) { db.bad.push_back(kv.key + ": " + why); };
    if (slash == std::string_view::npos || slash + 1 == rest.size()) {
      bad("not config/<who>/<name>");
    } else if (!IsConfigSection(rest.substr(0, slash))) {
      bad("unrecognized config target '" + std::string(rest.substr(0, slash)) + "'");
    } else if (rest.find('/', slash + 1) != std::string_view::npos) {
      bad("not config/<who>/<name>");
    } else if (kv.value.size() > kMaxConfigValueBytes) {
      bad(fmt::format("value of {} bytes, more than {}", kv.value.size(), kMaxConfigValueBytes));
    } else {
      db.settings.push_back(MonSetting{std::string(rest.substr(0, slash)),
                                       std::string(rest.substr(slash + 1)), kv.value});
    }
  }
  return db;
}

Result<ConfigDb> LoadConfigDb(const etcd::Client& client, std::string_view prefix) {
  etcd::RangeRequest range;
  range.key = ConfigDir(prefix);
  range.range_end = etcd::PrefixEnd(range.key);
  auto got = client.Range(range);
  if (!got.ok()) return got.status();
  return DecodeConfigDb(prefix, got->kvs, got->revision);
}

Result<const OptionSpec*> CheckConfigSet(std::string_view who, std::string_view name,
                                         std::string_view value) {
  if (!IsConfigSection(who)) {
    return Status::Invalid(
        fmt::format("unrecognized config target '{}' (global, osd or osd.N)", who));
  }
  const OptionSpec* spec = FindOsdOption(name);
  if (spec == nullptr) {
    return Status::Invalid(
        fmt::format("unrecognized config option '{}'", NormaliseOptionName(name)));
  }
  if (spec->update == OptionUpdate::kFileOnly) {
    return Status::Invalid(fmt::format(
        "{} is special and cannot be stored by the mon: set it in ecstore.conf", spec->name));
  }
  if (value.size() > kMaxConfigValueBytes) {
    return Status::Invalid(fmt::format("error parsing value: {} bytes, more than {}", value.size(),
                                       kMaxConfigValueBytes));
  }
  if (Status st = CheckOptionValue(*spec, value); !st.ok()) {
    return Status::Invalid(
        fmt::format("error parsing value: '{}' for {}: {}", value, spec->name, st.message()));
  }
  return spec;
}

Status PutConfig(const etcd::Client& client, std::string_view prefix, std::string_view who,
                 std::string_view name, std::string_view value) {
  etcd::PutRequest put;
  put.key = ConfigKey(prefix, who, name);
  put.value = std::string(value);
  auto r = client.Put(put);
  return r.ok() ? Status::OK() : r.status();
}

Status DeleteConfig(const etcd::Client& client, std::string_view prefix, std::string_view who,
                    std::string_view name, bool* existed) {
  auto r = client.DeleteRange(etcd::DeleteRequest{ConfigKey(prefix, who, name), ""});
  if (!r.ok()) return r.status();
  if (existed != nullptr) *existed = r->deleted > 0;
  return Status::OK();
}

}  // namespace ec::cluster
