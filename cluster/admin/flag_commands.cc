// osd set|unset FLAG: the cluster-wide OSD flags of the map (cluster_map.h kOsdFlags), with Ceph's
// messages. What honours each flag is listed beside kOsdFlags.
#include "cluster/admin/commands.h"

namespace ec::cluster::admin {
namespace {

std::string FlagNames() {
  std::string out;
  for (std::string_view f : kOsdFlags) out += (out.empty() ? "" : "|") + std::string(f);
  return out;
}

}  // namespace

CommandResult RunOsdFlagCommand(bool set, const Words& args, const AdminContext& ctx) {
  const std::string usage = UsageOf(set ? "osd set" : "osd unset");
  if (args.empty()) return UsageError("missing FLAG", usage);
  if (args.size() > 1) return UsageError("too many arguments", usage);
  const std::string& flag = args[0];
  if (!IsOsdFlag(flag)) {
    return ErrorResult(
        Status::Invalid("unknown flag '" + flag + "'; expected one of " + FlagNames()));
  }
  // Ceph answers the same whether or not the flag was already so; the map changes only if needed.
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    Plan plan;
    if (map.HasFlag(flag) != set) {
      plan.changes.push_back(set ? MapChange::SetFlag(flag) : MapChange::UnsetFlag(flag));
    }
    plan.err = flag + (set ? " is set" : " is unset");
    return plan;
  });
}

}  // namespace ec::cluster::admin
