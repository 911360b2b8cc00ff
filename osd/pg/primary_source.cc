#include "osd/pg/primary_source.h"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <vector>

namespace ec::osd::pg {

Status PrimaryShardSource::ReadLocal(const recovery::ShardReadRequest& r) {
  std::vector<store::Extent> extents;
  extents.reserve(r.extents.size());
  for (const recovery::Extent& e : r.extents) extents.push_back({e.offset, e.length});
  auto got = shards_->ReadNow(collection_, object_, static_cast<std::uint32_t>(r.shard), extents);
  if (!got.ok()) return got.status().WithPrefix("local shard " + std::to_string(r.shard));
  auto versioned = versions_.find(r.shard);
  const std::uint64_t want = versioned == versions_.end() ? version_ : versioned->second;
  if (got->version != want) {
    return Status::Error(ESTALE, fmt::format("local shard {} is at version {}, not {}", r.shard,
                                             got->version, want));
  }
  auto sized = sizes_.find(r.shard);
  if (sized != sizes_.end() && got->size != sized->second) {
    return msg::WrongShardLength("local shard " + std::to_string(r.shard), r.shard, got->size,
                                 sized->second);
  }
  std::byte* dest = r.destination.data();
  for (std::size_t i = 0; i < extents.size(); ++i) {
    const Buffer& b = got->extents[i];
    if (b.size() != extents[i].length) {
      return Status::Error(ENODATA, fmt::format("local shard {} ends before byte {}", r.shard,
                                                extents[i].offset + extents[i].length));
    }
    std::memcpy(dest, b.data(), b.size());
    dest += b.size();
  }
  return Status::OK();
}

void PrimaryShardSource::ReadAsync(std::span<const recovery::ShardReadRequest> requests,
                                   Completion done) {
  std::vector<recovery::ShardReadRequest> remote;
  std::vector<std::size_t> index;  // remote request -> index in `requests`
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (shards_ != nullptr && requests[i].shard == local_shard_) continue;
    remote.push_back(requests[i]);
    index.push_back(i);
  }
  if (!remote.empty()) {
    // The remote source keeps no reference to its requests after its last completion, but its
    // completions may run after this call returns: the copies live with the callback.
    auto shared = std::make_shared<std::vector<recovery::ShardReadRequest>>(std::move(remote));
    auto map = std::make_shared<std::vector<std::size_t>>(std::move(index));
    remote_->ReadAsync(
        *shared, [shared, map, done](std::size_t i, Status s) { done((*map)[i], std::move(s)); });
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (shards_ != nullptr && requests[i].shard == local_shard_) done(i, ReadLocal(requests[i]));
  }
}

}  // namespace ec::osd::pg
