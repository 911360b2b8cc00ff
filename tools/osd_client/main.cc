// ec-osd-client: shard operations against one ec-osd from the shell (the client library,
// msg/client.h, behind a command line). Every command exits 0 on success, 1 with the OSD's or
// the connection's error on stderr otherwise (data loss is reported as such).
//
//   ec-osd-client --osd 127.0.0.1:6800 ping
//   ec-osd-client --osd ... put COLL OBJECT SHARD FILE [--version N] [--attr k=v ...]
//   ec-osd-client --osd ... get COLL OBJECT SHARD OUT [--extent OFF:LEN ...]
//   ec-osd-client --osd ... stat COLL OBJECT SHARD          (JSON)
//   ec-osd-client --osd ... ls COLL                         (one "object shard" per line)
//   ec-osd-client --osd ... rm COLL OBJECT SHARD
//   ec-osd-client --osd ... --keyring FILE --name osd.N ...   (an OSD with auth cephx)
//
// Arguments are checked before connecting: names, attributes and extents against the protocol's
// limits (msg::Limits), so that a request the OSD would refuse gets a local message. Usage errors
// exit 1; --help and --version exit 0.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/cli.h"
#include "ec/buffer.h"
#include "msg/auth/keyring.h"
#include "msg/client.h"

namespace {

using ec::Buffer;
using ec::Result;
using ec::Status;

int Fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "ec-osd-client: %s: %s%s\n", what.c_str(),
               s.is_data_loss() ? "DATA LOSS: " : "", s.message().c_str());
  return 1;
}

// Whole file into one buffer. Errors: the open/read errno with the path.
Result<Buffer> ReadFile(const std::string& path, std::uint64_t max) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(errno, "cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::Invalid(path + " is not a regular file");
  }
  if (static_cast<std::uint64_t>(st.st_size) > max) {
    ::close(fd);
    return Status::Error(EFBIG, path + " is larger than the OSD's message limit");
  }
  Buffer b = Buffer::Allocate(static_cast<std::size_t>(st.st_size), false);
  std::size_t done = 0;
  auto* p = const_cast<std::byte*>(b.data());
  while (done < b.size()) {
    ssize_t n = ::read(fd, p + done, b.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return Status::IOError("cannot read " + path);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return b;
}

Status WriteFile(const std::string& path, const std::vector<Buffer>& parts) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error(errno, "cannot create " + tmp + ": " + std::strerror(errno));
  for (const Buffer& b : parts) {
    std::size_t done = 0;
    while (done < b.size()) {
      ssize_t n = ::write(fd, b.data() + done, b.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return Status::IOError("cannot write " + tmp);
      }
      done += static_cast<std::size_t>(n);
    }
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return Status::IOError("cannot finish " + path);
  }
  return Status::OK();
}

int Usage(const std::string& what) {
  std::fprintf(stderr, "ec-osd-client: %s\n", what.c_str());
  return 1;
}

// The longest wait --timeout accepts: beyond it the milliseconds would overflow the clock.
constexpr double kMaxTimeoutSeconds = 1e6;

