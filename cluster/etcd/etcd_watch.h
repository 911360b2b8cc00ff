// etcd::Watch: a watch on a key or a range over the gateway's streaming /v3/watch, on its own
// thread, that misses no event across a reconnect.
//
// The thread opens the stream with start_revision = the revision after the last event it
// delivered (or WatchOptions::start_revision, or "from now" when that is 0), and delivers each
// PUT/DELETE once, in revision order. When the stream breaks (etcd restarted, the member died, or
// lost its leader: the stream asks for one, as every request does (etcd_client.h), and etcd
// cancels it when the member has had none for a few election timeouts; a malformed message) it
// reconnects to the next endpoint in turn, after a backoff of 100 ms doubling to 1 s while no
// stream is created, and resumes from that revision on whichever member serves it: events written
// while it was away are delivered then, none twice (a member behind the last one holds the watch
// until it has caught up to that revision).
//
// Errors go to on_error:
//   - retryable Status (ECONNREFUSED, ETIMEDOUT, ECONNRESET, EPROTO, EAGAIN): the stream broke or
//     could not be opened; the watch keeps trying. Callers may log these or ignore them. With
//     etcd's users (client.credentials, etcd_auth.h) the stream is opened with the credentials'
//     token: one etcd refuses (expired, forgotten by a restarted member) cancels the stream, and
//     the watch authenticates again and resumes (EAGAIN, retryable, nothing missed).
//   - EACCES, retryable: etcd refused the user's password, or the user's roles do not allow
//     reading the watched keys. The watch keeps trying (with the backoff, at most one
//     authentication a second) as for an unreachable etcd: the roles may be granted meanwhile.
//   - ERANGE, not retryable: the revision to resume from has been compacted (etcd's
//     compact_revision); events were lost. The watch ends: re-read the state and start a new
//     Watch from the Range's revision + 1.
//   - EIO, not retryable: etcd cancelled the watch for another reason. The watch ends.
//
// Threading: on_event and on_error run on the watch thread, one at a time, never after Stop() or
// the destructor returned. They must not call Stop() or destroy the Watch (that would join the
// thread from itself). Stop() and next_revision() may be called from any other thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_types.h"
#include "common/status.h"

namespace ec::etcd {

struct WatchOptions {
  std::string key;
  std::string range_end;                      // empty: the one key; PrefixEnd(key) for a prefix
  std::int64_t start_revision = 0;            // 0: events after the current revision
  std::size_t max_message_bytes = 64u << 20;  // a bigger stream message is EPROTO (reconnect)
};

class Watch {
 public:
  using EventCallback = std::function<void(const Event&)>;
  using ErrorCallback = std::function<void(const Status&)>;

  // Starts the thread. client.endpoints, client.timeout (per connect), client.tls and
  // client.credentials are used.
  Watch(ClientOptions client, WatchOptions options, EventCallback on_event, ErrorCallback on_error);
  ~Watch();  // Stop()
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  // Ends the watch and joins the thread (within ~50 ms). Idempotent.
  void Stop();

  // The revision the watch resumes from: last delivered event's revision + 1 (0 before the
  // stream was first created with start_revision 0).
  std::int64_t next_revision() const { return next_revision_.load(); }
  // True once the watch ended on a terminal error (compaction, cancel).
  bool finished() const { return finished_.load(); }

 private:
  void Run();
  // Reads one stream until it breaks; returns the Status that ended it. *terminal is set when
  // the watch must end.
  Status RunStream(const Endpoint& ep, bool* terminal, bool* created);

  const ClientOptions client_;
  const WatchOptions options_;
  const EventCallback on_event_;
  const ErrorCallback on_error_;
  std::atomic<std::int64_t> next_revision_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> finished_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace ec::etcd
