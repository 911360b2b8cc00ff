#include "recovery/stored_shard_source.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "ec/buffer.h"

namespace ec::recovery {

namespace {

// One outer request cut at its shard's stored length.
struct Cut {
  std::size_t outer = 0;             // index in the caller's requests
  std::vector<Extent> stored;        // the stored parts of its extents, in order
  std::vector<std::size_t> dest_at;  // where each stored part lands in the destination
  std::uint64_t stored_bytes = 0;
  bool prefix = true;  // the stored parts fill a prefix of the destination
  Buffer scratch;      // when they do not: read here, then scattered
};

}  // namespace

void StoredShardSource::ReadAsync(std::span<const ShardReadRequest> requests, Completion done) {
  struct State {
    std::vector<ShardReadRequest> inner;  // what goes to inner_ (valid until its last completion)
    std::vector<Cut> cuts;                // parallel to `inner`
    std::vector<ShardReadRequest> outer;  // the caller's requests (destinations borrowed)
  };
  auto state = std::make_shared<State>();
  std::vector<std::size_t> nothing_to_send;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const ShardReadRequest& r = requests[i];
    auto it = stored_.find(r.shard);
    const std::uint64_t end = it == stored_.end() ? UINT64_MAX : it->second;
    Cut cut;
    cut.outer = i;
    bool clipped = false;
    bool seen_zero = false;
    std::size_t at = 0;
    for (const Extent& e : r.extents) {
      const std::uint64_t keep =
          e.offset >= end ? 0 : std::min<std::uint64_t>(e.length, end - e.offset);
      if (keep > 0) {
        if (seen_zero) cut.prefix = false;
        cut.stored.push_back({e.offset, keep});
        cut.dest_at.push_back(at);
        cut.stored_bytes += keep;
      }
      if (keep < e.length) clipped = true, seen_zero = true;
      at += static_cast<std::size_t>(e.length);
    }
    if (!clipped) {
      state->inner.push_back(r);
      state->cuts.push_back(std::move(cut));
      state->cuts.back().prefix = true;
      continue;
    }
    // Every byte past the stored length is a zero of the padded shard.
    std::memset(r.destination.data(), 0, r.destination.size());
    if (cut.stored_bytes == 0) {
      nothing_to_send.push_back(i);
      continue;
    }
    ShardReadRequest in;
    in.shard = r.shard;
    in.extents = cut.stored;
    if (cut.prefix) {
      in.destination = r.destination.first(static_cast<std::size_t>(cut.stored_bytes));
    } else {
      cut.scratch = Buffer::Allocate(static_cast<std::size_t>(cut.stored_bytes), false);
      in.destination = {cut.scratch.data(), cut.scratch.size()};
    }
    state->inner.push_back(std::move(in));
    state->cuts.push_back(std::move(cut));
  }
  state->outer.assign(requests.begin(), requests.end());
  if (!state->inner.empty()) {
    inner_->ReadAsync(state->inner, [state, done](std::size_t j, Status s) {
      Cut& cut = state->cuts[j];
      if (s.ok() && !cut.prefix) {
        std::byte* dest = state->outer[cut.outer].destination.data();
        std::size_t from = 0;
        for (std::size_t x = 0; x < cut.stored.size(); ++x) {
          std::memcpy(dest + cut.dest_at[x], cut.scratch.data() + from,
                      static_cast<std::size_t>(cut.stored[x].length));
          from += static_cast<std::size_t>(cut.stored[x].length);
        }
      }
      done(cut.outer, std::move(s));
    });
  }
  for (std::size_t i : nothing_to_send) done(i, Status::OK());
}

}  // namespace ec::recovery
