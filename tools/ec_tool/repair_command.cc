#include "tools/ec_tool/repair_command.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "recovery/file_shard_source.h"
#include "recovery/repair_engine.h"
#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/file_io.h"

namespace ec::tools::ec_tool {

namespace {

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

ec::Status RunRepair(const RepairRequest& request, std::ostream& out) {
  ec::Result<LoadedCode> loaded = LoadCode(request.profile, request.plugin_dir);
  if (!loaded.ok()) return loaded.status();
  const ec::ErasureCodeInterface& code = *loaded->code;
  ec::Result<ec::StripeLayout> layout = MakeStripeLayout(code, request.stripe_unit);
  if (!layout.ok()) return layout.status();
  ec::Result<ec::ShardSet> lost_set = ParseShardList(request.lost_shard, layout->chunk_count());
  if (!lost_set.ok()) return lost_set.status().WithPrefix("invalid lost shard");
  if (lost_set->size() != 1) {
    return ec::Status::Invalid("invalid lost shard '" + request.lost_shard +
                               "': repair rebuilds exactly one shard");
  }
  const int lost = *lost_set->begin();

  // A shard file past the profile's last chunk id means the files come from a wider code.
  const std::string extra = request.fname + "." + std::to_string(layout->chunk_count());
  if (Exists(extra)) {
    return ec::Status::Invalid("shard file " + extra + " exists but this profile has " +
                               std::to_string(layout->chunk_count()) + " shards (0.." +
                               std::to_string(layout->chunk_count() - 1) +
                               "): the shard files were written with another profile");
  }
  // The shard files that exist are what the plan may use.
  ec::recovery::RepairRequest want;
  want.want = {lost};
  std::string missing_names;
  for (unsigned i = 0; i < layout->chunk_count(); ++i) {
    if (static_cast<int>(i) == lost) continue;
    const std::string name = request.fname + "." + std::to_string(i);
    if (Exists(name)) {
      want.available[static_cast<int>(i)] = 1;
    } else {
      missing_names += (missing_names.empty() ? "" : ", ") + name;
    }
  }
  const ec::recovery::RepairEngine engine(loaded->code, *layout);
  ec::Result<ec::recovery::RepairPlan> plan = engine.Plan(want);
  if (!plan.ok()) {
    return plan.status().WithPrefix("cannot repair shard " + std::to_string(lost) +
                                    " (missing helper files: " + missing_names + ")");
  }
  ec::ShardSet present;
  for (const auto& [id, cost] : want.available) present.insert(id);
  ec::Result<std::uint64_t> stripes = CheckShardSizes(request.fname, present, *layout);
  if (!stripes.ok()) return stripes.status();
  want.stripes = *stripes;

  ec::Result<AtomicFile> output = AtomicFile::Create(request.fname + "." + std::to_string(lost));
  if (!output.ok()) return output.status();
  ec::recovery::FileShardSource source(request.fname);
  ec::recovery::RepairStats stats;
  ec::Status s = engine.Run(
      want, source,
      [&](const ec::recovery::RebuiltBytes& batch) { return output->Write(batch.shards.at(lost)); },
      &stats);
  if (!s.ok()) return s;
  EC_RETURN_IF_ERROR(output->Commit(request.sync));

  const ec::ShardSet helpers = stats.helpers_read();
  nlohmann::json line;
  line["shard"] = lost;
  line["helpers"] = std::vector<int>(helpers.begin(), helpers.end());
  line["stripes"] = *stripes;
  line["chunk_size"] = layout->chunk_size();
  line["sub_chunk_count"] = layout->sub_chunk_count();
  line["bytes_read"] = stats.bytes_read();
  line["read_ops"] = stats.extents();
  out << line.dump() << std::endl;
  return ec::Status::OK();
}

}  // namespace ec::tools::ec_tool
