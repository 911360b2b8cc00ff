// The configuration a running ec-osd uses, as it reports it for `ec-admin config show osd.N`
// (Ceph's daemons report theirs to the manager). Not part of the map: each OSD overwrites its
// own key when it starts and after each change it takes from the cluster's config.
//
//   <prefix>running_config/<osd id>
//     {"v":1,"osd":3,"stamp_ms":...,
//      "options":[{"name":"osd_max_backfills","value":"4","source":"mon",
//                  "overrides":[{"source":"file","value":"2"}]},
//                 {"name":"osd_op_num_threads","value":"8","source":"default",
//                  "overrides":[{"source":"mon","value":"4"}],"ignores":"mon"}, ...]}
//
// One entry per option of the daemon's table, in its order: the value in force, its source
// (Ceph's names: "default", "file", "mon", "cmdline"), the other sources that set it too
// ("overrides", lowest first, omitted when none) and "ignores":"mon" when the cluster's config
// holds a value the daemon does not use: a restart-only option changed since the daemon started
// (that value is among the overrides as "mon"; it applies at the next start).
//
// Decoding is strict and bounded: the value at most kMaxRunningConfigBytes, exactly these fields,
// at most kMaxRunningConfigOptions options of non-empty names, sources from the four above, at
// most 4 overrides each, every string at most kMaxConfigValueBytes; anything else is EBADMSG
// naming the key.
//
// Thread safety: pure functions, and calls on a thread-safe etcd::Client.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::cluster {

inline constexpr std::size_t kMaxRunningConfigBytes = 256 * 1024;
inline constexpr std::size_t kMaxRunningConfigOptions = 1024;

struct RunningOption {
  std::string name;
  std::string value;
  std::string source;  // "default", "file", "mon", "cmdline"
  std::vector<std::pair<std::string, std::string>> overrides;  // {source, value}, lowest first
  bool ignores_mon = false;
  bool operator==(const RunningOption&) const = default;
};

struct RunningConfig {
  int osd = 0;
  std::int64_t stamp_ms = 0;  // wall clock when it was made
  std::vector<RunningOption> options;
  bool operator==(const RunningConfig&) const = default;
};

std::string RunningConfigKey(std::string_view prefix, int osd);
// One option as the report writes it (and `ec-admin config show --format json` prints it, as
// Ceph's manager): {"name","value","source"[,"overrides":[{"source","value"}]][,"ignores":"mon"]}.
nlohmann::json RunningOptionJson(const RunningOption& option);
std::string EncodeRunningConfig(const RunningConfig& config);
// Errors: EBADMSG "bad running config at <key>: <why>".
Result<RunningConfig> DecodeRunningConfig(std::string_view key, std::string_view value);

// Errors: etcd's.
Status PublishRunningConfig(const etcd::Client& client, std::string_view prefix,
                            const RunningConfig& config);
// OSD `osd`'s report. Errors: ENOENT when it has none; EBADMSG (above); etcd's.
Result<RunningConfig> LoadRunningConfig(const etcd::Client& client, std::string_view prefix,
                                        int osd);

}  // namespace ec::cluster
