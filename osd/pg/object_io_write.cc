// object_io.h: writing and removing an object across its shards: the targets, one SubWrite each
// (re-encoded stripes, a parity delta for a small overwrite, or a replicated pool's new bytes
// as they are), acknowledged at min_size or rolled back.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include "common/fan_out.h"
#include "ec/stripe_codec.h"
#include "osd/pg/object_io.h"
#include "osd/pg/object_io_internal.h"
#include "osd/pg/osd_shard_source.h"
#include "osd/pg/primary_source.h"
#include "recovery/stored_shard_source.h"

namespace ec::osd::pg {

using object_io_detail::After;
using object_io_detail::AllPositions;
using object_io_detail::Call;
using object_io_detail::ChangedPositions;
using object_io_detail::EncodeAndSend;
using object_io_detail::ExpectedVersions;
using object_io_detail::MetaAfter;
using object_io_detail::NeedsXattrs;
using object_io_detail::OsdName;
using object_io_detail::PartialTargets;
using object_io_detail::PlanPartial;
using object_io_detail::SendSubWrites;
using object_io_detail::StoredSizes;
using object_io_detail::SubWriteFor;
using object_io_detail::VersionsAfter;

namespace {

// The shards a whole rewrite or a remove goes to: every current and stale one (the rewrite
// brings a stale shard up to date) whose OSD is up. Retryable EAGAIN when fewer than min_size.
Result<std::vector<int>> Targets(const ObjectIo& io, const ObjectState& state, int min_size,
                                 const char* what) {
  std::vector<int> targets = state.current;
  for (const auto& [p, v] : state.stale) targets.push_back(p);
  std::erase_if(targets, [&](int p) { return io.clients.count(p) == 0; });
  if (static_cast<int>(targets.size()) < min_size) {
    return Status::Retryable(EAGAIN,
                             fmt::format("pg {} object {}: {} shards can take the {}, "
                                         "fewer than min_size {}",
                                         io.loc->pgid, io.object, targets.size(), what, min_size));
  }
  return targets;
}

// A failure that says nothing about the shard's data: the OSD did not answer (dying, slow).
bool NoAnswer(const Status& s) {
  return s.is_retryable() &&
         (s.code() == ETIMEDOUT || s.code() == ECONNREFUSED || s.code() == ECONNRESET ||
          s.code() == EPIPE || s.code() == ESHUTDOWN || s.code() == EAGAIN);
}

// A shard whose store failed the write (EIO: its device failed it, or a block the write had to
// read back failed its checksum). Not a refusal of the write but a position that did not take
// it, as one that did not answer: the write stands on the others (min_size) and the shard is
// left behind for recovery; its OSD leaves service when its device fails writes
// (osd/daemon/device_watch.h). A failed group commit may yet be found applied: "may hold".
bool StoreFailed(const Status& s) {
  return s.code() == EIO;
}

}  // namespace

namespace object_io_detail {

bool NeedsXattrs(const ObjectState& state, int p, const MetaUpdate& meta) {
  return meta.changed || !state.exists ||
         std::find(state.current.begin(), state.current.end(), p) == state.current.end();
}

msg::SubWriteRequest SubWriteFor(const ObjectIo& io, const ObjectState& state, int p,
                                 std::uint64_t version, msg::SubWriteKind kind,
                                 std::uint64_t object_size, std::uint64_t shard_size,
                                 const msg::ShardVersions& versions, const MetaUpdate& meta) {
  msg::SubWriteRequest w;
  w.collection = io.loc->collection;
  w.object = io.object;
  w.shard = static_cast<std::uint32_t>(p);
  w.version = kind == msg::SubWriteKind::kRemove ? version : VersionAt(versions, version, p);
  auto stale = state.stale.find(p);
  w.prev_version = stale == state.stale.end() ? state.VersionOf(p) : stale->second;
  w.kind = kind;
  w.object_size = object_size;
  w.shard_size = shard_size;
  w.epoch = io.epoch;
  if (kind == msg::SubWriteKind::kRemove) return w;
  w.form = io.codec->form;
  w.versions = versions;
  w.mtime = meta.mtime;
  // A shard that holds the object's set keeps it; the others are given it (the callers give the
  // set whenever NeedsXattrs says so).
  w.meta = msg::SubWriteMeta::kMtime;
  if (NeedsXattrs(state, p, meta) && meta.xattrs) {
    w.meta = msg::SubWriteMeta::kReplace;
    w.xattrs = *meta.xattrs;
  }
  return w;
}

std::set<int> ChangedPositions(const StripeLayout& layout, std::uint64_t old_size,
                               const WritePlan& plan, std::uint64_t length) {
  std::set<int> out;
  for (int id : layout.parity_ids()) out.insert(id);
  const std::size_t C = layout.chunk_size();
  const auto& data = layout.data_ids();
  // The chunks the new bytes cover, object chunk after object chunk (chunk i is data piece
  // i mod k of stripe i / k): at most k of them name every piece.
  if (length > 0) {
    const std::uint64_t first = plan.write_offset / C;
    const std::uint64_t last = (plan.write_offset + length - 1) / C;
    for (std::uint64_t i = first; i <= last && i - first < data.size(); ++i) {
      out.insert(data[static_cast<std::size_t>(i % data.size())]);
    }
  }
  for (unsigned p = 0; p < layout.chunk_count(); ++p) {
    const int id = static_cast<int>(p);
    if (layout.stored_size(plan.new_size, id) != layout.stored_size(old_size, id)) out.insert(id);
  }
  return out;
}

msg::ShardVersions VersionsAfter(const ObjectState& state, const std::set<int>& changed,
                                 std::uint64_t version, std::size_t positions) {
  msg::ShardVersions out(positions);
  bool uniform = true;
  for (std::size_t p = 0; p < positions; ++p) {
    const int id = static_cast<int>(p);
    out[p] = changed.count(id) != 0 ? version : state.VersionOf(id);
    uniform = uniform && out[p] == version;
  }
  if (uniform) out.clear();
  return out;
}

Result<std::vector<int>> SendSubWrites(const ObjectIo& io, const std::vector<int>& positions,
                                       std::vector<msg::SubWriteRequest> requests,
                                       std::vector<std::vector<Buffer>> payloads, int min_acks,
                                       int untouched) {
  std::map<int, std::uint64_t> versions;  // what a rollback of each position undoes
  for (const msg::SubWriteRequest& w : requests) versions[static_cast<int>(w.shard)] = w.version;
  // At log_level debug, each write's shards and outcome (with the shards' own lines, what a race
  // did to an object can be read back from the logs).
  const bool trace = spdlog::default_logger_raw()->should_log(spdlog::level::debug);
  std::string sent;
  if (trace) {
    for (const msg::SubWriteRequest& w : requests) {
      sent += fmt::format(" {}:{}->{}", w.shard, w.prev_version, w.version);
    }
  }
  // The other OSDs' first: this OSD's own shard may be written on this thread (shard_link.h),
  // and their writes should be on the wire meanwhile.
  Gather<Result<bool>> gather(positions.size());
  auto start = [&](std::size_t i) {
    auto done = gather.For(i);
    io.clients.at(positions[i])
        ->SubWriteAsync(
            std::move(requests[i]), std::move(payloads[i]),
            [done = std::move(done)](Status s) mutable {
              done(s.ok() ? Result<bool>(true) : Result<bool>(std::move(s)));
            },
            Call(io));
  };
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (io.clients.at(positions[i])->remote() != nullptr) start(i);
  }
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (io.clients.at(positions[i])->remote() == nullptr) start(i);
  }
  auto results = gather.Wait();
  std::vector<int> took;
  std::vector<std::string> silent;
  std::vector<int> silent_positions;     // may still apply the write (a late SubWrite)
  std::size_t silent_maybe_applied = 0;  // silent, but not for want of a connection
  std::optional<Status> real_error;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) {
      took.push_back(positions[i]);
    } else if (NoAnswer(results[i].status()) || StoreFailed(results[i].status())) {
      silent.push_back(OsdName(io, positions[i]) + ": " + results[i].status().message());
      if (results[i].status().code() != ECONNREFUSED) {
        ++silent_maybe_applied;
        silent_positions.push_back(positions[i]);
      }
    } else if (!real_error) {
      real_error = results[i].status().WithPrefix(OsdName(io, positions[i]));
    }
  }
  if (trace) {
    spdlog::debug(
        "pg {} object {}: write at epoch {} to{}: took [{}], min_acks {}, untouched {}, "
        "silent [{}], error {}",
        io.loc->pgid, io.object, io.epoch, sent, fmt::join(took, ","), min_acks, untouched,
        fmt::join(silent, "; "), real_error ? real_error->ToString() : "none");
  }
  if (!real_error && static_cast<int>(took.size()) >= min_acks) return took;
  const std::uint64_t version = versions.empty() ? 0 : versions.begin()->second;
  std::size_t undone = 0;
  std::vector<std::uint64_t> took_versions;
  for (int p : took) took_versions.push_back(versions.at(p));
  std::vector<int> not_undone;
  const Status rollback = RollBack(io, took, took_versions, &undone, &not_undone);
  // The write failed: the positions that may still change because of it (its late SubWrites, its
  // rollbacks that did not answer) must not count for the object's next partial write
  // (ObjectState::suspect).
  if (io.suspect_out != nullptr) {
    io.suspect_out->insert(silent_positions.begin(), silent_positions.end());
    io.suspect_out->insert(not_undone.begin(), not_undone.end());
  }
  // Shards that may still hold the write: those whose rollback failed (a newer primary may have
  // fenced them off, or their OSD died) and those that did not answer once the request was sent
  // (it may land yet; a refused connection sent nothing).
  // With k of them the next resolve may settle the write (roll it forward): its outcome is not
  // known, and a client must not retry it blindly (an append would apply twice). Below k it can
  // never be settled: the object stays at its old version and a retry is safe.
  // The positions the write left alone hold it as well (resolve.h).
  const std::size_t may_hold =
      (took.size() - undone) + silent_maybe_applied + static_cast<std::size_t>(untouched);
  // A small object's copy alone settles its version (resolve.h "Object forms"): one position sent
  // the write that may hold it is enough for it to be applied yet (the untouched positions of a
  // write of part of the copies are past them: they settle nothing alone).
  const bool copies = io.codec->form == msg::ObjectForm::kReplicas;
  const bool maybe_applied = copies ? (took.size() - undone) + silent_maybe_applied >= 1
                                    : static_cast<int>(may_hold) >= io.loc->k;
  if (maybe_applied) {
    return Status::Retryable(
        EINPROGRESS,
        fmt::format("pg {} object {}: the write of version {} reached {} of {} shards and could "
                    "not be undone on {} (it may still be applied when the object is next "
                    "settled): {}",
                    io.loc->pgid, io.object, version, took.size(), positions.size(), may_hold,
                    real_error
                        ? real_error->message()
                        : (rollback.ok() ? fmt::format("no answer from {}", fmt::join(silent, ", "))
                                         : rollback.message())));
  }
  if (real_error) {
    // A shard that is not where the write expected it (ESTALE) means the primary's view is old:
    // the client's retry resolves the object again.
    if (real_error->code() == ESTALE) return Status::Retryable(EAGAIN, real_error->message());
    return *real_error;
  }
  return Status::Retryable(
      EAGAIN, fmt::format("pg {} object {}: only {} of {} shards took the write (min_size {}); "
                          "no answer from {}",
                          io.loc->pgid, io.object, took.size(), positions.size(), min_acks,
                          fmt::join(silent, ", ")));
}

