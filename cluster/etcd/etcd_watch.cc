#include "cluster/etcd/etcd_watch.h"

#include <algorithm>

#include "cluster/etcd/etcd_auth.h"
#include "cluster/etcd/etcd_json.h"
#include "common/thread_name.h"

namespace ec::etcd {

using nlohmann::json;

namespace {

Status Retryable(const Status& s) {
  return Status::Retryable(s.code(), s.message());
}

}  // namespace

Watch::Watch(ClientOptions client, WatchOptions options, EventCallback on_event,
             ErrorCallback on_error)
    : client_(std::move(client)),
      options_(std::move(options)),
      on_event_(std::move(on_event)),
      on_error_(std::move(on_error)),
      next_revision_(options_.start_revision) {
  thread_ = std::thread([this] {
    NameCurrentThread("etcd-watch");
    Run();
  });
}

Watch::~Watch() {
  Stop();
}

void Watch::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_.store(true);
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watch::Run() {
  if (client_.endpoints.empty()) {
    finished_.store(true);
    if (on_error_) on_error_(Status::Invalid("etcd watch: no endpoint"));
    return;
  }
  std::size_t index = 0;
  auto backoff = std::chrono::milliseconds(100);
  while (!stop_.load()) {
    bool terminal = false;
    bool created = false;
    Status s = RunStream(client_.endpoints[index], &terminal, &created);
    if (stop_.load()) break;
    if (terminal) {
      finished_.store(true);
      if (on_error_) on_error_(s);
      return;
    }
    if (on_error_) on_error_(s);
    if (created) backoff = std::chrono::milliseconds(100);
    // The next member: the one that failed may be dead, or cut off from its quorum.
    index = (index + 1) % client_.endpoints.size();
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, backoff, [this] { return stop_.load(); });
    backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(1));
  }
}

