// ec-osd-bench: a network benchmark of the OSD protocol in the spirit of DAOS/CaRT self_test.
//
//   ec-osd-bench --endpoints 127.0.0.1:6800,127.0.0.1:6801
//       --message-sizes "(0 0) (b1048576 0) (0 b1048576) (i4096 0)"
//       --max-inflight-rpcs 16 --repetitions 10000 --json
//   ec-osd-bench --endpoints 127.0.0.1:6800 --shard-write 1048576 --objects 64 --inflight 4
//   ec-osd-bench --self-server ...   (an in-process server with an in-memory store)
//   ec-osd-bench --self-server --auth cephx ...   (both ends authenticated: keys made in process,
//       every frame signed and checked; issue 32's cost of auth per operation)
//   ec-osd-bench --endpoints ... --auth cephx --name osd.0 --keyring FILE
//
// Each message-size tuple (request payload, response payload) runs `repetitions` Ping RPCs spread
// round-robin over the endpoints with at most max-inflight-rpcs outstanding in total, and reports
// the RPC rate, the payload bandwidth (request + response payload bytes per second) and the
// round-trip latency percentiles. Shard runs time WriteShard / ReadShard of whole shards. Every run
// also reports the process's CPU time per operation (getrusage, user + system, every thread):
// with --self-server that is both ends of the protocol, the server's in-memory store included;
// against --endpoints the client's alone.
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <regex>
#include <sstream>

#include <sys/resource.h>

#include "common/cli.h"
#include "msg/auth/key_server.h"
#include "msg/auth/keyring.h"
#include "msg/client.h"
#include "msg/server.h"
#include "msg/test_store.h"

namespace ec::msg {
namespace {

struct SizeTuple {
  std::uint64_t request = 0;
  std::uint64_t response = 0;
  std::string text;
};

// "4096", "b1048576", "i4096", "64k", "1M", "2MiB" -> bytes: an optional self_test prefix (b or
// i), then a size as CLI::AsSizeValue reads it (binary units: k = 1024).
Result<std::uint64_t> ParseSize(std::string s) {
  const std::string given = s;
  if (!s.empty() && (s[0] == 'b' || s[0] == 'i' || s[0] == 'B' || s[0] == 'I')) s.erase(0, 1);
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])) ||
      !CLI::AsSizeValue(false)(s).empty()) {
    return Status::Invalid("bad size '" + given + "'");
  }
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return Status::Invalid("bad size '" + given + "'");
  }
  return v;
}

constexpr std::uint64_t kMaxPingPayload = 1ull << 30;

Result<std::vector<SizeTuple>> ParseTuples(const std::string& text) {
  std::vector<SizeTuple> out;
  const std::regex tuple(R"(\(\s*([^\s()]+)\s+([^\s()]+)\s*\))");
  std::string rest = text;
  for (std::sregex_iterator it(text.begin(), text.end(), tuple), end; it != end; ++it) {
    auto a = ParseSize((*it)[1]);
    auto b = ParseSize((*it)[2]);
    if (!a.ok() || !b.ok()) {
      return Status::Invalid("--message-sizes: " + (a.ok() ? b.status() : a.status()).message());
    }
    // The client accepts replies up to 1 GiB, and a Ping's response length is 32 bits.
    if (*a > kMaxPingPayload || *b > kMaxPingPayload) {
      return Status::Invalid("--message-sizes: " + it->str() + ": a payload is at most 1 GiB");
    }
    out.push_back({*a, *b, it->str()});
  }
  // Everything must have been a tuple (besides spaces and commas).
  std::string stripped = std::regex_replace(text, tuple, "");
  if (stripped.find_first_not_of(" ,\t") != std::string::npos || out.empty()) {
    return Status::Invalid("--message-sizes: expected tuples like \"(0 0) (b1048576 0)\", got '" +
                           text + "'");
  }
  return out;
}

struct LatencyStats {
  double p50 = 0, p99 = 0, p999 = 0, mean = 0;
};

LatencyStats Percentiles(std::vector<double> us) {
  LatencyStats s;
  if (us.empty()) return s;
  std::sort(us.begin(), us.end());
  auto at = [&](double p) {
    return us[std::min(us.size() - 1, static_cast<std::size_t>(p / 100.0 * us.size()))];
  };
  s.p50 = at(50);
  s.p99 = at(99);
  s.p999 = at(99.9);
  double sum = 0;
  for (double v : us) sum += v;
  s.mean = sum / us.size();
  return s;
}

// Runs `total` operations with at most `inflight` outstanding. start(i, done) issues operation i
// and calls done(ok) when it completes (from any thread).
struct RunResult {
  double seconds = 0;
  double cpu_seconds = 0;  // the process's user + system time over the run
  std::vector<double> latency_us;
  std::uint64_t errors = 0;
  std::string first_error;
};

double ProcessCpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

RunResult Drive(std::uint64_t total, std::uint32_t inflight,
                const std::function<void(std::uint64_t, std::function<void(Status)>)>& start) {
  RunResult r;
  const double cpu0 = ProcessCpuSeconds();
  r.latency_us.assign(total, 0);
  std::mutex mu;
  std::condition_variable cv;
  std::uint64_t next = 0, done_count = 0;
  std::function<void()> issue;  // issues the next op if any is left
  issue = [&] {
    std::uint64_t i;
    {
      std::lock_guard lock(mu);
      if (next >= total) return;
      i = next++;
    }
    const auto t0 = std::chrono::steady_clock::now();
    start(i, [&, i, t0](Status s) {
      r.latency_us[i] =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      issue();
      // Last touch of Drive's locals: once done_count reaches total, Drive may return.
      std::lock_guard lock(mu);
      if (!s.ok() && r.errors++ == 0) r.first_error = s.ToString();
      // Wake the waiting thread only at the end: a wake-up per operation would cost CPU time
      // that the measured threads need.
      if (++done_count == total) cv.notify_all();
    });
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint32_t k = 0; k < std::max<std::uint32_t>(inflight, 1); ++k) issue();
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return done_count == total; });
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu_seconds = ProcessCpuSeconds() - cpu0;
  return r;
}

nlohmann::json Report(const RunResult& r, std::uint64_t bytes_per_op, std::uint64_t ops) {
  const LatencyStats s = Percentiles(r.latency_us);
  nlohmann::json j;
  j["ops"] = ops;
  j["errors"] = r.errors;
  if (r.errors) j["first_error"] = r.first_error;
  j["seconds"] = r.seconds;
  j["ops_per_sec"] = r.seconds > 0 ? ops / r.seconds : 0;
  j["bandwidth_MiBps"] = r.seconds > 0 ? bytes_per_op * ops / r.seconds / (1024.0 * 1024.0) : 0;
  j["latency_us"] = {{"p50", s.p50}, {"p99", s.p99}, {"p99.9", s.p999}, {"mean", s.mean}};
  j["cpu_us_per_op"] = ops > 0 ? r.cpu_seconds * 1e6 / static_cast<double>(ops) : 0;
  return j;
}

void PrintText(const std::string& title, const nlohmann::json& j) {
  std::printf(
      "%-28s %10.0f ops/s %10.1f MiB/s  lat us p50 %8.1f p99 %8.1f p99.9 %8.1f  cpu us/op "
      "%7.1f%s\n",
      title.c_str(), j["ops_per_sec"].get<double>(), j["bandwidth_MiBps"].get<double>(),
      j["latency_us"]["p50"].get<double>(), j["latency_us"]["p99"].get<double>(),
      j["latency_us"]["p99.9"].get<double>(), j["cpu_us_per_op"].get<double>(),
      j["errors"].get<std::uint64_t>() ? "  ERRORS" : "");
}

