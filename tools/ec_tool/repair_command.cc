#include "tools/ec_tool/repair_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "ec/buffer.h"
#include "recovery/read_plan.h"
#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/extent_reader.h"
#include "tools/ec_tool/file_io.h"
#include "tools/ec_tool/stripe_batch.h"

namespace ectool {

namespace {

// An open helper file (closed on destruction).
struct Helper {
  int shard = 0;
  std::string path;
  int fd = -1;
  ec::Buffer region;  // this batch's bytes of the helper, stripe after stripe
  std::uint64_t bytes_per_stripe = 0;
  Helper() = default;
  Helper(const Helper&) = delete;
  Helper& operator=(const Helper&) = delete;
  ~Helper() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

ec::Status RunRepair(const RepairRequest& request, std::ostream& out) {
  ec::Result<LoadedCode> loaded = LoadCode(request.profile, request.plugin_dir);
  if (!loaded.ok()) return loaded.status();
  const ec::ErasureCodeInterface& code = *loaded->code;
  ec::Result<StripeLayout> layout = MakeStripeLayout(code, request.stripe_unit);
  if (!layout.ok()) return layout.status();
  ec::Result<ec::ShardSet> lost_set = ParseShardList(request.lost_shard, layout->chunk_count);
  if (!lost_set.ok()) return lost_set.status().WithPrefix("invalid lost shard");
  if (lost_set->size() != 1) {
    return ec::Status::Invalid("invalid lost shard '" + request.lost_shard +
                               "': repair rebuilds exactly one shard");
  }
  const int lost = *lost_set->begin();
  const std::size_t chunk_size = layout->stripe_unit;
  const unsigned sub_chunks = code.get_sub_chunk_count();

  // The shard files that exist are what the plan may use.
  ec::ShardSet available;
  std::string missing_names;
  for (unsigned i = 0; i < layout->chunk_count; ++i) {
    if (static_cast<int>(i) == lost) continue;
    const std::string name = request.fname + "." + std::to_string(i);
    struct stat st {};
    if (::stat(name.c_str(), &st) == 0) {
      available.insert(static_cast<int>(i));
    } else {
      missing_names += (missing_names.empty() ? "" : ", ") + name;
    }
  }
  ec::Result<ec::SubChunkPlan> plan = code.minimum_to_decode({lost}, available);
  if (!plan.ok()) {
    return plan.status().WithPrefix("cannot repair shard " + std::to_string(lost) +
                                    " (missing helper files: " + missing_names + ")");
  }
  ec::ShardSet helpers_ids;
  for (const auto& [id, ranges] : *plan) helpers_ids.insert(id);
  ec::Result<std::uint64_t> stripes = CheckShardSizes(request.fname, helpers_ids, chunk_size);
  if (!stripes.ok()) return stripes.status();

  // Open every helper once; allocate one region per helper for a batch of stripes.
  const std::size_t batch = StripesPerBatch(layout->stripe_width, *stripes);
  ec::Result<std::vector<ec::recovery::ShardRead>> per_stripe =
      ec::recovery::PlanShardReads(*plan, chunk_size, sub_chunks, 0, 1);
  if (!per_stripe.ok()) return per_stripe.status();
  std::vector<std::unique_ptr<Helper>> helpers;
  for (const auto& r : *per_stripe) {
    auto h = std::make_unique<Helper>();
    h->shard = r.shard;
    h->path = request.fname + "." + std::to_string(r.shard);
    h->fd = ::open(h->path.c_str(), O_RDONLY | O_CLOEXEC);
    if (h->fd < 0) {
      return ec::Status::Error(errno, "failed to read " + h->path + ": " + std::strerror(errno));
    }
    h->bytes_per_stripe = r.bytes_per_stripe;
    h->region = ec::Buffer::Allocate(batch * r.bytes_per_stripe, false);
    helpers.push_back(std::move(h));
  }

  ec::Result<AtomicFile> output = AtomicFile::Create(request.fname + "." + std::to_string(lost));
  if (!output.ok()) return output.status();
  ec::Buffer rebuilt = ec::Buffer::Allocate(batch * chunk_size, false);

  ExtentReader reader;
  std::uint64_t bytes_read = 0, read_ops = 0;
  for (std::uint64_t first = 0; first < *stripes; first += batch) {
    const std::size_t count =
        static_cast<std::size_t>(std::min<std::uint64_t>(batch, *stripes - first));
    ec::Result<std::vector<ec::recovery::ShardRead>> reads =
        ec::recovery::PlanShardReads(*plan, chunk_size, sub_chunks, first, count);
    if (!reads.ok()) return reads.status();
    std::vector<ExtentRead> requests;
    for (std::size_t i = 0; i < helpers.size(); ++i) {
      requests.push_back(
          {helpers[i]->fd, &helpers[i]->path, &(*reads)[i].extents, helpers[i]->region.data()});
      read_ops += (*reads)[i].extents.size();
      for (const auto& e : (*reads)[i].extents) bytes_read += e.length;
    }
    EC_RETURN_IF_ERROR(reader.ReadAll(requests));
    for (std::size_t s = 0; s < count; ++s) {
      ec::ChunkMap in;
      for (const auto& h : helpers) {
        in[h->shard] = h->region.Slice(s * h->bytes_per_stripe, h->bytes_per_stripe);
      }
      ec::ChunkMap decoded;
      ec::Status st = code.decode({lost}, in, &decoded, chunk_size);
      if (!st.ok()) return st.WithPrefix("failed to decode");
      auto it = decoded.find(lost);
      if (it == decoded.end() || it->second.size() != chunk_size) {
        return ec::Status::IOError("failed to decode: the plugin did not rebuild shard " +
                                   std::to_string(lost));
      }
      std::memcpy(rebuilt.data() + s * chunk_size, it->second.data(), chunk_size);
    }
    EC_RETURN_IF_ERROR(output->Write({rebuilt.data(), count * chunk_size}));
  }
  EC_RETURN_IF_ERROR(output->Commit(request.sync));

  nlohmann::json line;
  line["shard"] = lost;
  line["helpers"] = std::vector<int>(helpers_ids.begin(), helpers_ids.end());
  line["stripes"] = *stripes;
  line["chunk_size"] = chunk_size;
  line["sub_chunk_count"] = sub_chunks;
  line["bytes_read"] = bytes_read;
  line["read_ops"] = read_ops;
  out << line.dump() << std::endl;
  return ec::Status::OK();
}

}  // namespace ectool
