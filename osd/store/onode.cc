#include "osd/store/onode.h"

#include <cstdint>

#include "common/codec.h"

namespace ec::osd::store {
namespace {

// Smallest encodings, so that a count read from the database can be checked against the bytes
// left before anything is reserved for it.
constexpr std::size_t kMinAttrSize = 8;  // two empty strings
constexpr std::size_t kMinRunSize = 20;  // logical block, device block, crc count
constexpr std::uint32_t kMaxLength = UINT32_MAX;

Status Corrupt(const std::string& why) {
  return Status::DataLoss("corrupt object metadata: " + why);
}

}  // namespace

std::string Onode::Encode() const {
  std::string out;
  Encoder w(out);
  w.U64(size);
  w.U32(static_cast<std::uint32_t>(attrs.size()));
  for (const auto& [k, v] : attrs) {
    w.String(k);
    w.String(v);
  }
  // Runs: count them first, then write them.
  struct Run {
    std::uint64_t lblock, dblock;
    std::vector<std::uint32_t> crcs;
  };
  std::vector<Run> runs;
  for (const auto& [lb, ref] : blocks) {
    if (!runs.empty()) {
      Run& r = runs.back();
      if (r.lblock + r.crcs.size() == lb && r.dblock + r.crcs.size() == ref.device_block) {
        r.crcs.push_back(ref.crc);
        continue;
      }
    }
    runs.push_back(Run{lb, ref.device_block, {ref.crc}});
  }
  w.U32(static_cast<std::uint32_t>(runs.size()));
  for (const Run& r : runs) {
    w.U64(r.lblock);
    w.U64(r.dblock);
    w.U32(static_cast<std::uint32_t>(r.crcs.size()));
    for (std::uint32_t c : r.crcs) w.U32(c);
  }
  return out;
}

Result<Onode> Onode::Decode(std::string_view bytes) {
  Decoder in(bytes);
  Onode o;
  std::uint32_t nattrs = 0;
  if (!in.U64(&o.size, "size") || !in.Count(&nattrs, UINT32_MAX, kMinAttrSize, "attribute count")) {
    return Corrupt(in.status().message());
  }
  for (std::uint32_t i = 0; i < nattrs; ++i) {
    std::string k, v;
    if (!in.String(&k, kMaxLength, "attribute key") ||
        !in.String(&v, kMaxLength, "attribute value")) {
      return Corrupt(in.status().message());
    }
    o.attrs.emplace(std::move(k), std::move(v));
  }
  std::uint32_t nruns = 0;
  if (!in.Count(&nruns, UINT32_MAX, kMinRunSize, "run count"))
    return Corrupt(in.status().message());
  for (std::uint32_t i = 0; i < nruns; ++i) {
    std::uint64_t lb = 0, db = 0;
    std::uint32_t count = 0;
    if (!in.U64(&lb, "run logical block") || !in.U64(&db, "run device block") ||
        !in.Count(&count, UINT32_MAX, 4, "run checksums")) {
      return Corrupt(in.status().message());
    }
    if (count > UINT64_MAX - lb || count > UINT64_MAX - db) {
      return Corrupt("run of " + std::to_string(count) + " blocks at logical block " +
                     std::to_string(lb) + " overflows");
    }
    for (std::uint32_t j = 0; j < count; ++j) {
      std::uint32_t crc = 0;
      if (!in.U32(&crc, "checksum")) return Corrupt(in.status().message());
      if (!o.blocks.emplace(lb + j, BlockRef{db + j, crc}).second) {
        return Corrupt("logical block " + std::to_string(lb + j) + " mapped twice");
      }
    }
  }
  if (!in.AtEnd()) return Corrupt(in.Finish("onode").message());
  // last * 4096 >= size, without the overflow a corrupt block number could cause.
  if (!o.blocks.empty() && o.blocks.rbegin()->first >= o.size / 4096 + (o.size % 4096 != 0)) {
    return Corrupt("block past the object size");
  }
  return o;
}

std::vector<BlockRun> Onode::DeviceRuns() const {
  std::vector<BlockRun> runs;
  for (const auto& [lb, ref] : blocks) {
    if (!runs.empty() && runs.back().block + runs.back().count == ref.device_block) {
      ++runs.back().count;
    } else {
      runs.push_back(BlockRun{ref.device_block, 1});
    }
  }
  return runs;
}

namespace keys {

namespace {
// Big-endian, so that RocksDB's byte order is the numbers' order.
std::string BigEndianKey(char prefix, std::uint64_t n) {
  std::string k(1, prefix);
  Encoder(k).U64BigEndian(n);
  return k;
}
}  // namespace

std::string AllocSegment(std::uint64_t segment) {
  return BigEndianKey(kAllocPrefix, segment);
}
std::string Deferred(std::uint64_t seq) {
  return BigEndianKey(kDeferredPrefix, seq);
}

std::string Collection(std::string_view coll) {
  std::string k(1, kCollectionPrefix);
  k += coll;
  return k;
}

std::string ObjectPrefix(std::string_view coll) {
  std::string k(1, kObjectPrefix);
  k += coll;
  k += '\0';
  return k;
}

std::string Object(std::string_view coll, std::string_view name) {
  std::string k = ObjectPrefix(coll);
  k += name;
  return k;
}

}  // namespace keys

}  // namespace ec::osd::store
