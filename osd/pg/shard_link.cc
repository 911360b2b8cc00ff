#include "osd/pg/shard_link.h"

#include <cstring>
#include <future>

#include "osd/pg/pull_service.h"

namespace ec::osd::pg {
namespace {

// Calls `start(done)` and waits for `done`'s value. The promise is shared with the callback, so
// that it outlives a completion still returning from set_value when the caller has moved on.
template <typename T, typename Start>
T Wait(Start start) {
  auto reply = std::make_shared<std::promise<T>>();
  auto got = reply->get_future();
  start([reply](T r) { reply->set_value(std::move(r)); });
  return got.get();
}

// The payload as one buffer, as the ShardService takes it (what the messenger would have
// received): the only one without a copy, several gathered into one.
Buffer Joined(std::vector<Buffer> parts) {
  if (parts.empty()) return Buffer();
  if (parts.size() == 1) return std::move(parts.front());
  std::size_t total = 0;
  for (const Buffer& b : parts) total += b.size();
  Buffer out = Buffer::Allocate(total, false);
  std::byte* dst = const_cast<std::byte*>(out.data());
  for (const Buffer& b : parts) {
    if (b.size() > 0) std::memcpy(dst, b.data(), b.size());
    dst += b.size();
  }
  return out;
}

}  // namespace

std::shared_ptr<ShardLink> ShardLink::Remote(std::shared_ptr<msg::OsdClient> client) {
  std::shared_ptr<ShardLink> link(new ShardLink());
  link->client_ = std::move(client);
  return link;
}

std::shared_ptr<ShardLink> ShardLink::Local(shard::ShardService* shards, PullService* pulls) {
  std::shared_ptr<ShardLink> link(new ShardLink());
  link->shards_ = shards;
  link->pulls_ = pulls;
  return link;
}

void ShardLink::SubWriteAsync(msg::SubWriteRequest request, std::vector<Buffer> data,
                              msg::StatusCallback done, msg::CallOptions options) {
  if (shards_ == nullptr) {
    return client_->SubWriteAsync(std::move(request), std::move(data), std::move(done), options);
  }
  // The caller (a PG worker) may wait for the device: a lone small write runs on it (started
  // after the remote ones, SendSubWrites).
  shards_->SubWrite(std::move(request), Joined(std::move(data)), std::move(done),
                    shard::Caller::kLocal, shard::InlineHint{true, false});
}

void ShardLink::SubResolveAsync(msg::SubResolveRequest request, msg::Callback<std::uint64_t> done,
                                msg::CallOptions options) {
  if (shards_ == nullptr)
    return client_->SubResolveAsync(std::move(request), std::move(done), options);
  shards_->SubResolve(std::move(request), std::move(done));
}

void ShardLink::SubStateAsync(msg::SubStateRequest request, msg::Callback<msg::SubStateReply> done,
                              msg::CallOptions options) {
  if (shards_ == nullptr)
    return client_->SubStateAsync(std::move(request), std::move(done), options);
  shards_->SubState(std::move(request), std::move(done));
}

void ShardLink::SubScanAsync(msg::SubScanRequest request, msg::Callback<msg::SubScanReply> done,
                             msg::CallOptions options) {
  if (shards_ == nullptr)
    return client_->SubScanAsync(std::move(request), std::move(done), options);
  shards_->SubScan(std::move(request), std::move(done));
}

Result<msg::StatResult> ShardLink::Stat(msg::StatRequest request, msg::CallOptions options) {
  if (shards_ == nullptr) return client_->Stat(std::move(request), options);
  Result<msg::StatReply> got = Wait<Result<msg::StatReply>>(
      [&](auto done) { shards_->Stat(std::move(request), std::move(done)); });
  if (!got.ok()) return got.status();
  return msg::StatResult{got->size, got->version, std::move(got->attrs)};
}

Result<msg::ListResult> ShardLink::List(msg::ListRequest request, msg::CallOptions options) {
  if (shards_ == nullptr) return client_->List(std::move(request), options);
  Result<msg::ListReply> page = Wait<Result<msg::ListReply>>(
      [&](auto done) { shards_->List(std::move(request), std::move(done)); });
  if (!page.ok()) return page.status();
  return msg::ListResult{std::move(page->entries), std::move(page->next_cursor), page->end};
}

void ShardLink::SubPullAsync(msg::SubPullRequest request, msg::Callback<msg::SubPullReply> done,
                             msg::CallOptions options) {
  if (shards_ == nullptr)
    return client_->SubPullAsync(std::move(request), std::move(done), options);
  if (pulls_ == nullptr) {
    return done(Status::Error(ENOTSUP, "this OSD has no pull service"));
  }
  // As OsdService admits a SubPull from the network: an earlier interval's is refused.
  if (Status admitted = shards_->Admit(request.collection, request.epoch, "SubPull");
      !admitted.ok()) {
    return done(admitted);
  }
  pulls_->Pull(std::move(request), std::move(done));
}

Result<msg::SubPullReply> ShardLink::SubPull(msg::SubPullRequest request,
                                             msg::CallOptions options) {
  if (shards_ == nullptr) return client_->SubPull(std::move(request), options);
  return Wait<Result<msg::SubPullReply>>(
      [&](auto done) { SubPullAsync(std::move(request), std::move(done)); });
}

void ShardLink::ReadBatchAsync(msg::SubReadBatchRequest request,
                               msg::Callback<std::vector<msg::ReadBatchItem>> done,
                               msg::CallOptions options) {
  if (shards_ == nullptr)
    return client_->ReadBatchAsync(std::move(request), std::move(done), options);
  shards_->ReadBatch(std::move(request), std::move(done));
}

}  // namespace ec::osd::pg
