// object_io.h: reading an object's bytes (recovery::ReadObjectRange over the shards at its
// version, degraded at the least cost, or through a repair chain: object_io_chain_read.cc) and
// whole shards at once (ReadWholeShards).
#include <fmt/format.h>

#include <algorithm>

#include "common/fan_out.h"
#include "osd/pg/object_io.h"
#include "osd/pg/object_io_internal.h"
#include "osd/pg/osd_shard_source.h"
#include "osd/pg/primary_source.h"
#include "recovery/object_read.h"
#include "recovery/stored_shard_source.h"

namespace ec::osd::pg {

using object_io_detail::Call;
using object_io_detail::OsdName;
using object_io_detail::StoredSizes;

std::map<int, Result<Buffer>> ReadWholeShards(const ObjectIo& io, const ObjectState& state,
                                              const std::map<int, std::uint64_t>& sizes) {
  const std::uint64_t version = state.version;
  std::map<int, Result<Buffer>> out;
  // This OSD's own shard, and any too large for one batch reply, through the read path's source.
  msg::OsdShardSource::Options so;
  so.collection = io.loc->collection;
  so.object = io.object;
  so.call = Call(io);
  so.expect_version = version;
  so.expect_versions = object_io_detail::ExpectedVersions(state);
  so.shard_sizes = sizes;
  std::map<int, Buffer> direct;
  std::vector<int> batched;
  const std::uint64_t batch_max = msg::Limits{}.max_payload_len / 2;
  for (const auto& [p, size] : sizes) {
    auto c = io.clients.find(p);
    if (c == io.clients.end()) {
      out.emplace(p, Status::NotFound(fmt::format("shard {}: no OSD up", p)));
    } else if (p != io.self_position && size > 0 && size <= batch_max) {
      batched.push_back(p);
    } else {
      if (msg::OsdClient* client = c->second->remote()) {
        so.shards[p] = msg::OsdShardSource::Holder{client, OsdName(io, p)};
      }
      direct.emplace(p, Buffer::Allocate(size, false));
    }
  }
  // The others with one SubReadBatch each: their OSDs serve those on their background threads,
  // behind client operations.
  auto replies = GatherAll<Result<std::vector<msg::ReadBatchItem>>>(
      batched.size(), [&](std::size_t i, auto done) {
        const int p = batched[i];
        msg::SubReadBatchRequest r;
        r.items.push_back(msg::SubReadBatchItem{io.loc->collection,
                                                io.object,
                                                static_cast<std::uint32_t>(p),
                                                state.VersionOf(p),
                                                {{0, sizes.at(p)}}});
        io.clients.at(p)->ReadBatchAsync(std::move(r), std::move(done), Call(io));
      });
  for (std::size_t i = 0; i < batched.size(); ++i) {
    const int p = batched[i];
    if (!replies[i].ok()) {
      out.emplace(p, replies[i].status().WithPrefix(OsdName(io, p)));
      continue;
    }
    msg::ReadBatchItem& item = replies[i]->front();
    if (!item.status.ok()) {
      out.emplace(p, item.status.WithPrefix(OsdName(io, p)));
    } else if (item.object_size != sizes.at(p)) {
      out.emplace(p, msg::WrongShardLength(OsdName(io, p), p, item.object_size, sizes.at(p)));
    } else if (item.extents.size() != 1 || item.extents[0].size() != sizes.at(p)) {
      out.emplace(p, Status::Error(ESTALE, fmt::format("{}: the shard is not {} bytes",
                                                       OsdName(io, p), sizes.at(p))));
    } else {
      out.emplace(p, std::move(item.extents[0]));
    }
  }
  if (direct.empty()) return out;
  msg::OsdShardSource remote(std::move(so));
  PrimaryShardSource source(&remote, io.shards, io.loc->collection, io.object, io.self_position,
                            version);
  source.ExpectSizes(sizes);
  source.ExpectVersions(object_io_detail::ExpectedVersions(state));
  std::vector<recovery::ShardReadRequest> requests;
  std::vector<int> owner;
  for (auto& [p, buffer] : direct) {
    auto split = recovery::SplitToLimits(p, {{0, buffer.size()}}, buffer.span(), source.limits());
    for (auto& r : split) {
      requests.push_back(std::move(r));
      owner.push_back(p);
    }
  }
  const std::vector<Status> got = recovery::ReadAll(source, requests);
  std::map<int, Status> failed;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!got[i].ok() && failed.count(owner[i]) == 0) failed.emplace(owner[i], got[i]);
  }
  for (auto& [p, buffer] : direct) {
    auto f = failed.find(p);
    if (f != failed.end()) {
      out.emplace(p, f->second);
    } else {
      out.emplace(p, std::move(buffer));
    }
  }
  return out;
}

