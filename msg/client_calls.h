// Internal to the OsdClient (client.cc: the connection, the shard operations; client_object_ops.cc:
// the object operations): its Impl and the helpers every call is made with. client.h is the
// contract.
#pragma once

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio.hpp>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "msg/client.h"
#include "msg/client_connection.h"
#include "msg/io_threads.h"

namespace ec::msg {

using detail::Call;
using detail::ClientConnection;

class OsdClient::Impl {
 public:
  explicit Impl(ClientOptions options)
      : shared_io_(options.shared_io),
        own_io_(shared_io_ ? nullptr : std::make_unique<boost::asio::io_context>()),
        context_(std::make_shared<detail::ClientContext>()),
        ctx_(*context_) {
    ctx_.options = std::move(options);
    ctx_.log = ctx_.options.logger ? ctx_.options.logger : spdlog::default_logger();
    ctx_.io = shared_io_ ? &shared_io_->io() : own_io_.get();
    if (own_io_) work_.emplace(boost::asio::make_work_guard(*own_io_));
  }

  void Submit(Call call);
  Status ConnectAll();
  void Close();
  // Own threads: waits until every handler has run (Close first) and joins them. On shared ones
  // the connections' last handlers run later; they hold what they use.
  void Join() {
    work_.reset();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

  // Declared first, destroyed last: the handlers it still holds own connections, which own the
  // context.
  std::shared_ptr<IoThreads> shared_io_;
  std::unique_ptr<boost::asio::io_context> own_io_;
  std::shared_ptr<detail::ClientContext> context_;
  detail::ClientContext& ctx_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::vector<std::thread> threads_;
  std::vector<std::shared_ptr<ClientConnection>> conns_;
  std::atomic<std::uint64_t> next_conn_{0};
  std::atomic<bool> closed_{false};
};

namespace detail {

// Turns a raw completion into a typed one: transport errors and error replies become the Result's
// Status; `convert` builds the value from a successful reply.
template <typename Reply, typename T, typename Convert>
inline RawCallback Typed(Callback<T> done, Convert convert) {
  return [done = std::move(done), convert = std::move(convert)](Status s, ReplyBody body,
                                                                Buffer payload) mutable {
    if (!s.ok()) return done(Result<T>(std::move(s)));
    auto* reply = std::get_if<Reply>(&body);
    if (reply == nullptr) return done(Result<T>(Status::Error(EPROTO, "wrong reply type")));
    if (!reply->status.ok()) return done(Result<T>(reply->status));
    done(convert(*reply, std::move(payload)));
  };
}

inline RawCallback StatusOnly(StatusCallback done) {
  return [done = std::move(done)](Status s, ReplyBody body, Buffer) {
    if (!s.ok()) return done(std::move(s));
    done(StatusOf(body));
  };
}

template <typename T, typename Start>
Result<T> Wait(Start start) {
  std::promise<Result<T>> p;
  auto f = p.get_future();
  start([&p](Result<T> r) { p.set_value(std::move(r)); });
  return f.get();
}

inline Status WaitStatus(const std::function<void(StatusCallback)>& start) {
  std::promise<Status> p;
  auto f = p.get_future();
  start([&p](Status s) { p.set_value(std::move(s)); });
  return f.get();
}

inline Call MakeCall(const RequestBody& body, std::vector<Buffer> payload, CallOptions options,
                     RawCallback done) {
  Call c;
  c.type = TypeOf(body);
  EncodeRequest(body, c.header);
  c.payload = std::move(payload);
  c.timeout = options.timeout;
  c.done = std::move(done);
  return c;
}

}  // namespace detail
}  // namespace ec::msg
