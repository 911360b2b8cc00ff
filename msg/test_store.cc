#include "msg/test_store.h"

#include <algorithm>
#include <cstdlib>

namespace ec::msg {

MemoryShardStore::MemoryShardStore(Options options) : options_(options) {
  if (options_.async) {
    worker_ = std::thread([this] {
      std::unique_lock lock(mu_);
      while (true) {
        cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        Job job = std::move(jobs_.front());
        jobs_.pop_front();
        lock.unlock();
        std::this_thread::sleep_until(job.due);
        Execute(job.request, *job.responder);
        lock.lock();
      }
    });
  }
}

MemoryShardStore::~MemoryShardStore() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void MemoryShardStore::Handle(Request request, std::shared_ptr<Responder> responder) {
  {
    std::lock_guard lock(mu_);
    ++requests_seen_;
    const std::uint32_t n = ++outstanding_[request.connection_id];
    max_outstanding_ = std::max(max_outstanding_, n);
  }
  if (!options_.async) return Execute(request, *responder);
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(Job{std::chrono::steady_clock::now() + options_.delay, std::move(request),
                        std::move(responder)});
  }
  cv_.notify_one();
}

void MemoryShardStore::Answered(std::uint64_t connection_id) {
  std::lock_guard lock(mu_);
  --outstanding_[connection_id];
}

void MemoryShardStore::Execute(Request& request, Responder& responder) {
  // The outstanding count drops before the reply is queued: the server may read the next request
  // as soon as the reply is written.
  Answered(request.connection_id);
  std::unique_lock lock(mu_);
  auto shard_of = [&](const std::string& coll, const std::string& object,
                      std::uint32_t shard) -> Shard* {
    auto c = colls_.find(coll);
    if (c == colls_.end()) return nullptr;
    auto s = c->second.find(Key{object, shard});
    return s == c->second.end() ? nullptr : &s->second;
  };
  auto missing = [](const std::string& object) {
    return Status::NotFound("no such shard: " + object);
  };
  if (auto* m = std::get_if<PingRequest>(&request.body)) {
    lock.unlock();
    Buffer out = Buffer::Allocate(m->response_len, false);
    std::vector<Buffer> payload;
    if (!out.empty()) payload.push_back(out);
    (void)responder.Send(PingReply{}, std::move(payload));
  } else if (auto* m = std::get_if<WriteShardRequest>(&request.body)) {
    const std::uint64_t end = m->offset + request.payload.size();  // no overflow: validated
    if (end > (std::uint64_t{1} << 30)) {
      lock.unlock();
      (void)responder.SendError(Status::Error(EFBIG, "the memory store keeps shards < 1 GiB"));
      return;
    }
    Shard& s = colls_[m->collection][Key{m->object, m->shard}];
    if (m->flags & kWriteReplace) s.data.clear();
    if (s.data.size() < end) s.data.resize(end, '\0');
    std::copy_n(reinterpret_cast<const char*>(request.payload.data()), request.payload.size(),
                s.data.begin() + static_cast<std::ptrdiff_t>(m->offset));
    s.version = m->version;
    for (const Attr& a : m->attrs) s.attrs[a.key] = a.value;
    lock.unlock();
    (void)responder.Send(WriteShardReply{});
  } else if (auto* m = std::get_if<ReadShardRequest>(&request.body)) {
    Shard* s = shard_of(m->collection, m->object, m->shard);
    if (s == nullptr) {
      lock.unlock();
      (void)responder.SendError(missing(m->object));
      return;
    }
    ReadShardReply reply;
    reply.object_size = s->data.size();
    reply.version = s->version;
    std::vector<Buffer> payload;
    for (const ByteExtent& e : m->extents) {
      const std::uint64_t off = std::min<std::uint64_t>(e.offset, s->data.size());
      const std::uint64_t len = std::min<std::uint64_t>(e.length, s->data.size() - off);
      reply.lengths.push_back(len);
      if (len > 0) payload.push_back(Buffer::Copy(AsBytes(s->data.data() + off, len)));
    }
    lock.unlock();
    (void)responder.Send(std::move(reply), std::move(payload));
  } else if (auto* m = std::get_if<StatRequest>(&request.body)) {
    Shard* s = shard_of(m->collection, m->object, m->shard);
    if (s == nullptr) {
      lock.unlock();
      (void)responder.SendError(missing(m->object));
      return;
    }
    StatReply reply;
    reply.size = s->data.size();
    reply.version = s->version;
    for (const auto& [k, v] : s->attrs) reply.attrs.push_back(Attr{k, v});
    lock.unlock();
    (void)responder.Send(std::move(reply));
  } else if (auto* m = std::get_if<ListRequest>(&request.body)) {
    // Cursor: "<object>\0<shard>" of the last entry returned.
    ListReply reply;
    auto c = colls_.find(m->collection);
    if (c != colls_.end()) {
      auto it = c->second.begin();
      if (!m->cursor.empty()) {
        const std::size_t nul = m->cursor.find('\0');
        Key after{m->cursor.substr(0, nul), 0};
        if (nul != std::string::npos) {
          after.second =
              static_cast<std::uint32_t>(std::strtoul(m->cursor.c_str() + nul + 1, nullptr, 10));
        }
        it = c->second.upper_bound(after);
      }
      for (; it != c->second.end() && reply.entries.size() < m->max_entries; ++it) {
        reply.entries.push_back(ListEntry{it->first.first, it->first.second});
      }
      reply.end = it == c->second.end();
      if (!reply.end) {
        const ListEntry& last = reply.entries.back();
        reply.next_cursor = last.object + std::string(1, '\0') + std::to_string(last.shard);
      }
    }
    lock.unlock();
    (void)responder.Send(std::move(reply));
  } else if (auto* m = std::get_if<RemoveRequest>(&request.body)) {
    auto c = colls_.find(m->collection);
    const bool found = c != colls_.end() && c->second.erase(Key{m->object, m->shard}) > 0;
    lock.unlock();
    (void)(found ? responder.Send(RemoveReply{}) : responder.SendError(missing(m->object)));
  }
}

std::uint32_t MemoryShardStore::max_outstanding_per_connection() const {
  std::lock_guard lock(mu_);
  return max_outstanding_;
}

std::uint64_t MemoryShardStore::requests_seen() const {
  std::lock_guard lock(mu_);
  return requests_seen_;
}

std::size_t MemoryShardStore::shard_count() const {
  std::lock_guard lock(mu_);
  std::size_t n = 0;
  for (const auto& [name, c] : colls_) n += c.size();
  return n;
}

}  // namespace ec::msg