Result<ReadOutcome> ReadObject(const ObjectIo& io, const ObjectState& state, std::uint64_t offset,
                               std::uint64_t length) {
  if (!state.exists) {
    return Status::NotFound(
        fmt::format("object {} does not exist in pg {}", io.object, io.loc->pgid));
  }
  if (offset > state.size) {
    return Status::Invalid(fmt::format("read at {} is past the end of object {} ({} bytes)", offset,
                                       io.object, state.size));
  }
  length = std::min(length, state.size - offset);
  ReadOutcome out;
  if (length == 0) {
    out.bytes = Buffer::Allocate(0);
    return out;
  }
  recovery::ObjectReadRequest req;
  req.object_size = state.size;
  req.offset = offset;
  req.length = length;
  recovery::ReadCostModel model = io.cost;
  msg::OsdShardSource::Options so;
  so.collection = io.loc->collection;
  so.object = io.object;
  so.call = Call(io);
  so.expect_version = state.version;
  so.expect_versions = object_io_detail::ExpectedVersions(state);
  // Every shard must hold what the object's size gives it: a cut or extended one fails its reads
  // (DataLoss, so the read goes around it and has it repaired). Without padding, the bytes past a
  // shard's stored length are zeros nobody reads or sends (StoredShardSource).
  const std::map<int, std::uint64_t> sizes = StoredSizes(io.codec->layout, state.size);
  so.shard_sizes = sizes;
  model.stored = sizes;  // plans priced for what the shards store (absent bytes cost nothing)
  const int chunks = static_cast<int>(io.codec->layout.chunk_count());
  for (int p : state.current) {
    auto c = io.clients.find(p);
    // A small object's positions past its copies hold no bytes of it (PoolCodec::replicas).
    if (c == io.clients.end() || p >= chunks) continue;
    req.available[p] = p == io.self_position ? 0 : 1;
    if (p == io.self_position) model.local.insert(p);
    if (msg::OsdClient* client = c->second->remote()) {
      so.shards[p] = msg::OsdShardSource::Holder{client, OsdName(io, p)};
    }
  }
  req.cost = model;
  msg::OsdShardSource remote(std::move(so));
  PrimaryShardSource primary(&remote, io.shards, io.loc->collection, io.object, io.self_position,
                             state.version);
  primary.ExpectSizes(sizes);
  primary.ExpectVersions(object_io_detail::ExpectedVersions(state));
  object_io_detail::ChainAttempt chained;
  if (io.chain != nullptr) {
    chained = object_io_detail::ReadThroughChain(io, state, req, primary, sizes);
    if (chained.outcome) return std::move(*chained.outcome);
    out.chain_failure = chained.failure;
  }
  recovery::StoredShardSource source(&primary, sizes);
  auto got = recovery::ReadObjectRange(*io.codec->engine, source, req);
  if (!got.ok()) {
    std::vector<std::string> missing;
    for (int p = 0; p < static_cast<int>(io.loc->acting.size()); ++p) {
      if (req.available.count(p) == 0) {
        missing.push_back(io.loc->acting[p] == cluster::kItemNone
                              ? fmt::format("shard {} (no OSD)", p)
                              : OsdName(io, p));
      }
    }
    return Status::Error(
        EIO, fmt::format("pg {} object {}: cannot read [{}, +{}): {}{}{}", io.loc->pgid, io.object,
                         offset, length, got.status().message(),
                         missing.empty() ? "" : "; shards missing: ", fmt::join(missing, ", ")));
  }
  out.bytes = std::move(got->bytes);
  out.degraded = got->degraded();
  for (const auto& [p, why] : got->stats.failed) {
    if (why.is_data_loss()) out.corrupt.push_back(p);
  }
  out.network_bytes = got->cost.net_bytes;
  out.device_bytes = got->cost.device_bytes;
  return out;
}

}  // namespace ec::osd::pg