Result<std::vector<int>> EncodeAndSend(const ObjectIo& io, const ObjectState& state,
                                       const WritePlan& plan, const Buffer& data,
                                       std::uint64_t version, std::vector<int> targets,
                                       int min_acks, const msg::ShardVersions& versions,
                                       int untouched, const MetaUpdate& meta) {
  const StripeLayout& layout = io.codec->layout;
  const std::size_t C = layout.chunk_size();
  const std::size_t W = layout.stripe_width();
  const std::uint64_t base = plan.first_stripe * W;
  Buffer stripes = Buffer::Allocate(plan.stripes * W, true);
  std::byte* dst = const_cast<std::byte*>(stripes.data());
  for (const ObjectRange& r : plan.old_reads) {
    auto old = ReadObject(io, state, r.offset, r.length);
    if (!old.ok()) return old.status();
    if (old->bytes.size() != r.length) {
      return Status::Error(
          EIO, fmt::format("pg {} object {}: short read of old bytes", io.loc->pgid, io.object));
    }
    std::memcpy(dst + (r.offset - base), old->bytes.data(), r.length);
  }
  if (!data.empty()) std::memcpy(dst + (plan.write_offset - base), data.data(), data.size());
  // A replicated pool's copies are the data chunk's bytes: nothing to encode.
  const unsigned m = io.codec->replicated ? 0 : layout.m();
  std::vector<Buffer> parity;
  std::vector<std::span<std::byte>> parity_spans;
  for (unsigned j = 0; j < m; ++j) {
    parity.push_back(Buffer::Allocate(plan.stripes * C, false));
    parity_spans.emplace_back(const_cast<std::byte*>(parity.back().data()), plan.stripes * C);
  }
  if (plan.stripes > 0 && m > 0) {
    StripeCodec codec(*io.codec->code, layout);
    Status s = codec.EncodeObject(std::span<const std::byte>(stripes.data(), stripes.size()),
                                  plan.stripes, parity_spans);
    if (!s.ok()) return s;
  }

  // A write that makes the object anew (write_full, or any write when it does not exist) replaces
  // each shard whole: a shard that missed the object's remove still holds the removed object's
  // bytes, none of which may survive beside the new ones (a range write would keep them, or be
  // refused as shrinking the shard).
  const msg::SubWriteKind kind =
      plan.full || !state.exists ? msg::SubWriteKind::kFull : msg::SubWriteKind::kRange;
  std::vector<msg::SubWriteRequest> requests;
  std::vector<std::vector<Buffer>> payloads;
  for (int p : targets) {
    // Each shard gets its chunks of the re-encoded stripes up to what it stores (without
    // padding, a shard past the object's data gets none of those zeros, only its new length).
    const std::uint64_t stored = layout.stored_size(plan.new_size, p);
    msg::SubWriteRequest w =
        SubWriteFor(io, state, p, version, kind, plan.new_size, stored, versions, meta);
    std::vector<Buffer> payload;
    const std::uint64_t from = plan.first_stripe * C;
    const std::uint64_t length =
        stored <= from ? 0 : std::min<std::uint64_t>(plan.stripes * C, stored - from);
    if (length > 0) {
      w.extents.push_back({from, length});
      const int piece = layout.data_index(p);
      if (io.codec->replicated) {
        // k = 1: the stripes are the one data chunk's, back to back; every copy gets them.
        payload.push_back(stripes.Slice(0, length));
      } else if (piece >= 0) {
        for (std::uint64_t s = 0; s * C < length; ++s) {
          payload.push_back(
              stripes.Slice(s * W + piece * C, std::min<std::uint64_t>(C, length - s * C)));
        }
      } else {
        const auto& pids = layout.parity_ids();
        const auto j = std::find(pids.begin(), pids.end(), p) - pids.begin();
        payload.push_back(length == parity[j].size() ? parity[j] : parity[j].Slice(0, length));
      }
    }
    requests.push_back(std::move(w));
    payloads.push_back(std::move(payload));
  }
  return SendSubWrites(io, targets, std::move(requests), std::move(payloads), min_acks, untouched);
}

}  // namespace object_io_detail

