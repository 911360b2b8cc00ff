// The cluster's central config in etcd (Ceph's configuration database: `ceph config set|get|rm|
// dump`; `ec-admin config ...`), one key per setting:
//
//   <prefix>config/<who>/<name>   the value as text, as a line of ecstore.conf would give it
//
// `who` is "global", "osd" or "osd.N" (the sections of ecstore.conf; Ceph's "who"), `name` an
// option's canonical name (common/config.h OsdOptionTable). A daemon resolves its options from
// these settings, the file and its command line (common/config.h: osd.N over osd over global,
// all above the file); what it does with a change is the option's OptionUpdate.
//
// Writing: CheckConfigSet validates as Ceph's monitor does before PutConfig; DeleteConfig removes
// one setting (absent: nothing to do). Reading: LoadConfigDb reads every setting in one Range at
// one revision. A key under config/ that is not <who>/<name> with a known who, or a value longer
// than kMaxConfigValueBytes, is not a setting: it is listed in ConfigDb::bad (readers show or log
// it, never fail on it). An unknown option name or a value that does not parse is still a setting
// (ec-admin shows what is stored; the daemon ignores and logs it: common/config.h mon_ignored).
//
// Thread safety: pure functions, and calls on a thread-safe etcd::Client.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_types.h"
#include "common/config.h"
#include "common/status.h"

namespace ec::cluster {

// The longest value stored or read (a config file's values are short; this bounds a bad one).
inline constexpr std::size_t kMaxConfigValueBytes = 4096;

// <prefix>config/ and <prefix>config/<who>/<name>.
std::string ConfigDir(std::string_view prefix);
std::string ConfigKey(std::string_view prefix, std::string_view who, std::string_view name);

struct ConfigDb {
  std::vector<MonSetting> settings;  // in key order
  std::vector<std::string> bad;      // "<key>: <why>" of each key that is not a setting
  std::int64_t revision = 0;         // the store's revision of the read
};

// The settings of a Range over ConfigDir(prefix) (keys outside it are ignored).
ConfigDb DecodeConfigDb(std::string_view prefix, const std::vector<etcd::KeyValue>& kvs,
                        std::int64_t revision);
// Errors: etcd's.
Result<ConfigDb> LoadConfigDb(const etcd::Client& client, std::string_view prefix);

// Checks `config set WHO NAME VALUE` as Ceph's monitor does and returns the option's row.
// Errors, all EINVAL: "unrecognized config target 'x' (global, osd or osd.N)";
// "unrecognized config option 'x'"; "NAME is special and cannot be stored by the mon: set it
// in ecstore.conf" (OptionUpdate::kFileOnly); "error parsing value: '<v>' for NAME: <why>";
// a value over kMaxConfigValueBytes.
Result<const OptionSpec*> CheckConfigSet(std::string_view who, std::string_view name,
                                         std::string_view value);

// Stores one setting (`name` canonical, `value` trimmed by the caller). Errors: etcd's.
Status PutConfig(const etcd::Client& client, std::string_view prefix, std::string_view who,
                 std::string_view name, std::string_view value);
// Removes one setting; *existed tells whether it was there. Errors: etcd's.
Status DeleteConfig(const etcd::Client& client, std::string_view prefix, std::string_view who,
                    std::string_view name, bool* existed = nullptr);

}  // namespace ec::cluster
