#include "tools/ec_tool/decode_command.h"

#include <vector>

#include "recovery/file_shard_source.h"
#include "recovery/repair_engine.h"
#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/file_io.h"

namespace ec::tools::ec_tool {

ec::Status RunDecode(const DecodeRequest& request) {
  ec::Result<LoadedCode> loaded = LoadCode(request.profile, request.plugin_dir);
  if (!loaded.ok()) return loaded.status();
  ec::Result<ec::StripeLayout> layout = MakeStripeLayout(*loaded->code, request.stripe_unit);
  if (!layout.ok()) return layout.status();
  ec::Result<ec::ShardSet> available =
      ParseShardList(request.available_shards, layout->chunk_count());
  if (!available.ok()) return available.status();

  ec::recovery::RepairRequest want;
  want.want = ec::ShardSet(layout->data_ids().begin(), layout->data_ids().end());
  for (int id : *available) want.available[id] = 1;
  const ec::recovery::RepairEngine engine(loaded->code, *layout);
  ec::Result<ec::recovery::RepairPlan> plan = engine.Plan(want);
  if (!plan.ok()) {
    return plan.status().WithPrefix("cannot decode from shards " +
                                    ec::recovery::JoinShards(*available));
  }
  ec::Result<std::uint64_t> stripes = CheckShardSizes(request.fname, *available, *layout);
  if (!stripes.ok()) return stripes.status();
  want.stripes = *stripes;

  ec::Result<AtomicFile> output = AtomicFile::Create(request.fname);
  if (!output.ok()) return output.status();
  // The object is the data chunks of each stripe in data piece order: one gather write per batch.
  const std::size_t c = layout->chunk_size();
  std::vector<iovec> iov;
  ec::recovery::FileShardSource source(request.fname);
  ec::Status s = engine.Run(want, source, [&](const ec::recovery::RebuiltBytes& batch) {
    const std::size_t count = static_cast<std::size_t>(batch.length / c);
    iov.clear();
    for (std::size_t st = 0; st < count; ++st) {
      for (int id : layout->data_ids()) {
        iov.push_back({const_cast<std::byte*>(batch.shards.at(id).data() + st * c), c});
      }
    }
    return output->WriteGather(iov);
  });
  if (!s.ok()) return s;
  return output->Commit(request.sync);
}

}  // namespace ec::tools::ec_tool
