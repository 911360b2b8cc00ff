#include "msg/peer_clients.h"

#include <charconv>

namespace ec::msg {

Status SplitHostPort(const std::string& addr, std::string* host, std::uint16_t* port) {
  const std::size_t colon = addr.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == addr.size()) {
    return Status::Invalid("address '" + addr + "' is not host:port");
  }
  unsigned value = 0;
  const char* first = addr.data() + colon + 1;
  const char* last = addr.data() + addr.size();
  auto [p, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || p != last || value == 0 || value > 65535) {
    return Status::Invalid("address '" + addr + "' has no valid port");
  }
  *host = addr.substr(0, colon);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  *port = static_cast<std::uint16_t>(value);
  return Status::OK();
}

Result<std::shared_ptr<OsdClient>> PeerClients::Get(int osd_id, const std::string& addr) {
  std::lock_guard lock(mu_);
  auto it = clients_.find(osd_id);
  if (it != clients_.end() && it->second.addr == addr) return it->second.client;
  ClientOptions co;
  Status s = SplitHostPort(addr, &co.host, &co.port);
  if (!s.ok()) return Status::Invalid("osd." + std::to_string(osd_id) + ": " + s.message());
  co.name = options_.name;
  co.connect_timeout = options_.connect_timeout;
  co.request_timeout = options_.request_timeout;
  co.connections = options_.connections;
  co.io_threads = options_.io_threads;
  co.traffic_class = options_.traffic_class;
  co.io_nice = options_.io_nice;
  co.auth = options_.auth.mode;
  co.entity = options_.auth.entity;
  co.key = options_.auth.key;
  if (options_.share_io) {
    if (!io_) {
      auto started = IoThreads::Start(options_.io_threads, "msg-client", options_.io_nice, nullptr);
      if (!started.ok()) return started.status();
      io_ = std::move(started).value();
    }
    co.shared_io = io_;
  }
  auto client = OsdClient::Create(co);
  if (!client.ok()) return client.status();
  std::shared_ptr<OsdClient> shared = std::move(*client);
  clients_[osd_id] = Entry{addr, shared};
  return shared;
}

void PeerClients::CloseAll() {
  std::lock_guard lock(mu_);
  for (auto& [id, e] : clients_) e.client->Close();
}

}  // namespace ec::msg
