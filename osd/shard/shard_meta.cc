#include "osd/shard/shard_meta.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "common/codec.h"

namespace ec::osd::shard {
namespace {

constexpr std::uint32_t kMetaFormat = 1;          // no versions
constexpr std::uint32_t kMetaFormatVersions = 2;  // followed by the object's ShardVersions

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

std::vector<msg::Attr> XattrsOf(const std::vector<msg::Attr>& attrs) {
  std::vector<msg::Attr> out;
  for (const msg::Attr& a : attrs) {
    if (a.key.size() > 1 && a.key[0] == kXattrPrefix) out.push_back({a.key.substr(1), a.value});
  }
  std::sort(out.begin(), out.end(),
            [](const msg::Attr& x, const msg::Attr& y) { return x.key < y.key; });
  return out;
}

std::uint64_t DecimalAttr(const std::vector<msg::Attr>& attrs, std::string_view key) {
  for (const msg::Attr& a : attrs) {
    if (a.key != key) continue;
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(a.value.data(), a.value.data() + a.value.size(), v);
    if (ec == std::errc() && p == a.value.data() + a.value.size()) return v;
  }
  return 0;
}

void SetMetaAttr(ShardMeta& meta, std::string_view key, std::string value) {
  for (msg::Attr& a : meta.attrs) {
    if (a.key == key) {
      a.value = std::move(value);
      return;
    }
  }
  meta.attrs.push_back({std::string(key), std::move(value)});
}

namespace {
constexpr std::string_view kReplicasForm = "replicas";
}  // namespace

msg::ObjectForm FormOf(const ShardMeta& meta) {
  for (const msg::Attr& a : meta.attrs) {
    if (a.key == kFormAttr && a.value == kReplicasForm) return msg::ObjectForm::kReplicas;
  }
  return msg::ObjectForm::kErasure;
}

void SetForm(ShardMeta& meta, msg::ObjectForm form) {
  std::erase_if(meta.attrs, [](const msg::Attr& a) { return a.key == kFormAttr; });
  if (form == msg::ObjectForm::kReplicas) {
    meta.attrs.push_back({kFormAttr, std::string(kReplicasForm)});
  }
}

void SetXattrs(ShardMeta& meta, const std::vector<msg::Attr>& xattrs) {
  std::erase_if(meta.attrs,
                [](const msg::Attr& a) { return a.key.size() > 1 && a.key[0] == kXattrPrefix; });
  for (const msg::Attr& x : xattrs) meta.attrs.push_back({kXattrPrefix + x.key, x.value});
}

std::string EncodeShardMeta(const ShardMeta& meta) {
  std::string out;
  Encoder e(out);
  e.U32(meta.versions.empty() ? kMetaFormat : kMetaFormatVersions);
  e.U64(meta.version);
  e.U32(static_cast<std::uint32_t>(meta.attrs.size()));
  for (const msg::Attr& a : meta.attrs) {
    e.String(a.key);
    e.String(a.value);
  }
  if (!meta.versions.empty()) {
    e.U32(static_cast<std::uint32_t>(meta.versions.size()));
    for (std::uint64_t v : meta.versions) e.U64(v);
  }
  return out;
}

Result<ShardMeta> DecodeShardMeta(const std::string& bytes) {
  constexpr std::uint32_t kAny = std::numeric_limits<std::uint32_t>::max();
  Decoder d(std::string_view{bytes});
  ShardMeta meta;
  std::uint32_t format = 0;
  std::uint32_t count = 0;
  if (!d.U32(&format, "format") || (format != kMetaFormat && format != kMetaFormatVersions) ||
      !d.U64(&meta.version, "version")) {
    return Status::DataLoss("corrupt shard metadata (header)");
  }
  // An attribute takes at least 8 bytes (two lengths): a larger count cannot be genuine.
  if (!d.Count(&count, kAny, 8, "attribute count")) {
    return Status::DataLoss("corrupt shard metadata (attribute count)");
  }
  meta.attrs.resize(count);
  for (msg::Attr& a : meta.attrs) {
    if (!d.String(&a.key, kAny, "key") || !d.String(&a.value, kAny, "value")) {
      return Status::DataLoss("corrupt shard metadata (attribute)");
    }
  }
  if (format == kMetaFormatVersions) {
    if (!d.Count(&count, msg::kMaxShardPositions, 8, "versions") || count == 0) {
      return Status::DataLoss("corrupt shard metadata (versions count)");
    }
    meta.versions.resize(count);
    for (std::uint64_t& v : meta.versions) {
      if (!d.U64(&v, "version")) return Status::DataLoss("corrupt shard metadata (versions)");
    }
  }
  if (!d.AtEnd()) return Status::DataLoss("corrupt shard metadata (trailing bytes)");
  return meta;
}

}  // namespace ec::osd::shard