int Main(int argc, char** argv) {
  CLI::App app{
      "ec-osd-bench: RPC and shard benchmark of the OSD protocol (in the spirit of CaRT "
      "self_test)"};
  std::string endpoints_text;
  std::string sizes_text;
  std::uint32_t max_inflight = 1;
  std::uint64_t repetitions = 10000;
  bool json = false;
  bool self_server = false;
  int connections = 1;
  std::uint64_t write_size = 0, read_size = 0;
  std::uint64_t objects = 16;
  std::uint32_t shard_inflight = 1;
  bool prepared = false;
  std::uint64_t shard_ops = 0;
  int timeout_ms = 30000;
  std::string auth_text = "none";
  std::string entity = "osd.0";
  std::string keyring_path;
  app.add_option("--endpoints", endpoints_text, "Comma-separated HOST:PORT list of OSDs");
  app.add_option("--auth", auth_text,
                 "cephx: authenticate every connection and sign every frame (auth_cluster_required "
                 "of the OSDs; with --self-server the keys are made in process); none")
      ->check(CLI::IsMember({"cephx", "none"}));
  app.add_option("--name", entity,
                 "the entity to authenticate as (--auth cephx; osd.N for the shard runs, which "
                 "are OSD sub-operations)");
  app.add_option("--keyring", keyring_path, "the keyring holding --name's key (--endpoints)");
  app.add_flag("--self-server", self_server,
               "Start an in-process server (in-memory store) and use it as the only endpoint");
  app.add_option(
      "--message-sizes", sizes_text,
      "Tuples \"(REQ RESP) ...\" of Ping payload sizes in bytes (binary suffixes "
      "allowed: 4k, 1M, 1MiB). A prefix i (inline) or b (bulk) is accepted as in self_test; both "
      "mean \"in the frame payload\" here: the protocol has one data path");
  app.add_option("--max-inflight-rpcs", max_inflight, "RPCs outstanding at once (total)")
      ->check(CLI::Range(1u, 65536u));
  app.add_option("--repetitions", repetitions, "RPCs per message-size tuple")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{100000000}));
  app.add_option("--connections", connections, "Connections per endpoint")
      ->check(CLI::Range(1, 64));
  app.add_option("--shard-write", write_size, "Time WriteShard of SIZE-byte shards (4k, 1M, ...)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  app.add_option("--shard-read", read_size,
                 "Time ReadShard of SIZE-byte shards (written first if --shard-write is absent)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 32));
  app.add_flag("--prepared", prepared,
               "--shard-read only: the shards exist (an earlier run with the same --objects and "
               "--endpoints wrote them at least --shard-read bytes long); no write before the "
               "reads, so that the process's CPU and context switches are the reads' alone");
  app.add_option("--objects", objects, "Distinct shards used by the shard runs")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000000}));
  app.add_option("--inflight", shard_inflight, "Shard operations outstanding at once")
      ->check(CLI::Range(1u, 65536u));
  app.add_option("--shard-ops", shard_ops, "Operations per shard run (default: --repetitions)");
  app.add_option("--timeout-ms", timeout_ms, "Per-request timeout")->check(CLI::Range(1, 3600000));
  app.add_flag("--json", json, "Print one JSON document instead of text");
  ec::cli::AddVersionFlag(app, "ec-osd-bench");
  if (std::optional<int> status = ec::cli::Parse(app, argc, argv)) return *status;

  spdlog::set_level(spdlog::level::warn);
  const auth::AuthMode auth_mode = *auth::ParseAuthMode(auth_text);
  auth::CryptoKey key;
  std::shared_ptr<auth::KeyringKeyServer> keys;
  if (auth_mode == auth::AuthMode::kCephx) {
    if (self_server) {
      auto k = auth::CryptoKey::Generate();
      if (!k.ok()) {
        std::cerr << "ec-osd-bench: " << k.status().ToString() << "\n";
        return 1;
      }
      key = *k;
      auth::Keyring ring;
      ring.entries[entity] = auth::KeyringEntry{key, {{"osd", "allow *"}}};
      auto ks = auth::KeyringKeyServer::Create(ring);
      if (!ks.ok()) {
        std::cerr << "ec-osd-bench: " << ks.status().ToString() << "\n";
        return 1;
      }
      keys = *ks;
    } else {
      auto ring = auth::Keyring::Load(keyring_path);
      const auth::KeyringEntry* e = ring.ok() ? ring->Find(entity) : nullptr;
      if (e == nullptr) {
        std::cerr << "ec-osd-bench: --auth cephx needs --keyring with " << entity << "'s key"
                  << (ring.ok() ? "" : ": " + ring.status().message()) << "\n";
        return 1;
      }
      key = e->key;
    }
  }
  std::vector<std::pair<std::string, std::uint16_t>> endpoints;
  std::shared_ptr<MemoryShardStore> store;
  std::unique_ptr<Server> server;
  if (self_server) {
    store = std::make_shared<MemoryShardStore>();
    ServerOptions so;
    so.max_inflight = std::max<std::uint32_t>(64, max_inflight);
    so.auth = auth_mode;
    so.keys = keys;
    auto s = Server::Start(so, store);
    if (!s.ok()) {
      std::cerr << "ec-osd-bench: " << s.status().ToString() << "\n";
      return 1;
    }
    server = std::move(s).value();
    endpoints.emplace_back("127.0.0.1", server->port());
  } else {
    std::stringstream ss(endpoints_text);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const auto colon = item.rfind(':');
      unsigned long port = 0;
      if (colon != std::string::npos) port = std::strtoul(item.c_str() + colon + 1, nullptr, 10);
      if (colon == std::string::npos || port == 0 || port > 65535) {
        std::cerr << "ec-osd-bench: bad endpoint '" << item << "' (expected HOST:PORT)\n";
        return 1;
      }
      endpoints.emplace_back(item.substr(0, colon), static_cast<std::uint16_t>(port));
    }
    if (endpoints.empty()) {
      std::cerr << "ec-osd-bench: give --endpoints HOST:PORT,... or --self-server\n";
      return 1;
    }
  }
  std::vector<SizeTuple> tuples;
  if (!sizes_text.empty()) {
    auto t = ParseTuples(sizes_text);
    if (!t.ok()) {
      std::cerr << "ec-osd-bench: " << t.status().message() << "\n";
      return 1;
    }
    tuples = *t;
  }
  if (tuples.empty() && write_size == 0 && read_size == 0) tuples.push_back({0, 0, "(0 0)"});
  if (shard_ops == 0) shard_ops = repetitions;

  std::vector<std::unique_ptr<OsdClient>> clients;
  for (const auto& [host, port] : endpoints) {
    ClientOptions co;
    co.host = host;
    co.port = port;
    co.connections = connections;
    co.request_timeout = std::chrono::milliseconds(timeout_ms);
    co.limits.max_payload_len = 1u << 30;
    co.name = "ec-osd-bench";
    co.auth = auth_mode;
    co.entity = entity;
    co.key = key;
    auto c = OsdClient::Create(co);
    if (!c.ok()) {
      std::cerr << "ec-osd-bench: " << c.status().ToString() << "\n";
      return 1;
    }
    if (Status s = (*c)->Connect(); !s.ok()) {
      std::cerr << "ec-osd-bench: " << host << ":" << port << ": " << s.ToString() << "\n";
      return 1;
    }
    clients.push_back(std::move(c).value());
  }
  auto client_of = [&](std::uint64_t i) -> OsdClient& { return *clients[i % clients.size()]; };

  nlohmann::json out;
  out["endpoints"] = nlohmann::json::array();
  for (const auto& [host, port] : endpoints)
    out["endpoints"].push_back(host + ":" + std::to_string(port));
  out["max_inflight_rpcs"] = max_inflight;
  out["auth"] = auth_text;
  out["note_cpu"] = self_server ? "cpu_us_per_op: the process (client and in-process server)"
                                : "cpu_us_per_op: this client process only";
  out["repetitions"] = repetitions;
  out["note"] = "bandwidth counts request + response payload bytes; latency is per round trip";
  bool errors = false;

  for (const SizeTuple& t : tuples) {
    Buffer req = Buffer::Allocate(t.request, true);
    std::vector<Buffer> payload;
    if (!req.empty()) payload.push_back(req);
    const auto resp = static_cast<std::uint32_t>(t.response);
    auto r =
        Drive(repetitions, max_inflight, [&](std::uint64_t i, std::function<void(Status)> done) {
          client_of(i).PingAsync(payload, resp,
                                 [done = std::move(done)](Result<Buffer> b) { done(b.status()); });
        });
    nlohmann::json j = Report(r, t.request + t.response, repetitions);
    j["request_bytes"] = t.request;
    j["response_bytes"] = t.response;
    j["tuple"] = t.text;
    errors |= r.errors > 0;
    if (!json) PrintText("ping " + t.text, j);
    out["message_sizes"].push_back(j);
  }

  const std::string coll = "bench.pg";
  auto write_all = [&](std::uint64_t size, std::uint64_t ops, std::uint32_t inflight) {
    Buffer data = Buffer::Allocate(size, true);
    for (std::uint64_t i = 0; i < size; ++i) data.data()[i] = static_cast<std::byte>(i * 7);
    return Drive(ops, inflight, [&, data](std::uint64_t i, std::function<void(Status)> done) {
      WriteShardRequest w{coll, "obj." + std::to_string(i % objects), 0, i + 1, 0, kWriteReplace,
                          {}};
      client_of(i).WriteShardAsync(std::move(w), {data}, std::move(done));
    });
  };
  if (write_size > 0) {
    auto r = write_all(write_size, shard_ops, shard_inflight);
    nlohmann::json j = Report(r, write_size, shard_ops);
    j["shard_bytes"] = write_size;
    j["objects"] = objects;
    j["inflight"] = shard_inflight;
    errors |= r.errors > 0;
    if (!json) PrintText("shard write " + std::to_string(write_size), j);
    out["shard_write"] = j;
  }
  if (read_size > 0) {
    if (write_size < read_size && !prepared) {
      auto prep = write_all(read_size, objects * clients.size(), 4);
      if (prep.errors) {
        std::cerr << "ec-osd-bench: writing the shards to read: " << prep.first_error << "\n";
        return 1;
      }
    }
    auto r =
        Drive(shard_ops, shard_inflight, [&](std::uint64_t i, std::function<void(Status)> done) {
          ReadShardRequest rq{coll, "obj." + std::to_string(i % objects), 0, {{0, read_size}}};
          client_of(i).ReadShardAsync(
              std::move(rq), [done = std::move(done), read_size](Result<ReadShardResult> res) {
                if (res.ok() && res->extents[0].size() != read_size) {
                  return done(Status::Error(EIO, "short read"));
                }
                done(res.status());
              });
        });
    nlohmann::json j = Report(r, read_size, shard_ops);
    j["shard_bytes"] = read_size;
    j["objects"] = objects;
    j["inflight"] = shard_inflight;
    errors |= r.errors > 0;
    if (!json) PrintText("shard read " + std::to_string(read_size), j);
    out["shard_read"] = j;
  }
  if (json) std::cout << out.dump(2) << "\n";
  clients.clear();
  if (server) server->Stop();
  return errors ? 2 : 0;
}

}  // namespace
}  // namespace ec::msg

int main(int argc, char** argv) {
  return ec::msg::Main(argc, argv);
}