Status Watch::RunStream(const Endpoint& ep, bool* terminal, bool* created) {
  const std::string where = "etcd " + ep.ToString() + "/v3/watch";
  HttpConnection conn(&stop_, client_.tls);
  const auto deadline = Clock::now() + client_.timeout;
  EC_RETURN_IF_ERROR(conn.Connect(ep, deadline));
  Credentials* credentials = client_.credentials.get();
  std::string token;
  if (credentials != nullptr) {
    Result<std::string> t = credentials->Token(conn, ep, client_.max_reply_bytes, deadline);
    // A refused password is tried again as an unreachable etcd is (the header).
    if (!t.ok()) return t.status().is_retryable() ? t.status() : Retryable(t.status());
    token = std::move(*t);
    conn.set_token(token);
  }
  // etcd refused the token (expired, forgotten by a restarted member): a new one at the next try.
  // Refused for the user's roles: tried again too, as the header says.
  auto auth_refusal = [&](const Status& error) {
    if (credentials != nullptr && IsTokenRefused(error)) {
      credentials->Forget(token);
      return Status::Retryable(EAGAIN, error.message() + " (the watch authenticates again)");
    }
    return Retryable(AuthError(error, credentials));
  };
  json create{{"key", gw::Base64Encode(options_.key)}};
  if (!options_.range_end.empty()) create["range_end"] = gw::Base64Encode(options_.range_end);
  const std::int64_t start = next_revision_.load();
  if (start > 0) create["start_revision"] = std::to_string(start);
  Result<unsigned> status =
      conn.StartStream("/v3/watch", json{{"create_request", create}}.dump(), deadline);
  if (!status.ok()) return status.status();
  if (*status != 200) {
    // etcd's error in the body ({"error":{"grpc_code":14,"message":"etcdserver: no leader"}}).
    std::string body;
    while (body.size() < 4096) {
      Result<std::string> chunk = conn.ReadSome(deadline);
      if (!chunk.ok()) break;
      body += *chunk;
    }
    Status error = gw::GatewayError(*status, body, where);
    if (IsTokenRefused(error) || error.code() == EACCES) return auth_refusal(error);
    return error.is_retryable() ? error : Status::Retryable(EAGAIN, error.message());
  }
  std::string pending;
  while (!stop_.load()) {
    Result<std::string> chunk = conn.ReadSome(Clock::time_point::max());
    if (!chunk.ok()) return chunk.status();
    pending += *chunk;
    std::size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      std::string line = pending.substr(0, nl);
      pending.erase(0, nl + 1);
      if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
      Result<json> msg = gw::ParseObject(line, where);
      if (!msg.ok()) return Status::Retryable(EPROTO, msg.status().message());
      auto result = msg->find("result");
      if ((result == msg->end() || !result->is_object()) && msg->contains("error")) {
        // The stream ended on etcd's error (the member lost its leader, say): another try.
        Status error = gw::GatewayError(200, line, where);
        return error.is_retryable() ? error : Status::Retryable(EAGAIN, error.message());
      }
      if (result == msg->end() || !result->is_object()) {
        return Status::Retryable(
            EPROTO, where + ": message without 'result': " + msg->dump().substr(0, 200));
      }
      const json& r = *result;
      Result<std::int64_t> compact = gw::GetInt64(r, "compact_revision");
      if (!compact.ok()) return Status::Retryable(EPROTO, compact.status().message());
      if (*compact > 0) {
        *terminal = true;
        return Status::Error(ERANGE, where + ": revision " + std::to_string(next_revision_.load()) +
                                         " has been compacted (compact_revision " +
                                         std::to_string(*compact) + ")");
      }
      Result<bool> canceled = gw::GetBool(r, "canceled");
      if (!canceled.ok()) return Status::Retryable(EPROTO, canceled.status().message());
      if (*canceled) {
        Result<std::string> reason = gw::GetString(r, "cancel_reason");
        Status error = Status::Error(EIO, where + ": watch cancelled by etcd: " +
                                              (reason.ok() ? *reason : std::string("?")));
        // etcd cancels a watch whose token or user it refuses (the reason says which).
        if (IsTokenRefused(error) ||
            error.message().find("PermissionDenied") != std::string::npos) {
          return auth_refusal(error);
        }
        *terminal = true;
        return error;
      }
      Result<bool> is_created = gw::GetBool(r, "created");
      if (!is_created.ok()) return Status::Retryable(EPROTO, is_created.status().message());
      if (*is_created) {
        *created = true;
        if (next_revision_.load() == 0) {
          Result<std::int64_t> rev = gw::ParseHeaderRevision(r);
          if (!rev.ok()) return Status::Retryable(EPROTO, rev.status().message());
          // Without the header's revision "from now" is unknown; resuming at 1 would replay
          // the whole history.
          if (*rev <= 0) return Status::Retryable(EPROTO, where + ": created without a revision");
          next_revision_.store(*rev + 1);
        }
      }
      auto events = r.find("events");
      if (events == r.end() || events->is_null()) continue;
      if (!events->is_array()) {
        return Status::Retryable(EPROTO, where + ": 'events' is not an array");
      }
      // Parse the whole message before delivering any of it: a bad message is dropped whole and
      // re-read after the reconnect, so nothing is delivered twice or skipped.
      std::vector<Event> parsed;
      for (const json& item : *events) {
        Result<Event> ev = gw::ParseEvent(item);
        if (!ev.ok()) return Status::Retryable(EPROTO, ev.status().WithPrefix(where).message());
        parsed.push_back(std::move(ev).value());
      }
      // Events of one revision (one txn) arrive in one message; anything below the resume point
      // was delivered before the reconnect.
      const std::int64_t from = next_revision_.load();
      std::int64_t last = from - 1;
      for (const Event& ev : parsed) {
        if (ev.kv.mod_revision < from) continue;
        if (on_event_) on_event_(ev);
        last = std::max(last, ev.kv.mod_revision);
      }
      if (last + 1 > from) next_revision_.store(last + 1);
    }
    if (pending.size() > options_.max_message_bytes) {
      return Status::Retryable(EPROTO, where + ": stream message larger than " +
                                           std::to_string(options_.max_message_bytes) + " bytes");
    }
  }
  return Status::Error(ECANCELED, where + ": stopped");
}

}  // namespace ec::etcd
