#include "msg/xattrs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

namespace ec::msg {

Status CheckXattr(std::string_view name, std::size_t value_len) {
  if (name.empty()) return Status::Invalid("empty xattr name");
  if (name.size() > kMaxXattrNameLen) {
    return Status::Error(ENAMETOOLONG, fmt::format("xattr name of {} bytes, above the limit of {}",
                                                   name.size(), kMaxXattrNameLen));
  }
  if (value_len > kMaxXattrValueLen) {
    return Status::Error(EFBIG, fmt::format("xattr {}: value of {} bytes, above the limit of {}",
                                            name, value_len, kMaxXattrValueLen));
  }
  return Status::OK();
}

Status CheckXattrSet(const std::vector<Attr>& xattrs) {
  std::uint64_t bytes = 0;
  for (const Attr& a : xattrs) {
    EC_RETURN_IF_ERROR(CheckXattr(a.key, a.value.size()));
    bytes += a.key.size() + a.value.size();
  }
  if (xattrs.size() > kMaxXattrs) {
    return Status::Error(E2BIG, fmt::format("{} xattrs on one object, above the limit of {}",
                                            xattrs.size(), kMaxXattrs));
  }
  if (bytes > kMaxXattrsBytes) {
    return Status::Error(E2BIG,
                         fmt::format("xattrs of {} bytes (names and values) on one object, above "
                                     "the limit of {}",
                                     bytes, kMaxXattrsBytes));
  }
  return Status::OK();
}

std::vector<Attr> XattrsAfter(std::vector<Attr> current, const std::vector<Attr>& set,
                              const std::vector<std::string>& remove) {
  const auto by_name = [](const Attr& a, const std::string& n) { return a.key < n; };
  for (const Attr& a : set) {
    auto it = std::lower_bound(current.begin(), current.end(), a.key, by_name);
    if (it != current.end() && it->key == a.key) {
      it->value = a.value;
    } else {
      current.insert(it, a);
    }
  }
  for (const std::string& n : remove) {
    auto it = std::lower_bound(current.begin(), current.end(), n, by_name);
    if (it != current.end() && it->key == n) current.erase(it);
  }
  return current;
}

}  // namespace ec::msg