namespace {

// A small overwrite inside one stripe of the object, by parity delta: read the old chunks it
// touches and the m parity chunks, and write those back (new data; parity + encode(old ^ new),
// which holds for every code here: each is linear over GF(2)). Shards it does not change get no
// SubWrite. Used when it reads fewer chunks than re-encoding the stripe would (the old bytes of
// the other pieces): at most m+1 chunk reads and m+1 chunk writes for a write inside one chunk,
// whatever k is. nullopt: not applicable.
std::optional<Result<std::vector<int>>> DeltaWrite(const ObjectIo& io, const ObjectState& state,
                                                   const WritePlan& plan, const Buffer& data,
                                                   std::uint64_t version, const PartialTargets& to,
                                                   const MetaUpdate& meta) {
  const StripeLayout& layout = io.codec->layout;
  if (plan.full || !state.exists || plan.stripes != 1 || data.empty()) return std::nullopt;
  if (layout.padded_shard_size(plan.new_size) != layout.padded_shard_size(state.size))
    return std::nullopt;
  const std::size_t C = layout.chunk_size();
  const std::size_t W = layout.stripe_width();
  const std::uint64_t s = plan.first_stripe;
  const std::uint64_t base = s * W;
  const std::size_t a = (plan.write_offset - base) / C;
  const std::size_t b = (plan.write_offset + data.size() - 1 - base) / C;
  std::set<std::size_t> rmw_pieces;
  for (const ObjectRange& r : plan.old_reads) {
    for (std::uint64_t p = (r.offset - base) / C; p <= (r.offset + r.length - 1 - base) / C; ++p) {
      rmw_pieces.insert(static_cast<std::size_t>(p));
    }
  }
  const std::size_t m = layout.m();
  if ((b - a + 1) + m >= rmw_pieces.size()) return std::nullopt;
  const std::set<int> current(state.current.begin(), state.current.end());
  std::vector<int> reads;  // positions read: touched data pieces, then parity
  for (std::size_t i = a; i <= b; ++i) reads.push_back(layout.data_ids()[i]);
  for (int id : layout.parity_ids()) reads.push_back(id);
  for (int p : reads) {
    if (current.count(p) == 0 || io.clients.count(p) == 0) return std::nullopt;
  }
  const std::vector<int>& targets = to.targets;
  if (static_cast<int>(targets.size()) < to.min_acks) return std::nullopt;

  // One round: every old chunk at once (the primary's own from its store).
  std::vector<Buffer> old(reads.size());
  std::vector<recovery::ShardReadRequest> requests(reads.size());
  for (std::size_t i = 0; i < reads.size(); ++i) {
    old[i] = Buffer::Allocate(C, false);
    requests[i].shard = reads[i];
    requests[i].extents = {{s * C, C}};
    requests[i].destination = std::span<std::byte>(const_cast<std::byte*>(old[i].data()), C);
  }
  msg::OsdShardSource::Options so;
  so.collection = io.loc->collection;
  so.object = io.object;
  so.call = Call(io);
  so.expect_version = state.version;
  so.expect_versions = ExpectedVersions(state);
  for (int p : reads) {
    if (msg::OsdClient* client = io.clients.at(p)->remote()) {
      so.shards[p] = msg::OsdShardSource::Holder{client, OsdName(io, p)};
    }
  }
  const std::map<int, std::uint64_t> old_sizes = StoredSizes(layout, state.size);
  so.shard_sizes = old_sizes;
  msg::OsdShardSource remote(std::move(so));
  PrimaryShardSource primary(&remote, io.shards, io.loc->collection, io.object, io.self_position,
                             state.version);
  primary.ExpectSizes(old_sizes);
  primary.ExpectVersions(ExpectedVersions(state));
  // Without padding, the old chunks' bytes past what their shards store are zeros, not read.
  recovery::StoredShardSource source(&primary, old_sizes);
  const std::vector<Status> got = recovery::ReadAll(source, requests);
  for (const Status& st : got) {
    if (!st.ok()) return std::nullopt;  // re-encoding the stripe copes with a missing shard
  }
  // New data chunks, and the delta stripe (zero outside the touched pieces).
  const std::size_t pieces = b - a + 1;
  Buffer fresh = Buffer::Allocate(pieces * C, false);
  std::byte* nd = const_cast<std::byte*>(fresh.data());
  for (std::size_t i = 0; i < pieces; ++i) std::memcpy(nd + i * C, old[i].data(), C);
  std::memcpy(nd + (plan.write_offset - base - a * C), data.data(), data.size());
  Buffer delta = Buffer::Allocate(W, true);
  std::byte* dd = const_cast<std::byte*>(delta.data());
  for (std::size_t i = 0; i < pieces; ++i) {
    for (std::size_t x = 0; x < C; ++x) dd[(a + i) * C + x] = nd[i * C + x] ^ old[i].data()[x];
  }
  std::vector<Buffer> parity;
  std::vector<std::span<std::byte>> spans;
  for (std::size_t j = 0; j < m; ++j) {
    parity.push_back(Buffer::Allocate(C, false));
    spans.emplace_back(const_cast<std::byte*>(parity.back().data()), C);
  }
  StripeCodec codec(*io.codec->code, layout);
  Status enc = codec.EncodeObject(std::span<const std::byte>(delta.data(), W), 1, spans);
  if (!enc.ok()) return Result<std::vector<int>>(enc);
  for (std::size_t j = 0; j < m; ++j) {
    std::byte* pd = spans[j].data();
    const std::byte* po = old[pieces + j].data();
    for (std::size_t x = 0; x < C; ++x) pd[x] ^= po[x];
  }
  std::vector<msg::SubWriteRequest> writes;
  std::vector<std::vector<Buffer>> payloads;
  for (int p : targets) {
    const std::uint64_t stored = layout.stored_size(plan.new_size, p);
    msg::SubWriteRequest w = SubWriteFor(io, state, p, version, msg::SubWriteKind::kRange,
                                         plan.new_size, stored, to.versions, meta);
    std::vector<Buffer> payload;
    const int piece = layout.data_index(p);
    const auto& pids = layout.parity_ids();
    const auto j = std::find(pids.begin(), pids.end(), p) - pids.begin();
    // The chunk up to what the shard stores (the rest is zeros without padding).
    const std::uint64_t length = stored <= s * C ? 0 : std::min<std::uint64_t>(C, stored - s * C);
    if (length > 0 && piece >= static_cast<int>(a) && piece <= static_cast<int>(b)) {
      payload.push_back(fresh.Slice((piece - a) * C, length));
    } else if (length > 0 && piece < 0 && j < static_cast<std::ptrdiff_t>(m)) {
      payload.push_back(parity[j].Slice(0, length));
    }
    if (!payload.empty()) w.extents.push_back({s * C, length});
    writes.push_back(std::move(w));
    payloads.push_back(std::move(payload));
  }
  return SendSubWrites(io, targets, std::move(writes), std::move(payloads), to.min_acks,
                       to.untouched);
}

// A write of part of an object of a replicated pool: every copy gets exactly the new bytes (from
// the old end when the write starts past it, the gap as zeros), nothing is read first and nothing
// encoded; each copy's undo record keeps the old bytes of that range. nullopt: not applicable.
std::optional<Result<std::vector<int>>> ReplicaRangeWrite(
    const ObjectIo& io, const ObjectState& state, const WritePlan& plan, const Buffer& data,
    std::uint64_t version, const PartialTargets& to, const MetaUpdate& meta) {
  if (!io.codec->replicated || plan.full || !state.exists || data.empty()) return std::nullopt;
  const std::uint64_t from = std::min(plan.write_offset, state.size);
  Buffer bytes = data;
  if (from < plan.write_offset) {
    const std::size_t gap = static_cast<std::size_t>(plan.write_offset - from);
    bytes = Buffer::Allocate(gap + data.size(), false);
    std::byte* out = const_cast<std::byte*>(bytes.data());
    std::memset(out, 0, gap);
    std::memcpy(out + gap, data.data(), data.size());
  }
  std::vector<msg::SubWriteRequest> writes;
  std::vector<std::vector<Buffer>> payloads;
  for (int p : to.targets) {
    msg::SubWriteRequest w = SubWriteFor(io, state, p, version, msg::SubWriteKind::kRange,
                                         plan.new_size, plan.new_size, to.versions, meta);
    w.extents.push_back({from, bytes.size()});
    writes.push_back(std::move(w));
    payloads.push_back({bytes});
  }
  return SendSubWrites(io, to.targets, std::move(writes), std::move(payloads), to.min_acks,
                       to.untouched);
}

}  // namespace

