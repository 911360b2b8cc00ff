#include "osd/daemon/shard_meta.h"

#include <charconv>

namespace ec::osd {
namespace {

// Little-endian helpers for the "_meta" attribute.
void PutU64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutString(std::string& out, const std::string& s) {
  PutU32(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

class MetaReader {
 public:
  explicit MetaReader(const std::string& bytes) : bytes_(bytes) {}
  bool U64(std::uint64_t* v) {
    if (bytes_.size() - pos_ < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) {
      *v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    }
    pos_ += 8;
    return true;
  }
  bool U32(std::uint32_t* v) {
    if (bytes_.size() - pos_ < 4) return false;
    *v = 0;
    for (int i = 0; i < 4; ++i) {
      *v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes_[pos_ + i])) << (8 * i);
    }
    pos_ += 4;
    return true;
  }
  bool String(std::string* s) {
    std::uint32_t len = 0;
    if (!U32(&len) || bytes_.size() - pos_ < len) return false;
    s->assign(bytes_, pos_, len);
    pos_ += len;
    return true;
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }
  std::size_t Left() const { return bytes_.size() - pos_; }

 private:
  const std::string& bytes_;
  std::size_t pos_ = 0;
};

constexpr std::uint32_t kMetaFormat = 1;

}  // namespace

std::string ShardObjectName(const std::string& object, std::uint32_t shard) {
  return object + "#" + std::to_string(shard);
}

bool ParseShardObjectName(const std::string& name, std::string* object, std::uint32_t* shard) {
  std::size_t hash = name.rfind('#');
  if (hash == std::string::npos || hash == 0 || hash + 1 == name.size()) return false;
  const char* first = name.data() + hash + 1;
  const char* last = name.data() + name.size();
  std::uint32_t value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last) return false;
  // Only the canonical spelling ("7", not "07") maps back to the same store name.
  if (std::to_string(value).size() != static_cast<std::size_t>(last - first)) return false;
  object->assign(name, 0, hash);
  *shard = value;
  return true;
}

std::string EncodeShardMeta(const ShardMeta& meta) {
  std::string out;
  PutU32(out, kMetaFormat);
  PutU64(out, meta.version);
  PutU32(out, static_cast<std::uint32_t>(meta.attrs.size()));
  for (const net::Attr& a : meta.attrs) {
    PutString(out, a.key);
    PutString(out, a.value);
  }
  return out;
}

Result<ShardMeta> DecodeShardMeta(const std::string& bytes) {
  MetaReader r(bytes);
  ShardMeta meta;
  std::uint32_t format = 0;
  std::uint32_t count = 0;
  if (!r.U32(&format) || format != kMetaFormat || !r.U64(&meta.version) || !r.U32(&count)) {
    return Status::DataLoss("corrupt shard metadata (header)");
  }
  // Each attribute takes at least 8 bytes: a count beyond that cannot be genuine.
  if (count > r.Left() / 8) return Status::DataLoss("corrupt shard metadata (attribute count)");
  meta.attrs.resize(count);
  for (net::Attr& a : meta.attrs) {
    if (!r.String(&a.key) || !r.String(&a.value)) {
      return Status::DataLoss("corrupt shard metadata (attribute)");
    }
  }
  if (!r.AtEnd()) return Status::DataLoss("corrupt shard metadata (trailing bytes)");
  return meta;
}

}  // namespace ec::osd
