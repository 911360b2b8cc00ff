#include "msg/client.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio.hpp>
#include <future>
#include <optional>
#include <thread>

#include "common/thread_name.h"
#include "common/thread_nice.h"
#include "msg/client_calls.h"
#include "msg/client_connection.h"
#include "msg/io_threads.h"

namespace ec::msg {

namespace asio = boost::asio;
using detail::Call;
using detail::ClientConnection;
using detail::ClientShutdown;
using detail::MakeCall;
using detail::StatusOnly;
using detail::Typed;
using detail::Wait;
using detail::WaitStatus;

void OsdClient::Impl::Submit(Call call) {
  if (closed_) return call.done(ClientShutdown(), {}, {});
  if (call.timeout.count() <= 0) call.timeout = ctx_.options.request_timeout;
  call.header_crc = Crc32c(call.header);
  for (const Buffer& b : call.payload) {
    call.payload_crc = Crc32cExtend(call.payload_crc, b.span());
    call.payload_len += b.size();
  }
  if (call.payload_len > UINT32_MAX) {
    return call.done(Status::Error(EMSGSIZE, "payload larger than 4 GiB"), {}, {});
  }
  const std::size_t i = next_conn_.fetch_add(1) % conns_.size();
  conns_[i]->Submit(std::move(call));
}

Status OsdClient::Impl::ConnectAll() {
  if (closed_) return ClientShutdown();
  std::vector<std::future<Status>> results;
  for (auto& c : conns_) {
    auto p = std::make_shared<std::promise<Status>>();
    results.push_back(p->get_future());
    c->EnsureConnected([p](Status s) { p->set_value(std::move(s)); });
  }
  Status first;
  for (auto& f : results) {
    Status s = f.get();
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first;
}

void OsdClient::Impl::Close() {
  if (closed_.exchange(true)) return;
  for (auto& c : conns_) c->Close();
}

Result<std::unique_ptr<OsdClient>> OsdClient::Create(ClientOptions options) {
  if (options.port == 0) return Status::Invalid("client: port 0");
  if (options.connections < 1 || options.connections > 64) {
    return Status::Invalid(
        fmt::format("client: connections {} out of range 1..64", options.connections));
  }
  if (options.io_threads < 1 || options.io_threads > 64) {
    return Status::Invalid(
        fmt::format("client: io_threads {} out of range 1..64", options.io_threads));
  }
  if (options.auth == auth::AuthMode::kCephx) {
    if (Status named = auth::EntityName::Parse(options.entity).status(); !named.ok()) {
      return named.WithPrefix("client: auth cephx");
    }
  }
  auto impl = std::make_shared<Impl>(std::move(options));
  for (int i = 0; i < impl->ctx_.options.connections; ++i) {
    impl->conns_.push_back(std::make_shared<ClientConnection>(impl->context_, i));
  }
  const int own_threads = impl->own_io_ ? impl->ctx_.options.io_threads : 0;
  for (int i = 0; i < own_threads; ++i) {
    impl->threads_.emplace_back([raw = impl.get()] {
      if (raw->ctx_.options.io_nice != 0) {
        Status niced = NiceCurrentThread(raw->ctx_.options.io_nice);
        if (!niced.ok()) raw->ctx_.log->warn("osd client: io thread nice: {}", niced.message());
      }
      NameCurrentThread("msg-client");
      raw->own_io_->run();
    });
  }
  return std::unique_ptr<OsdClient>(new OsdClient(std::move(impl)));
}

OsdClient::OsdClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

OsdClient::~OsdClient() {
  impl_->Close();
  impl_->Join();
  impl_->conns_.clear();
}

Status OsdClient::Connect() {
  return impl_->ConnectAll();
}
void OsdClient::Close() {
  impl_->Close();
}

ClientCounters OsdClient::counters() const {
  const auto& a = impl_->ctx_.counters;
  ClientCounters c;
  c.requests_sent = a.requests_sent;
  c.replies_received = a.replies_received;
  c.timeouts = a.timeouts;
  c.connects = a.connects;
  c.connection_failures = a.connection_failures;
  c.bytes_out = a.bytes_out;
  c.bytes_in = a.bytes_in;
  c.auth_failures = a.auth_failures;
  return c;
}

void OsdClient::PingAsync(std::vector<Buffer> request_payload, std::uint32_t response_len,
                          Callback<Buffer> done, CallOptions options) {
  impl_->Submit(MakeCall(
      PingRequest{response_len}, std::move(request_payload), options,
      Typed<PingReply, Buffer>(std::move(done), [response_len](const PingReply&, Buffer p) {
        if (p.size() != response_len) {
          return Result<Buffer>(Status::Error(EBADMSG, "ping reply of wrong size"));
        }
        return Result<Buffer>(std::move(p));
      })));
}

Result<Buffer> OsdClient::Ping(std::vector<Buffer> request_payload, std::uint32_t response_len,
                               CallOptions options) {
  return Wait<Buffer>([&](Callback<Buffer> cb) {
    PingAsync(std::move(request_payload), response_len, std::move(cb), options);
  });
}

void OsdClient::WriteShardAsync(WriteShardRequest request, std::vector<Buffer> data,
                                StatusCallback done, CallOptions options) {
  impl_->Submit(
      MakeCall(std::move(request), std::move(data), options, StatusOnly(std::move(done))));
}

Status OsdClient::WriteShard(WriteShardRequest request, std::vector<Buffer> data,
                             CallOptions options) {
  return WaitStatus([&](StatusCallback cb) {
    WriteShardAsync(std::move(request), std::move(data), std::move(cb), options);
  });
}

void OsdClient::ReadShardAsync(ReadShardRequest request, Callback<ReadShardResult> done,
                               CallOptions options) {
  std::vector<ByteExtent> asked = request.extents;
  auto convert = [asked = std::move(asked)](const ReadShardReply& r,
                                            Buffer payload) -> Result<ReadShardResult> {
    if (r.lengths.size() != asked.size()) {
      return Status::Error(EBADMSG, fmt::format("ReadShard reply has {} lengths for {} extents",
                                                r.lengths.size(), asked.size()));
    }
    ReadShardResult out;
    out.object_size = r.object_size;
    out.version = r.version;
    std::uint64_t pos = 0;
    for (std::size_t i = 0; i < asked.size(); ++i) {
      if (r.lengths[i] > asked[i].length || r.lengths[i] > payload.size() - pos) {
        return Status::Error(EBADMSG, fmt::format("ReadShard reply length {} of extent {} does "
                                                  "not fit the request or the payload",
                                                  r.lengths[i], i));
      }
      out.extents.push_back(payload.Slice(pos, r.lengths[i]));
      pos += r.lengths[i];
    }
    if (pos != payload.size()) {
      return Status::Error(EBADMSG, fmt::format("ReadShard reply payload {} != sum of lengths {}",
                                                payload.size(), pos));
    }
    return out;
  };
  impl_->Submit(
      MakeCall(std::move(request), {}, options,
               Typed<ReadShardReply, ReadShardResult>(std::move(done), std::move(convert))));
}

Result<ReadShardResult> OsdClient::ReadShard(ReadShardRequest request, CallOptions options) {
  return Wait<ReadShardResult>([&](Callback<ReadShardResult> cb) {
    ReadShardAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::ReadBatchAsync(SubReadBatchRequest request,
                               Callback<std::vector<ReadBatchItem>> done, CallOptions options) {
  // What the conversion checks the reply against (the request itself is moved into the call).
  struct Asked {
    std::vector<std::uint64_t> lengths_of_item;  // extents' lengths, every item back to back
    std::vector<std::size_t> first;              // item i's first entry in lengths_of_item
    std::vector<std::uint64_t> expect;
  };
  Asked asked;
  for (const SubReadBatchItem& item : request.items) {
    asked.first.push_back(asked.lengths_of_item.size());
    for (const ByteExtent& e : item.extents) asked.lengths_of_item.push_back(e.length);
    asked.expect.push_back(item.expect_version);
  }
  asked.first.push_back(asked.lengths_of_item.size());
  auto convert = [asked = std::move(asked)](const SubReadBatchReply& r,
                                            Buffer payload) -> Result<std::vector<ReadBatchItem>> {
    const std::size_t items = asked.expect.size();
    if (r.results.size() != items) {
      return Status::Error(EBADMSG, fmt::format("SubReadBatch reply has {} results for {} items",
                                                r.results.size(), items));
    }
    std::vector<ReadBatchItem> out(items);
    std::uint64_t pos = 0;
    for (std::size_t i = 0; i < items; ++i) {
      const SubReadBatchResult& res = r.results[i];
      ReadBatchItem& item = out[i];
      item.status = res.status;
      item.object_size = res.object_size;
      item.version = res.version;
      const std::size_t n = asked.first[i + 1] - asked.first[i];
      if (!res.status.ok()) {
        if (!res.lengths.empty()) {
          return Status::Error(
              EBADMSG,
              fmt::format("SubReadBatch item {} failed but has {} lengths", i, res.lengths.size()));
        }
        continue;
      }
      if (res.lengths.size() != n) {
        return Status::Error(EBADMSG, fmt::format("SubReadBatch item {} has {} lengths for {} "
                                                  "extents",
                                                  i, res.lengths.size(), n));
      }
      for (std::size_t e = 0; e < n; ++e) {
        const std::uint64_t len = res.lengths[e];
        if (len > asked.lengths_of_item[asked.first[i] + e] || len > payload.size() - pos) {
          return Status::Error(EBADMSG, fmt::format("SubReadBatch item {} length {} of extent {} "
                                                    "does not fit the request or the payload",
                                                    i, len, e));
        }
        item.extents.push_back(payload.Slice(pos, len));
        pos += len;
      }
      if (asked.expect[i] != 0 && res.version != asked.expect[i]) {
        item.status = Status::Error(
            ESTALE, fmt::format("shard is at version {}, not {}", res.version, asked.expect[i]));
        item.extents.clear();
      }
    }
    if (pos != payload.size()) {
      return Status::Error(
          EBADMSG,
          fmt::format("SubReadBatch reply payload {} != sum of lengths {}", payload.size(), pos));
    }
    return out;
  };
  impl_->Submit(MakeCall(
      std::move(request), {}, options,
      Typed<SubReadBatchReply, std::vector<ReadBatchItem>>(std::move(done), std::move(convert))));
}

Result<std::vector<ReadBatchItem>> OsdClient::ReadBatch(SubReadBatchRequest request,
                                                        CallOptions options) {
  return Wait<std::vector<ReadBatchItem>>([&](Callback<std::vector<ReadBatchItem>> cb) {
    ReadBatchAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::StatAsync(StatRequest request, Callback<StatResult> done, CallOptions options) {
  impl_->Submit(
      MakeCall(std::move(request), {}, options,
               Typed<StatReply, StatResult>(std::move(done), [](const StatReply& r, Buffer) {
                 return Result<StatResult>(StatResult{r.size, r.version, r.attrs});
               })));
}

Result<StatResult> OsdClient::Stat(StatRequest request, CallOptions options) {
  return Wait<StatResult>(
      [&](Callback<StatResult> cb) { StatAsync(std::move(request), std::move(cb), options); });
}

void OsdClient::ListAsync(ListRequest request, Callback<ListResult> done, CallOptions options) {
  impl_->Submit(
      MakeCall(std::move(request), {}, options,
               Typed<ListReply, ListResult>(std::move(done), [](const ListReply& r, Buffer) {
                 return Result<ListResult>(ListResult{r.entries, r.next_cursor, r.end});
               })));
}

Result<ListResult> OsdClient::List(ListRequest request, CallOptions options) {
  return Wait<ListResult>(
      [&](Callback<ListResult> cb) { ListAsync(std::move(request), std::move(cb), options); });
}

void OsdClient::RemoveAsync(RemoveRequest request, StatusCallback done, CallOptions options) {
  impl_->Submit(MakeCall(std::move(request), {}, options, StatusOnly(std::move(done))));
}

Status OsdClient::Remove(RemoveRequest request, CallOptions options) {
  return WaitStatus(
      [&](StatusCallback cb) { RemoveAsync(std::move(request), std::move(cb), options); });
}

void OsdClient::SubWriteAsync(SubWriteRequest request, std::vector<Buffer> data,
                              StatusCallback done, CallOptions options) {
  impl_->Submit(
      MakeCall(std::move(request), std::move(data), options, StatusOnly(std::move(done))));
}

Status OsdClient::SubWrite(SubWriteRequest request, std::vector<Buffer> data, CallOptions options) {
  return WaitStatus([&](StatusCallback cb) {
    SubWriteAsync(std::move(request), std::move(data), std::move(cb), options);
  });
}

void OsdClient::SubResolveAsync(SubResolveRequest request, Callback<std::uint64_t> done,
                                CallOptions options) {
  impl_->Submit(MakeCall(
      std::move(request), {}, options,
      Typed<SubResolveReply, std::uint64_t>(std::move(done), [](const SubResolveReply& r, Buffer) {
        return Result<std::uint64_t>(r.version);
      })));
}

Result<std::uint64_t> OsdClient::SubResolve(SubResolveRequest request, CallOptions options) {
  return Wait<std::uint64_t>([&](Callback<std::uint64_t> cb) {
    SubResolveAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::SubStateAsync(SubStateRequest request, Callback<SubStateReply> done,
                              CallOptions options) {
  impl_->Submit(MakeCall(
      std::move(request), {}, options,
      Typed<SubStateReply, SubStateReply>(std::move(done), [](const SubStateReply& r, Buffer) {
        return Result<SubStateReply>(r);
      })));
}

Result<SubStateReply> OsdClient::SubState(SubStateRequest request, CallOptions options) {
  return Wait<SubStateReply>([&](Callback<SubStateReply> cb) {
    SubStateAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::SubScanAsync(SubScanRequest request, Callback<SubScanReply> done,
                             CallOptions options) {
  auto convert = [max = request.max_entries](const SubScanReply& r,
                                             Buffer) -> Result<SubScanReply> {
    if (r.entries.size() > max) {
      return Status::Error(
          EBADMSG, fmt::format("SubScan reply has {} entries for {} asked", r.entries.size(), max));
    }
    return r;
  };
  impl_->Submit(MakeCall(std::move(request), {}, options,
                         Typed<SubScanReply, SubScanReply>(std::move(done), std::move(convert))));
}

Result<SubScanReply> OsdClient::SubScan(SubScanRequest request, CallOptions options) {
  return Wait<SubScanReply>(
      [&](Callback<SubScanReply> cb) { SubScanAsync(std::move(request), std::move(cb), options); });
}

void OsdClient::SubPullAsync(SubPullRequest request, Callback<SubPullReply> done,
                             CallOptions options) {
  std::vector<std::string> asked;
  asked.reserve(request.objects.size());
  for (const SubPullObject& o : request.objects) asked.push_back(o.object);
  auto convert = [asked = std::move(asked)](const SubPullReply& r, Buffer) -> Result<SubPullReply> {
    if (r.results.size() != asked.size()) {
      return Status::Error(EBADMSG, fmt::format("SubPull reply has {} results for {} objects",
                                                r.results.size(), asked.size()));
    }
    for (std::size_t i = 0; i < asked.size(); ++i) {
      if (r.results[i].object != asked[i]) {
        return Status::Error(EBADMSG,
                             fmt::format("SubPull reply result {} is of another object", i));
      }
    }
    return r;
  };
  impl_->Submit(MakeCall(std::move(request), {}, options,
                         Typed<SubPullReply, SubPullReply>(std::move(done), std::move(convert))));
}

Result<SubPullReply> OsdClient::SubPull(SubPullRequest request, CallOptions options) {
  return Wait<SubPullReply>(
      [&](Callback<SubPullReply> cb) { SubPullAsync(std::move(request), std::move(cb), options); });
}

void OsdClient::SubRepairChainAsync(SubRepairChainRequest request, Callback<ChainResult> done,
                                    CallOptions options) {
  const std::uint64_t version = request.version;
  detail::RawCallback raw = [done = std::move(done), version](Status s, ReplyBody body,
                                                              Buffer payload) mutable {
    if (!s.ok()) return done(Result<ChainResult>(std::move(s)));
    auto* reply = std::get_if<SubRepairChainReply>(&body);
    if (reply == nullptr)
      return done(Result<ChainResult>(Status::Error(EPROTO, "wrong reply type")));
    if (reply->status.ok() && reply->version != version) {
      return done(Result<ChainResult>(Status::Error(
          EBADMSG, fmt::format("SubRepairChain reply of version {} to a chain of version {}",
                               reply->version, version))));
    }
    if (!reply->status.ok() && !payload.empty()) {
      return done(Result<ChainResult>(
          Status::Error(EBADMSG, "SubRepairChain error reply carries a payload")));
    }
    done(ChainResult{reply->status, reply->failed_hop, std::move(payload)});
  };
  impl_->Submit(MakeCall(std::move(request), {}, options, std::move(raw)));
}

}  // namespace ec::msg