namespace object_io_detail {

ObjectState After(const ObjectState& before, std::uint64_t version, const std::set<int>& changed,
                  const std::vector<int>& took) {
  ObjectState next;
  next.version = version;
  const std::set<int> reached(took.begin(), took.end());
  for (int p : before.current) {
    if (reached.count(p) != 0 || changed.count(p) == 0) {
      next.current.push_back(p);
    } else {
      next.stale[p] = before.VersionOf(p);
    }
  }
  for (int p : took) {
    if (std::find(before.current.begin(), before.current.end(), p) == before.current.end()) {
      next.current.push_back(p);
    }
  }
  for (const auto& [p, v] : before.stale) {
    if (reached.count(p) == 0) next.stale[p] = v;
  }
  for (int p : before.suspect) {
    if (reached.count(p) == 0) next.suspect.insert(p);
  }
  std::sort(next.current.begin(), next.current.end());
  return next;
}

std::set<int> AllPositions(const ObjectIo& io) {
  std::set<int> all;
  for (std::size_t p = 0; p < io.loc->acting.size(); ++p) all.insert(static_cast<int>(p));
  return all;
}

Result<PartialTargets> PlanPartial(const ObjectIo& io, const ObjectState& state,
                                   std::set<int> changed, std::uint64_t version, int min_size) {
  PartialTargets to;
  to.changed = std::move(changed);
  // A suspect position is rewritten, not counted as holding the write (ObjectState::suspect).
  to.changed.insert(state.suspect.begin(), state.suspect.end());
  int untouched_up = 0;
  for (int p : state.current) {
    const bool up = io.clients.count(p) != 0;
    if (to.changed.count(p) != 0) {
      if (up) to.targets.push_back(p);
    } else {
      ++to.untouched;
      if (up) ++untouched_up;
    }
  }
  to.versions = VersionsAfter(state, to.changed, version, io.loc->acting.size());
  to.min_acks = std::max(1, min_size - untouched_up);
  if (static_cast<int>(to.targets.size()) < to.min_acks) {
    return Status::Retryable(
        EAGAIN, fmt::format("pg {} object {}: {} shards can take the write and {} more hold the "
                            "object, fewer than min_size {}",
                            io.loc->pgid, io.object, to.targets.size(), untouched_up, min_size));
  }
  return to;
}

std::shared_ptr<const ObjectMeta> MetaAfter(const MetaUpdate& meta) {
  if (!meta.xattrs) return nullptr;
  return std::make_shared<const ObjectMeta>(ObjectMeta{meta.mtime, *meta.xattrs});
}

}  // namespace object_io_detail

