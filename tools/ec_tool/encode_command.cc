#include "tools/ec_tool/encode_command.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ec/buffer.h"
#include "ec/stripe_codec.h"
#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/file_io.h"

namespace ec::tools::ec_tool {

namespace {

// Stripe bytes per batch: large enough that reads and writes are big, small enough that memory
// stays bounded whatever the file size.
constexpr std::size_t kBatchBytes = std::size_t{16} << 20;

// Encodes an open input into the shard files of `layout`, batch after batch: the input is read as
// it is (stripe after stripe), the codec computes parity into one region per parity chunk, and
// the data shards are written straight from the input buffer with gather writes.
ec::Status Encode(const ec::ErasureCodeInterface& code, const ec::StripeLayout& layout,
                  InputFile& input, const std::string& fname, bool sync) {
  const ec::StripeCodec codec(code, layout);
  const std::size_t width = layout.stripe_width();
  const std::uint64_t stripes = layout.stripes_of(input.size());
  const std::size_t batch = static_cast<std::size_t>(
      std::min<std::uint64_t>(std::max<std::size_t>(1, kBatchBytes / width), stripes));
  const std::size_t su = layout.chunk_size();
  const std::size_t m = layout.m();
  ec::Buffer data = ec::Buffer::Allocate(batch * width, false);
  ec::Buffer parity = ec::Buffer::Allocate(std::max<std::size_t>(1, batch * su * m), false);

  std::vector<AtomicFile> shards(layout.chunk_count());
  for (unsigned id = 0; id < layout.chunk_count(); ++id) {
    ec::Result<AtomicFile> file = AtomicFile::Create(fname + "." + std::to_string(id));
    if (!file.ok()) return file.status();
    shards[id] = std::move(file.value());
  }

  std::vector<iovec> iov(batch);
  std::vector<std::span<std::byte>> parity_out(m);
  std::uint64_t remaining_bytes = input.size();
  for (std::uint64_t first = 0; first < stripes; first += batch) {
    const std::size_t count =
        static_cast<std::size_t>(std::min<std::uint64_t>(batch, stripes - first));
    const std::size_t want_bytes = count * width;
    const std::size_t file_bytes =
        static_cast<std::size_t>(std::min<std::uint64_t>(want_bytes, remaining_bytes));
    ec::Result<std::size_t> got = input.Read(data.span().first(file_bytes));
    if (!got.ok()) return got.status();
    if (*got != file_bytes) {
      return ec::Status::IOError("failed to read " + input.path() +
                                 ": the file shrank while it was read");
    }
    remaining_bytes -= file_bytes;
    std::memset(data.data() + file_bytes, 0, want_bytes - file_bytes);

    for (std::size_t j = 0; j < m; ++j)
      parity_out[j] = {parity.data() + j * batch * su, count * su};
    ec::Status st = codec.EncodeObject(data.span().first(want_bytes), count, parity_out);
    if (!st.ok()) return st.WithPrefix("failed to encode");

    for (unsigned i = 0; i < layout.k(); ++i) {
      const ec::ConstColumn column = codec.DataColumn(data.data(), i);
      for (std::size_t s = 0; s < count; ++s) {
        iov[s] = {const_cast<std::byte*>(column.data + s * column.stride), su};
      }
      EC_RETURN_IF_ERROR(shards[layout.data_ids()[i]].WriteGather({iov.data(), count}));
    }
    for (std::size_t j = 0; j < m; ++j) {
      EC_RETURN_IF_ERROR(shards[layout.parity_ids()[j]].Write(parity_out[j]));
    }
  }
  // Every shard is complete before any replaces its old version.
  for (AtomicFile& shard : shards) EC_RETURN_IF_ERROR(shard.Close(sync));
  for (AtomicFile& shard : shards) EC_RETURN_IF_ERROR(shard.Commit(sync));
  return ec::Status::OK();
}

}  // namespace

ec::Status RunEncode(const EncodeRequest& request) {
  ec::Result<LoadedCode> loaded = LoadCode(request.profile, request.plugin_dir);
  if (!loaded.ok()) return loaded.status();
  ec::Result<ec::StripeLayout> layout = MakeStripeLayout(*loaded->code, request.stripe_unit);
  if (!layout.ok()) return layout.status();
  ec::Result<ec::ShardSet> want = ParseShardList(request.want_to_encode, layout->chunk_count());
  if (!want.ok()) return want.status();

  ec::Result<InputFile> input = InputFile::Open(request.fname);
  if (!input.ok()) return input.status();
  if (input->size() == 0) {
    return ec::Status::Invalid("failed to read " + request.fname +
                               ": the file is empty, there is nothing to encode");
  }
  return Encode(*loaded->code, *layout, *input, request.fname, request.sync);
}

}  // namespace ec::tools::ec_tool
