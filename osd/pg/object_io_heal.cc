// object_io.h: healing stale shards by a push from the primary (the object read whole and each
// stale shard rewritten at its version, or removed).
#include <algorithm>

#include "osd/pg/object_io.h"
#include "osd/pg/object_io_internal.h"

namespace ec::osd::pg {

using object_io_detail::EncodeAndSend;
using object_io_detail::SendSubWrites;
using object_io_detail::SubWriteFor;

ObjectState HealStale(const ObjectIo& io, const ObjectState& state, std::uint64_t max_size) {
  std::vector<int> targets;
  for (const auto& [p, v] : state.stale) {
    if (io.clients.count(p) != 0) targets.push_back(p);
  }
  if (targets.empty() || (state.exists && state.size > max_size)) return state;
  Result<std::vector<int>> healed = std::vector<int>{};
  if (state.exists) {
    auto whole = ReadObject(io, state, 0, state.size);
    if (!whole.ok()) return state;
    auto meta = ReadObjectMeta(io, state);
    if (!meta.ok()) return state;
    WritePlan plan;
    plan.full = true;
    plan.new_size = state.size;
    plan.stripes = io.codec->layout.stripes_of(state.size);
    // Each stale shard at the version the object's versions give its position, with the
    // object's metadata.
    MetaUpdate update;
    update.mtime = meta->mtime;
    update.xattrs = std::move(meta->xattrs);
    healed = EncodeAndSend(io, state, plan, whole->bytes, state.version, targets, 1, state.versions,
                           0, update);
  } else {
    std::vector<msg::SubWriteRequest> requests;
    std::vector<std::vector<Buffer>> payloads(targets.size());
    for (int p : targets) {
      requests.push_back(
          SubWriteFor(io, state, p, state.version, msg::SubWriteKind::kRemove, 0, 0, {}, {}));
    }
    healed = SendSubWrites(io, targets, std::move(requests), std::move(payloads), 1, 0);
  }
  if (!healed.ok()) return state;
  ObjectState next = state;
  for (int p : *healed) {
    next.stale.erase(p);
    next.current.push_back(p);
  }
  std::sort(next.current.begin(), next.current.end());
  return next;
}

}  // namespace ec::osd::pg
