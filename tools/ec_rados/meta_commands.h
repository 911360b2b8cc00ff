// The object-metadata commands of ec-rados on an open pool, rados's: setxattr, getxattr,
// listxattr, rmxattr, touch, truncate; and the mtime as rados prints it (stat). An error's Status
// carries the line the program prints after "error: " ("getting xattr p/o/n: (61) No data
// available: ..."), its code the errno (ENOENT 2 for an absent object, ENODATA 61 for an absent
// xattr, as Ceph's). Thread safety: as the IoCtx's (any thread).
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>

#include "cluster/client/rados.h"
#include "common/status.h"

namespace ec::tools::rados {

// A time as rados prints a utime_t (Ceph's include/utime.h): "2026-11-28T10:00:00.000000+0000",
// local time with its UTC offset; a time under ten years after the epoch as seconds,
// "5.000000" (Ceph's "relative time").
std::string RadosTime(std::uint64_t seconds, std::uint32_t microseconds);

// setxattr: sets NAME to VALUE, or to what `in` holds when VALUE is absent (rados reads stdin).
Status SetXattrCommand(cluster::client::IoCtx& io, const std::string& object,
                       const std::string& name, const std::optional<std::string>& value,
                       std::istream& in);
// getxattr: the value, as it is (no newline).
Status GetXattrCommand(cluster::client::IoCtx& io, const std::string& object,
                       const std::string& name, std::ostream& out);
// listxattr: the names, one per line, sorted.
Status ListXattrCommand(cluster::client::IoCtx& io, const std::string& object, std::ostream& out);
// rmxattr: removes NAME (an absent one is no error, as rados).
Status RmXattrCommand(cluster::client::IoCtx& io, const std::string& object,
                      const std::string& name);
// touch: creates an empty object when there is none; the mtime becomes `timestamp` (seconds since
// the epoch) or now.
Status TouchCommand(cluster::client::IoCtx& io, const std::string& object,
                    std::optional<std::uint64_t> timestamp);
// truncate: the object's size becomes `size` (an absent object: nothing happens, as rados).
Status TruncateCommand(cluster::client::IoCtx& io, const std::string& object, std::uint64_t size);

}  // namespace ec::tools::rados
