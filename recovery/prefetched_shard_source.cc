#include "recovery/prefetched_shard_source.h"

#include <cstring>
#include <memory>
#include <string>

namespace ec::recovery {

Status PrefetchedShardSource::Add(int shard, std::vector<Extent> extents, Status status,
                                  std::vector<Buffer> bytes) {
  std::uint64_t size = 0;
  if (status.ok()) {
    std::uint64_t sum = 0;
    for (const Extent& e : extents) sum += e.length;
    for (const Buffer& b : bytes) size += b.size();
    if (sum != size) {
      return Status::Invalid("prefetched bytes of shard " + std::to_string(shard) + ": " +
                             std::to_string(size) + " for extents of " + std::to_string(sum));
    }
  } else {
    bytes.clear();
  }
  entries_.push_back(
      Entry{shard, std::move(extents), std::move(status), std::move(bytes), size, false});
  return Status::OK();
}

PrefetchedShardSource::Entry* PrefetchedShardSource::Find(const ShardReadRequest& r) {
  for (Entry& e : entries_) {
    if (e.shard == r.shard && e.extents == r.extents) return &e;
  }
  return nullptr;
}

void PrefetchedShardSource::ReadAsync(std::span<const ShardReadRequest> requests, Completion done) {
  // The requests that go on, and their indices in `requests`. Kept alive until the inner
  // source's last completion (the ShardSource contract), as the inner source's view of them.
  struct Forwarded {
    std::vector<ShardReadRequest> requests;
    std::vector<std::size_t> index;
    Completion done;
  };
  auto forwarded = std::make_shared<Forwarded>();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const ShardReadRequest& r = requests[i];
    Entry* e = Find(r);
    if (e == nullptr) {
      forwarded->requests.push_back(r);
      forwarded->index.push_back(i);
      continue;
    }
    if (!e->status.ok()) {
      done(i, e->status);
      continue;
    }
    // Equal extents, so equal sizes: the destination holds exactly the entry's bytes.
    std::byte* to = r.destination.data();
    for (const Buffer& b : e->bytes) {
      if (b.empty()) continue;
      std::memcpy(to, b.data(), b.size());
      to += b.size();
    }
    {
      std::lock_guard lock(mu_);
      e->used = true;
    }
    done(i, Status::OK());
  }
  if (forwarded->requests.empty()) return;
  forwarded->done = std::move(done);
  const std::span<const ShardReadRequest> view(forwarded->requests);
  inner_->ReadAsync(view, [forwarded](std::size_t j, Status s) {
    forwarded->done(forwarded->index[j], std::move(s));
  });
}

std::vector<PrefetchedShardSource::UsedEntry> PrefetchedShardSource::Used() const {
  std::vector<UsedEntry> out;
  std::lock_guard lock(mu_);
  for (const Entry& e : entries_) {
    if (e.used) out.push_back(UsedEntry{e.shard, e.extents, e.size});
  }
  return out;
}

}  // namespace ec::recovery
