#include "osd/pg/osd_shard_source.h"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <optional>

namespace ec::msg {

Status WrongShardLength(const std::string& holder, int shard, std::uint64_t holds,
                        std::uint64_t should) {
  return Status::DataLoss(fmt::format(
      "{}: shard {} holds {} bytes, not the {} its object's size gives (a wrong length)", holder,
      shard, holds, should));
}

void OsdShardSource::ReadAsync(std::span<const recovery::ShardReadRequest> requests,
                               Completion done) {
  // Shared by the callbacks, which may outlive this call (they run on io threads).
  auto shared_done = std::make_shared<Completion>(std::move(done));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const recovery::ShardReadRequest& r = requests[i];
    auto holder = options_.shards.find(r.shard);
    if (holder == options_.shards.end() || holder->second.client == nullptr) {
      (*shared_done)(i, Status::NotFound("no OSD holds shard " + std::to_string(r.shard)));
      continue;
    }
    ReadShardRequest request;
    request.collection = options_.collection;
    request.object = options_.object;
    request.shard = static_cast<std::uint32_t>(r.shard);
    for (const recovery::Extent& e : r.extents) request.extents.push_back({e.offset, e.length});
    const std::string name = holder->second.name;
    auto versioned = options_.expect_versions.find(r.shard);
    const std::uint64_t expect =
        versioned == options_.expect_versions.end() ? options_.expect_version : versioned->second;
    auto sized = options_.shard_sizes.find(r.shard);
    const std::optional<std::uint64_t> expect_size =
        sized == options_.shard_sizes.end() ? std::nullopt : std::optional(sized->second);
    // The request (extents, destination) stays valid until this callback has run: the engine's
    // contract.
    holder->second.client->ReadShardAsync(
        std::move(request),
        [shared_done, i, &r, name, expect, expect_size](Result<ReadShardResult> reply) {
          if (!reply.ok()) {
            (*shared_done)(i, reply.status().WithPrefix(name));
            return;
          }
          if (expect != 0 && reply->version != expect) {
            (*shared_done)(
                i, Status::Error(ESTALE, name + ": shard " + std::to_string(r.shard) +
                                             " is at version " + std::to_string(reply->version) +
                                             ", not " + std::to_string(expect)));
            return;
          }
          if (expect_size && reply->object_size != *expect_size) {
            (*shared_done)(i, WrongShardLength(name, r.shard, reply->object_size, *expect_size));
            return;
          }
          if (reply->extents.size() != r.extents.size()) {
            (*shared_done)(
                i, Status::Error(EBADMSG, name + ": the reply has " +
                                              std::to_string(reply->extents.size()) +
                                              " extents for " + std::to_string(r.extents.size())));
            return;
          }
          std::byte* dest = r.destination.data();
          for (std::size_t e = 0; e < r.extents.size(); ++e) {
            const Buffer& got = reply->extents[e];
            if (got.size() != r.extents[e].length) {
              (*shared_done)(i, Status::Error(ENODATA, name + ": shard " + std::to_string(r.shard) +
                                                           " ends before byte " +
                                                           std::to_string(r.extents[e].offset +
                                                                          r.extents[e].length)));
              return;
            }
            std::memcpy(dest, got.data(), got.size());
            dest += got.size();
          }
          (*shared_done)(i, Status::OK());
        },
        options_.call);
  }
}

}  // namespace ec::msg
