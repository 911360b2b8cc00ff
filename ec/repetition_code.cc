#include "ec/repetition_code.h"

#include <cstring>
#include <memory>

namespace ec {

Status RepetitionCode::init(Profile& profile) {
  EC_RETURN_IF_ERROR(init_base(profile));
  int copies = 0;
  std::string err;
  auto it = profile.find("size");
  if (it == profile.end() || !StrictToInt(it->second, &copies, &err) || copies < 1 ||
      static_cast<unsigned>(copies) > kMaxCopies) {
    return Status::Invalid("size=" + (it == profile.end() ? std::string() : it->second) +
                           " must be between 1 and " + std::to_string(kMaxCopies));
  }
  profile["plugin"] = "replicated";
  k_ = 1;
  m_ = static_cast<unsigned>(copies) - 1;
  chunk_mapping_.clear();
  profile_ = profile;
  return Status::OK();
}

Status RepetitionCode::encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const {
  std::size_t len = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
  auto data = in.find(0);
  for (const auto& [id, span] : out) {
    if (id == 0) return Status::Invalid("chunk 0 is the data chunk, not an output of encode");
    if (data == in.end()) {
      std::memset(span.data(), 0, len);
    } else {
      std::memcpy(span.data(), data->second.data(), len);
    }
  }
  return Status::OK();
}

Status RepetitionCode::decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                                     const ChunkSpans& out) const {
  EC_RETURN_IF_ERROR(check_ids(want, "wanted"));
  if (in.empty()) return Status::IOError("no copy to decode from");
  std::size_t len = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
  const std::span<const std::byte> copy = in.begin()->second;
  for (const auto& [id, span] : out) std::memcpy(span.data(), copy.data(), len);
  return Status::OK();
}

Result<ErasureCodeInterfaceRef> MakeRepetitionCode(unsigned copies) {
  auto code = std::make_shared<RepetitionCode>();
  Profile profile = {{"size", std::to_string(copies)}};
  EC_RETURN_IF_ERROR(code->init(profile));
  return ErasureCodeInterfaceRef(std::move(code));
}

}  // namespace ec
