#include "tools/ec_tool/encode_command.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ec/buffer.h"
#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/file_io.h"
#include "tools/ec_tool/stripe_batch.h"

namespace ectool {

namespace {

// Encodes an open input into the shard files of `layout`.
class Encoder {
 public:
  Encoder(const ec::ErasureCodeInterface& code, const StripeLayout& layout, InputFile& input)
      : code_(code), layout_(layout), input_(input) {}

  ec::Status Run(const std::string& fname, bool sync) {
    const std::uint64_t stripes = DivRoundUp(input_.size(), layout_.stripe_width);
    const std::size_t batch = StripesPerBatch(layout_.stripe_width, stripes);
    const std::size_t su = layout_.stripe_unit;
    const std::size_t m = layout_.parity_ids.size();
    // Stripes are read as they are in the file (data piece i of stripe s at s*sw + i*su); parity
    // of chunk j goes to its own region so that it is written with one large write.
    ec::Buffer data = ec::Buffer::Allocate(batch * layout_.stripe_width, false);
    ec::Buffer parity = ec::Buffer::Allocate(std::max<std::size_t>(1, batch * su * m), false);

    std::vector<AtomicFile> shards(layout_.chunk_count);
    for (unsigned id = 0; id < layout_.chunk_count; ++id) {
      ec::Result<AtomicFile> file = AtomicFile::Create(fname + "." + std::to_string(id));
      if (!file.ok()) return file.status();
      shards[id] = std::move(file.value());
    }

    // The maps handed to encode_chunks are built once; each stripe only repoints their spans.
    ec::ConstChunkSpans in;
    ec::ChunkSpans out;
    std::vector<std::span<const std::byte>*> in_slots;
    std::vector<std::span<std::byte>*> out_slots;
    for (int id : layout_.data_ids) in_slots.push_back(&in[id]);
    for (int id : layout_.parity_ids) out_slots.push_back(&out[id]);
    std::vector<iovec> iov(batch);

    std::uint64_t remaining_bytes = input_.size();
    for (std::uint64_t first = 0; first < stripes; first += batch) {
      const std::size_t count =
          static_cast<std::size_t>(std::min<std::uint64_t>(batch, stripes - first));
      const std::size_t want_bytes = count * layout_.stripe_width;
      const std::size_t file_bytes =
          static_cast<std::size_t>(std::min<std::uint64_t>(want_bytes, remaining_bytes));
      ec::Result<std::size_t> got = input_.Read(data.span().first(file_bytes));
      if (!got.ok()) return got.status();
      if (*got != file_bytes) {
        return ec::Status::IOError("failed to read " + input_.path() +
                                   ": the file shrank while it was read");
      }
      remaining_bytes -= file_bytes;
      std::memset(data.data() + file_bytes, 0, want_bytes - file_bytes);

      for (std::size_t s = 0; s < count; ++s) {
        std::byte* stripe = data.data() + s * layout_.stripe_width;
        for (std::size_t i = 0; i < in_slots.size(); ++i) *in_slots[i] = {stripe + i * su, su};
        for (std::size_t j = 0; j < m; ++j) {
          *out_slots[j] = {parity.data() + (j * batch + s) * su, su};
        }
        ec::Status st = code_.encode_chunks(in, out);
        if (!st.ok()) return st.WithPrefix("failed to encode");
      }

      for (std::size_t i = 0; i < layout_.data_ids.size(); ++i) {
        for (std::size_t s = 0; s < count; ++s) {
          iov[s] = {data.data() + s * layout_.stripe_width + i * su, su};
        }
        EC_RETURN_IF_ERROR(shards[layout_.data_ids[i]].WriteGather({iov.data(), count}));
      }
      for (std::size_t j = 0; j < m; ++j) {
        EC_RETURN_IF_ERROR(
            shards[layout_.parity_ids[j]].Write({parity.data() + j * batch * su, count * su}));
      }
    }
    // Every shard is complete before any replaces its old version.
    for (AtomicFile& shard : shards) EC_RETURN_IF_ERROR(shard.Close(sync));
    for (AtomicFile& shard : shards) EC_RETURN_IF_ERROR(shard.Commit(sync));
    return ec::Status::OK();
  }

 private:
  const ec::ErasureCodeInterface& code_;
  const StripeLayout& layout_;
  InputFile& input_;
};

}  // namespace

ec::Status RunEncode(const EncodeRequest& request) {
  ec::Result<LoadedCode> loaded = LoadCode(request.profile, request.plugin_dir);
  if (!loaded.ok()) return loaded.status();
  ec::Result<StripeLayout> layout = MakeStripeLayout(*loaded->code, request.stripe_unit);
  if (!layout.ok()) return layout.status();
  ec::Result<ec::ShardSet> want = ParseShardList(request.want_to_encode, layout->chunk_count);
  if (!want.ok()) return want.status();

  ec::Result<InputFile> input = InputFile::Open(request.fname);
  if (!input.ok()) return input.status();
  if (input->size() == 0) {
    return ec::Status::Invalid("failed to read " + request.fname +
                               ": the file is empty, there is nothing to encode");
  }
  return Encoder(*loaded->code, *layout, *input).Run(request.fname, request.sync);
}

}  // namespace ectool
