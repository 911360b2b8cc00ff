#include "osd/store/onode.h"

#include <cstring>

namespace ec::store {
namespace {

template <typename T>
void Put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  bool Get(T& v) {
    if (in_.size() < sizeof(T)) return false;
    std::memcpy(&v, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return true;
  }
  bool GetString(std::string& s) {
    std::uint32_t n = 0;
    if (!Get(n) || in_.size() < n) return false;
    s.assign(in_.data(), n);
    in_.remove_prefix(n);
    return true;
  }
  bool done() const { return in_.empty(); }

 private:
  std::string_view in_;
};

Status Corrupt(const std::string& why) {
  return Status::DataLoss("corrupt object metadata: " + why);
}

}  // namespace

std::string Onode::Encode() const {
  std::string out;
  Put<std::uint64_t>(out, size);
  Put<std::uint32_t>(out, static_cast<std::uint32_t>(attrs.size()));
  for (const auto& [k, v] : attrs) {
    Put<std::uint32_t>(out, static_cast<std::uint32_t>(k.size()));
    out += k;
    Put<std::uint32_t>(out, static_cast<std::uint32_t>(v.size()));
    out += v;
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
  Put<std::uint32_t>(out, static_cast<std::uint32_t>(runs.size()));
  for (const Run& r : runs) {
    Put<std::uint64_t>(out, r.lblock);
    Put<std::uint64_t>(out, r.dblock);
    Put<std::uint32_t>(out, static_cast<std::uint32_t>(r.crcs.size()));
    for (std::uint32_t c : r.crcs) Put<std::uint32_t>(out, c);
  }
  return out;
}

Result<Onode> Onode::Decode(std::string_view bytes) {
  Reader in(bytes);
  Onode o;
  std::uint32_t nattrs = 0;
  if (!in.Get(o.size) || !in.Get(nattrs)) return Corrupt("truncated header");
  for (std::uint32_t i = 0; i < nattrs; ++i) {
    std::string k, v;
    if (!in.GetString(k) || !in.GetString(v)) return Corrupt("truncated attribute");
    o.attrs.emplace(std::move(k), std::move(v));
  }
  std::uint32_t nruns = 0;
  if (!in.Get(nruns)) return Corrupt("truncated run count");
  for (std::uint32_t i = 0; i < nruns; ++i) {
    std::uint64_t lb = 0, db = 0;
    std::uint32_t count = 0;
    if (!in.Get(lb) || !in.Get(db) || !in.Get(count)) return Corrupt("truncated run");
    for (std::uint32_t j = 0; j < count; ++j) {
      std::uint32_t crc = 0;
      if (!in.Get(crc)) return Corrupt("truncated checksums");
      if (!o.blocks.emplace(lb + j, BlockRef{db + j, crc}).second) {
        return Corrupt("logical block " + std::to_string(lb + j) + " mapped twice");
      }
    }
  }
  if (!in.done()) return Corrupt("trailing bytes");
  if (!o.blocks.empty() && o.blocks.rbegin()->first * 4096 >= o.size) {
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
std::string BigEndianKey(char prefix, std::uint64_t n) {
  std::string k(1, prefix);
  for (int shift = 56; shift >= 0; shift -= 8) k += static_cast<char>((n >> shift) & 0xFF);
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

}  // namespace ec::store
