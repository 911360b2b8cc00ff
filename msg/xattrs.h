// An object's user xattrs (Ceph's rados setxattr/getxattr/listxattr/rmxattr): the limits every
// side enforces and the one way a change applies. An object's metadata travels in message headers
// (ObjSetXattrs, ObjGetXattrs, SubWrite, the shard Stat a pull reads it with), so the limits keep
// an object's whole set well under the default header limit (Limits::max_header_len, 64 KiB) with
// an object name and a SubWrite's other fields beside it: 60 xattrs of at most 48 KiB together.
// Ceph has no count or total limit (its osd_max_attr_size, 0 by default, bounds one value with
// EFBIG, and osd_max_attr_name_len, 100, a name with ENAMETOOLONG).
//
// Thread safety: pure functions and constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "msg/messages.h"

namespace ec::msg {

inline constexpr std::uint32_t kMaxXattrNameLen = 255;         // a name: ENAMETOOLONG above
inline constexpr std::uint32_t kMaxXattrValueLen = 32 * 1024;  // a value: EFBIG above
inline constexpr std::uint32_t kMaxXattrs = 60;                // per object: E2BIG above
inline constexpr std::uint32_t kMaxXattrsBytes = 48 * 1024;    // names + values per object: E2BIG

// One xattr as a client may set it. Errors: EINVAL for an empty name, ENAMETOOLONG for a name
// over kMaxXattrNameLen bytes, EFBIG for a value over kMaxXattrValueLen bytes; each names the
// xattr and the limit.
Status CheckXattr(std::string_view name, std::size_t value_len);

// An object's whole set: every xattr as CheckXattr, at most kMaxXattrs of them (E2BIG), their
// names and values at most kMaxXattrsBytes together (E2BIG).
Status CheckXattrSet(const std::vector<Attr>& xattrs);

// The set after an ObjSetXattrs: `current` (sorted by name, names unique) with each of `set`
// added or replaced, then each of `remove` taken out (a name that is not there is no error, as
// Ceph's rmxattr). Sorted by name, names unique (a later entry of `set` wins).
std::vector<Attr> XattrsAfter(std::vector<Attr> current, const std::vector<Attr>& set,
                              const std::vector<std::string>& remove);

}  // namespace ec::msg
