#include "tools/ec_rados/meta_commands.h"

#include <fmt/format.h>

#include <ctime>
#include <iterator>

#include "tools/ec_rados/errors.h"

namespace ec::tools::rados {
namespace {

using cluster::client::IoCtx;

// Ceph's "relative time": under ten years (of 365 days) after the epoch.
constexpr std::uint64_t kRelativeSeconds = 60ull * 60 * 24 * 365 * 10;

}  // namespace

std::string RadosTime(std::uint64_t seconds, std::uint32_t microseconds) {
  if (seconds < kRelativeSeconds) return fmt::format("{}.{:06}", seconds, microseconds);
  const auto t = static_cast<std::time_t>(seconds);
  std::tm local{};
  localtime_r(&t, &local);
  char zone[16] = {0};
  std::strftime(zone, sizeof(zone), "%z", &local);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}{}", local.tm_year + 1900,
                     local.tm_mon + 1, local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec,
                     microseconds, zone);
}

Status SetXattrCommand(IoCtx& io, const std::string& object, const std::string& name,
                       const std::optional<std::string>& value, std::istream& in) {
  std::string bytes;
  if (value) {
    bytes = *value;
  } else {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return Status::IOError("error reading standard input: " + ErrnoText(EIO));
  }
  Status s = io.SetXattr(object, name, bytes);
  if (!s.ok()) return Failed("setting xattr " + Where(io, object) + "/" + name, s);
  return Status::OK();
}

Status GetXattrCommand(IoCtx& io, const std::string& object, const std::string& name,
                       std::ostream& out) {
  auto value = io.GetXattr(object, name);
  if (!value.ok()) {
    return Failed("getting xattr " + Where(io, object) + "/" + name, value.status());
  }
  out << *value;
  out.flush();
  return Status::OK();
}

Status ListXattrCommand(IoCtx& io, const std::string& object, std::ostream& out) {
  auto all = io.GetXattrs(object);
  if (!all.ok()) return Failed("getting xattr set " + Where(io, object), all.status());
  for (const auto& [name, value] : *all) out << name << "\n";
  return Status::OK();
}

Status RmXattrCommand(IoCtx& io, const std::string& object, const std::string& name) {
  Status s = io.RmXattr(object, name);
  if (!s.ok()) return Failed("removing xattr " + Where(io, object) + "/" + name, s);
  return Status::OK();
}

Status TouchCommand(IoCtx& io, const std::string& object, std::optional<std::uint64_t> timestamp) {
  std::optional<std::uint64_t> micros;
  if (timestamp) micros = *timestamp * 1000000;
  Status s = io.Touch(object, micros);
  if (!s.ok()) return Failed("touch-ing " + Where(io, object), s);
  return Status::OK();
}

Status TruncateCommand(IoCtx& io, const std::string& object, std::uint64_t size) {
  Status s = io.Truncate(object, size);
  if (!s.ok()) return Failed(fmt::format("truncating oid {} to {}", object, size), s);
  return Status::OK();
}

}  // namespace ec::tools::rados
