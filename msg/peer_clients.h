// PeerClients: one OsdClient per OSD of the map, made on first use from the OSD's address in the
// map and made again when that address changes (an OSD restarted on another port). Used by the PG
// primary (sub-operations, shard reads) and by the client library (requests to primaries).
//
// Errors of Get: EINVAL "osd.N has no usable address 'X'" (not host:port).
// Ownership: clients are shared; one replaced by an address change stays alive for the calls
// still holding it. With share_io, the threads stop once the PeerClients and every client are
// gone and the last completion has run. Thread safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"
#include "msg/client.h"
#include "msg/io_threads.h"

namespace ec::msg {

struct PeerOptions {
  std::string name = "ec-osd";  // announced in the handshake
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds request_timeout{10000};
  int connections = 1;
  int io_threads = 1;
  TrafficClass traffic_class = TrafficClass::kClient;  // ClientOptions::traffic_class
  int io_nice = 0;                                     // ClientOptions::io_nice
  // One set of io_threads for every client (IoThreads) instead of io_threads per client: fewer
  // threads and fewer wake-ups for a fan-out to many peers; every completion must not block.
  bool share_io = false;
  ClientAuth auth{};  // ClientOptions::auth, entity, key of every client
};

class PeerClients {
 public:
  explicit PeerClients(PeerOptions options) : options_(std::move(options)) {}
  Result<std::shared_ptr<OsdClient>> Get(int osd_id, const std::string& addr);
  // Closes every client.
  void CloseAll();

 private:
  struct Entry {
    std::string addr;
    std::shared_ptr<OsdClient> client;
  };
  PeerOptions options_;
  std::shared_ptr<IoThreads> io_;  // share_io: made on first use
  std::mutex mu_;
  std::map<int, Entry> clients_;
};

// "host:port" -> host and port. Errors: EINVAL.
Status SplitHostPort(const std::string& addr, std::string* host, std::uint16_t* port);

}  // namespace ec::msg