Result<ObjectState> WriteObject(const ObjectIo& io, const ObjectState& state, const WritePlan& plan,
                                const Buffer& data, std::uint64_t version, int min_size,
                                MetaUpdate meta) {
  if (!plan.full && plan.stripes == 0 && state.exists) return state;  // nothing changes
  const StripeLayout& layout = io.codec->layout;
  if (state.exists && state.form != io.codec->form && !plan.full) {
    return Status::Invalid(fmt::format("pg {} object {}: a change of form must rewrite it whole",
                                       io.loc->pgid, io.object));
  }
  if (!meta.xattrs && !state.exists) meta.xattrs.emplace();  // a new object has none
  if (!meta.xattrs && state.meta) meta.xattrs = state.meta->xattrs;
  ObjectState next;
  if (!plan.full && state.exists) {
    // Part of the object: only the shards whose bytes or length change, and the parity (all of
    // them current: they keep their xattrs).
    auto to = PlanPartial(io, state, ChangedPositions(layout, state.size, plan, data.size()),
                          version, min_size);
    if (!to.ok()) return to.status();
    bool delta = !io.codec->replicated;
    auto took = io.codec->replicated ? ReplicaRangeWrite(io, state, plan, data, version, *to, meta)
                                     : DeltaWrite(io, state, plan, data, version, *to, meta);
    if (!took) {
      delta = false;
      took = EncodeAndSend(io, state, plan, data, version, to->targets, to->min_acks, to->versions,
                           to->untouched, meta);
    }
    if (!took->ok()) return took->status();
    next = After(state, version, to->changed, **took);
    next.versions = to->versions;
    next.delta = delta;
  } else {
    // A whole rewrite (or the first write): every shard, the stale ones too, which are given
    // the object's xattrs.
    auto targets = Targets(io, state, min_size, "write");
    if (!targets.ok()) return targets.status();
    const bool need = std::any_of(targets->begin(), targets->end(),
                                  [&](int p) { return NeedsXattrs(state, p, meta); });
    if (need && !meta.xattrs) {
      auto known = ReadObjectMeta(io, state);
      if (!known.ok()) return known.status();
      meta.xattrs = std::move(known->xattrs);
    }
    auto took = EncodeAndSend(io, state, plan, data, version, std::move(targets).value(), min_size,
                              {}, 0, meta);
    if (!took.ok()) return took.status();
    next = After(state, version, AllPositions(io), *took);
  }
  next.form = io.codec->form;
  next.exists = true;
  next.size = plan.new_size;
  next.meta = MetaAfter(meta);
  return next;
}

Result<ObjectState> RemoveObject(const ObjectIo& io, const ObjectState& state,
                                 std::uint64_t version, int min_size) {
  if (!state.exists) {
    return Status::NotFound(
        fmt::format("object {} does not exist in pg {}", io.object, io.loc->pgid));
  }
  auto targets = Targets(io, state, min_size, "remove");
  if (!targets.ok()) return targets.status();
  std::vector<msg::SubWriteRequest> requests;
  std::vector<std::vector<Buffer>> payloads(targets->size());
  for (int p : *targets) {
    requests.push_back(
        SubWriteFor(io, state, p, version, msg::SubWriteKind::kRemove, 0, 0, {}, MetaUpdate{}));
  }
  auto took = SendSubWrites(io, *targets, std::move(requests), std::move(payloads), min_size, 0);
  if (!took.ok()) return took.status();
  ObjectState next = After(state, version, AllPositions(io), *took);
  next.exists = false;
  return next;
}

}  // namespace ec::osd::pg
