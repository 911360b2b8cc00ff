#include "tools/ec_tool/decode_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <vector>

#include "ec/buffer.h"
#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/file_io.h"
#include "tools/ec_tool/stripe_batch.h"

namespace ectool {

namespace {

std::string JoinIds(const ec::ShardSet& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

class Decoder {
 public:
  Decoder(const ec::ErasureCodeInterface& code, const StripeLayout& layout)
      : code_(code), layout_(layout) {}

  // `read` are the chunk ids to read (from minimum_to_decode); data chunks not among them are
  // rebuilt.
  ec::Status Run(const std::string& fname, const ec::ShardSet& read, std::uint64_t stripes,
                 bool sync) {
    const std::size_t su = layout_.stripe_unit;
    const std::size_t batch = StripesPerBatch(layout_.stripe_width, stripes);
    const ec::ShardSet want(layout_.data_ids.begin(), layout_.data_ids.end());
    ec::ShardSet missing;
    for (int id : want)
      if (!read.count(id)) missing.insert(id);

    // One region per chunk id: shard bytes of the batch, chunk of stripe s at s*su.
    std::map<int, ec::Buffer> regions;
    std::vector<std::pair<InputFile, std::byte*>> sources;
    for (int id : read) {
      ec::Result<InputFile> file = InputFile::Open(fname + "." + std::to_string(id));
      if (!file.ok()) return file.status();
      regions[id] = ec::Buffer::Allocate(batch * su, false);
      sources.emplace_back(std::move(file.value()), regions[id].data());
    }
    for (int id : missing) regions[id] = ec::Buffer::Allocate(batch * su, false);

    ec::ConstChunkSpans in;
    ec::ChunkSpans out;
    std::vector<std::pair<std::span<const std::byte>*, std::byte*>> in_slots;
    std::vector<std::pair<std::span<std::byte>*, std::byte*>> out_slots;
    for (int id : read) in_slots.emplace_back(&in[id], regions[id].data());
    for (int id : missing) out_slots.emplace_back(&out[id], regions[id].data());
    std::vector<iovec> iov(batch * layout_.k);

    ec::Result<AtomicFile> output = AtomicFile::Create(fname);
    if (!output.ok()) return output.status();

    for (std::uint64_t first = 0; first < stripes; first += batch) {
      const std::size_t count =
          static_cast<std::size_t>(std::min<std::uint64_t>(batch, stripes - first));
      for (auto& [file, region] : sources) {
        ec::Result<std::size_t> got = file.Read({region, count * su});
        if (!got.ok()) return got.status();
        if (*got != count * su) {
          return ec::Status::IOError("failed to read " + file.path() +
                                     ": the file shrank while it was read");
        }
      }
      if (!missing.empty()) {
        for (std::size_t s = 0; s < count; ++s) {
          for (auto& [slot, base] : in_slots) *slot = {base + s * su, su};
          for (auto& [slot, base] : out_slots) *slot = {base + s * su, su};
          ec::Status st = code_.decode_chunks(want, in, out);
          if (!st.ok()) return st.WithPrefix("failed to decode");
        }
      }
      std::size_t n = 0;
      for (std::size_t s = 0; s < count; ++s) {
        for (int id : layout_.data_ids) iov[n++] = {regions[id].data() + s * su, su};
      }
      EC_RETURN_IF_ERROR(output->WriteGather({iov.data(), n}));
    }
    return output->Commit(sync);
  }

 private:
  const ec::ErasureCodeInterface& code_;
  const StripeLayout& layout_;
};

}  // namespace

ec::Status RunDecode(const DecodeRequest& request) {
  ec::Result<LoadedCode> loaded = LoadCode(request.profile, request.plugin_dir);
  if (!loaded.ok()) return loaded.status();
  const ec::ErasureCodeInterface& code = *loaded->code;
  ec::Result<StripeLayout> layout = MakeStripeLayout(code, request.stripe_unit);
  if (!layout.ok()) return layout.status();
  ec::Result<ec::ShardSet> available =
      ParseShardList(request.available_shards, layout->chunk_count);
  if (!available.ok()) return available.status();

  const ec::ShardSet want(layout->data_ids.begin(), layout->data_ids.end());
  ec::Result<ec::SubChunkPlan> plan = code.minimum_to_decode(want, *available);
  if (!plan.ok()) {
    return plan.status().WithPrefix("cannot decode from shards " + JoinIds(*available));
  }
  ec::ShardSet read;
  const ec::SubChunkRange whole{0, static_cast<int>(code.get_sub_chunk_count())};
  for (const auto& [id, ranges] : *plan) {
    // Rebuilding all data chunks never takes the sub-chunk repair path (it needs a single wanted
    // chunk), so a plan asking for part of a chunk means an unexpected plugin answer.
    if (ranges.size() != 1 || ranges.front() != whole) {
      return ec::Status::Invalid("failed to decode: the plugin asks for part of chunk " +
                                 std::to_string(id) + ", which ec-tool does not support");
    }
    if (!available->count(id)) {
      return ec::Status::Invalid("failed to decode: the plugin asks for chunk " +
                                 std::to_string(id) + ", which is not available");
    }
    read.insert(id);
  }

  ec::Result<std::uint64_t> stripes =
      CheckShardSizes(request.fname, *available, layout->stripe_unit);
  if (!stripes.ok()) return stripes.status();
  return Decoder(code, *layout).Run(request.fname, read, *stripes, request.sync);
}

}  // namespace ectool