// Digits only (no sign, space or suffix), no overflow.
bool ParseDecimal(std::string_view s, std::uint64_t* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// "OFFSET:LENGTH", both decimal, with offset + length within 2^64.
bool ParseExtent(const std::string& s, ec::msg::ByteExtent* out) {
  const auto colon = s.find(':');
  if (colon == std::string::npos) return false;
  std::uint64_t off = 0, len = 0;
  if (!ParseDecimal(std::string_view(s).substr(0, colon), &off) ||
      !ParseDecimal(std::string_view(s).substr(colon + 1), &len) || len > UINT64_MAX - off) {
    return false;
  }
  *out = {off, len};
  return true;
}

// What the OSD would refuse in the names of a request: empty or over the protocol's limits.
std::string CheckNames(const std::string& coll, const std::string* object) {
  const ec::msg::Limits limits;
  if (coll.empty()) return "the collection name is empty";
  if (coll.size() > limits.max_collection_len) {
    return "the collection name is " + std::to_string(coll.size()) + " bytes, more than the " +
           std::to_string(limits.max_collection_len) + " the protocol allows";
  }
  if (object != nullptr && object->empty()) return "the object name is empty";
  if (object != nullptr && object->size() > limits.max_name_len) {
    return "the object name is " + std::to_string(object->size()) + " bytes, more than the " +
           std::to_string(limits.max_name_len) + " the protocol allows";
  }
  return {};
}

bool SplitHostPort(const std::string& s, std::string* host, std::uint16_t* port) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  int p = 0;
  try {
    std::size_t used = 0;
    p = std::stoi(s.substr(colon + 1), &used);
    if (used != s.size() - colon - 1) return false;
  } catch (...) {
    return false;
  }
  if (p <= 0 || p > 65535) return false;
  *host = s.substr(0, colon);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  *port = static_cast<std::uint16_t>(p);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ec-osd-client: shard operations against one ec-osd daemon"};
  app.require_subcommand(1);
  std::string osd = "127.0.0.1:6800";
  double timeout_s = 30;
  app.add_option("--osd", osd, "the OSD's address HOST:PORT")->capture_default_str();
  // Against an OSD with auth_cluster_required = cephx (issue 32): its shard operations are
  // OSDs' requests, so the entity is an osd.N whose key the keyring holds.
  std::string keyring;
  std::string entity = "osd.0";
  app.add_option("--keyring", keyring,
                 "authenticate (cephx) with --name's key from this keyring (Ceph's format)");
  app.add_option("--name", entity, "the entity to authenticate as (with --keyring)")
      ->capture_default_str();
  app.add_option("--timeout", timeout_s, "seconds to wait for a reply (more than 0, at most 1e6)")
      ->capture_default_str();
  ec::cli::AddVersionFlag(app, "ec-osd-client");

  std::string coll, object, file;
  std::uint32_t shard = 0;
  std::uint64_t version = 1;
  std::vector<std::string> attrs, extents;
  auto* ping = app.add_subcommand("ping", "round trip to the OSD");
  auto* put = app.add_subcommand("put", "write FILE as the whole shard (replacing it)");
  auto* get = app.add_subcommand("get", "read the shard (or extents of it) into OUT");
  auto* stat = app.add_subcommand("stat", "size, version and attributes of a shard (JSON)");
  auto* ls = app.add_subcommand("ls", "list the shards of a collection");
  auto* rm = app.add_subcommand("rm", "remove a shard");
  for (auto* sub : {put, get, stat, rm}) {
    sub->add_option("collection", coll, "collection (placement group)")->required();
    sub->add_option("object", object, "object name")->required();
    sub->add_option("shard", shard, "shard id")->required();
  }
  ls->add_option("collection", coll, "collection (placement group)")->required();
  put->add_option("file", file, "the shard's bytes")->required()->check(CLI::ExistingFile);
  put->add_option("--version", version, "object version recorded with the shard")
      ->capture_default_str();
  put->add_option("--attr", attrs, "attribute key=value (repeatable)");
  get->add_option("out", file, "output file (written atomically)")->required();
  get->add_option("--extent", extents, "OFFSET:LENGTH to read (repeatable; default: all)");
  if (std::optional<int> status = ec::cli::Parse(app, argc, argv)) return *status;

  ec::msg::ClientOptions options;
  if (!SplitHostPort(osd, &options.host, &options.port)) {
    return Usage("bad --osd '" + osd + "': expected HOST:PORT");
  }
  if (!keyring.empty()) {
    auto ring = ec::msg::auth::Keyring::Load(keyring);
    if (!ring.ok()) return Usage(ring.status().message());
    const ec::msg::auth::KeyringEntry* e = ring->Find(entity);
    if (e == nullptr) return Usage("no key for " + entity + " in " + keyring);
    options.auth = ec::msg::auth::AuthMode::kCephx;
    options.entity = entity;
    options.key = e->key;
  }
  if (!std::isfinite(timeout_s) || timeout_s <= 0 || timeout_s > kMaxTimeoutSeconds) {
    return Usage(fmt::format("bad --timeout {}: expected seconds, more than 0 and at most {:g}",
                             timeout_s, kMaxTimeoutSeconds));
  }
  // Checked before connecting: a request the OSD would refuse gets a local message.
  const ec::msg::Limits limits;
  if (*ls) {
    if (std::string why = CheckNames(coll, nullptr); !why.empty()) return Usage(why);
  } else if (!*ping) {
    if (std::string why = CheckNames(coll, &object); !why.empty()) return Usage(why);
  }
  std::vector<ec::msg::Attr> parsed_attrs;
  if (attrs.size() > limits.max_attrs) {
    return Usage(fmt::format("{} attributes, more than the {} the protocol allows", attrs.size(),
                             limits.max_attrs));
  }
  for (const std::string& a : attrs) {
    auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Usage("bad --attr '" + a + "': expected key=value");
    }
    if (eq > limits.max_attr_len || a.size() - eq - 1 > limits.max_attr_len) {
      return Usage(
          fmt::format("--attr '{}...': a key or value is longer than the {} bytes the "
                      "protocol allows",
                      a.substr(0, 32), limits.max_attr_len));
    }
    parsed_attrs.push_back({a.substr(0, eq), a.substr(eq + 1)});
  }
  std::vector<ec::msg::ByteExtent> parsed_extents;
  if (extents.size() > limits.max_extents) {
    return Usage(fmt::format("{} extents, more than the {} the protocol allows", extents.size(),
                             limits.max_extents));
  }
  std::uint64_t extent_bytes = 0;
  for (const std::string& e : extents) {
    ec::msg::ByteExtent x;
    if (!ParseExtent(e, &x)) {
      return Usage("bad --extent '" + e +
                   "': expected OFFSET:LENGTH, two decimal numbers whose sum fits in 64 bits");
    }
    extent_bytes += std::min<std::uint64_t>(x.length, limits.max_payload_len + 1ull);
    parsed_extents.push_back(x);
  }
  if (extent_bytes > limits.max_payload_len) {
    return Usage(fmt::format("the extents ask for more than the {} bytes one reply may carry",
                             limits.max_payload_len));
  }
  // At least 1 ms: 0 would mean "the default" to the client library.
  options.request_timeout = std::max(
      std::chrono::milliseconds(1),
      std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(timeout_s * 1000))));
  options.connect_timeout = options.request_timeout;
  auto client = ec::msg::OsdClient::Create(options);
  if (!client.ok()) return Fail("client", client.status());
  ec::msg::OsdClient& c = **client;
  if (Status s = c.Connect(); !s.ok()) return Fail("cannot connect to " + osd, s);

  if (*ping) {
    auto start = std::chrono::steady_clock::now();
    auto r = c.Ping({}, 0);
    if (!r.ok()) return Fail("ping", r.status());
    std::printf("pong from %s in %.1f us\n", osd.c_str(),
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                    .count());
    return 0;
  }
  if (*put) {
    auto data = ReadFile(file, ec::msg::Limits{}.max_payload_len);
    if (!data.ok()) return Fail("put", data.status());
    ec::msg::WriteShardRequest w;
    w.collection = coll;
    w.object = object;
    w.shard = shard;
    w.version = version;
    w.flags = ec::msg::kWriteReplace;
    w.attrs = std::move(parsed_attrs);
    const std::size_t size = data->size();
    if (Status s = c.WriteShard(std::move(w), {std::move(*data)}); !s.ok()) return Fail("put", s);
    std::printf("wrote %s/%s shard %u: %zu bytes\n", coll.c_str(), object.c_str(), shard, size);
    return 0;
  }
  if (*get) {
    ec::msg::ReadShardRequest r;
    r.collection = coll;
    r.object = object;
    r.shard = shard;
    r.extents = std::move(parsed_extents);
    if (r.extents.empty()) {
      auto st = c.Stat({coll, object, shard});
      if (!st.ok()) return Fail("get", st.status());
      r.extents.push_back({0, st->size});
    }
    auto got = c.ReadShard(std::move(r));
    if (!got.ok()) return Fail("get", got.status());
    if (Status s = WriteFile(file, got->extents); !s.ok()) return Fail("get", s);
    std::uint64_t total = 0;
    for (const Buffer& b : got->extents) total += b.size();
    std::printf("read %s/%s shard %u: %llu bytes into %s\n", coll.c_str(), object.c_str(), shard,
                static_cast<unsigned long long>(total), file.c_str());
    return 0;
  }
  if (*stat) {
    auto st = c.Stat({coll, object, shard});
    if (!st.ok()) return Fail("stat", st.status());
    nlohmann::json j = {{"size", st->size}, {"version", st->version}};
    nlohmann::json a = nlohmann::json::object();
    for (const auto& attr : st->attrs) a[attr.key] = attr.value;
    j["attrs"] = a;
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return 0;
  }
  if (*ls) {
    std::string cursor;
    while (true) {
      auto page = c.List({coll, cursor, 1000});
      if (!page.ok()) return Fail("ls", page.status());
      for (const auto& e : page->entries) std::printf("%s %u\n", e.object.c_str(), e.shard);
      if (page->end) break;
      cursor = page->next_cursor;
    }
    return 0;
  }
  if (*rm) {
    if (Status s = c.Remove({coll, object, shard}); !s.ok()) return Fail("rm", s);
    return 0;
  }
  return 1;
}
