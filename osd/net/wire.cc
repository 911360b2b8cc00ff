#include "osd/net/wire.h"

#include <fmt/format.h>

#include <cstring>

namespace ec::net {

namespace {

template <typename T>
void PutLe(std::vector<std::byte>& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
  }
}

template <typename T>
T GetLe(const std::byte* p) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    v |= static_cast<T>(static_cast<T>(std::to_integer<std::uint8_t>(p[i])) << (8 * i));
  }
  return v;
}

}  // namespace

void WireWriter::U8(std::uint8_t v) {
  out_.push_back(static_cast<std::byte>(v));
}
void WireWriter::U16(std::uint16_t v) {
  PutLe(out_, v);
}
void WireWriter::U32(std::uint32_t v) {
  PutLe(out_, v);
}
void WireWriter::U64(std::uint64_t v) {
  PutLe(out_, v);
}

void WireWriter::String(std::string_view s) {
  U32(static_cast<std::uint32_t>(s.size()));
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  out_.insert(out_.end(), p, p + s.size());
}

bool WireReader::Take(std::size_t n, std::string_view what, const std::byte** p) {
  if (!status_.ok()) return false;
  if (remaining() < n) {
    status_ =
        Status::Error(EBADMSG, fmt::format("{}: needs {} bytes, {} left", what, n, remaining()));
    return false;
  }
  *p = bytes_.data() + pos_;
  pos_ += n;
  return true;
}

bool WireReader::U8(std::uint8_t* v, std::string_view what) {
  const std::byte* p;
  if (!Take(1, what, &p)) return false;
  *v = std::to_integer<std::uint8_t>(*p);
  return true;
}

bool WireReader::U16(std::uint16_t* v, std::string_view what) {
  const std::byte* p;
  if (!Take(2, what, &p)) return false;
  *v = GetLe<std::uint16_t>(p);
  return true;
}

bool WireReader::U32(std::uint32_t* v, std::string_view what) {
  const std::byte* p;
  if (!Take(4, what, &p)) return false;
  *v = GetLe<std::uint32_t>(p);
  return true;
}

bool WireReader::U64(std::uint64_t* v, std::string_view what) {
  const std::byte* p;
  if (!Take(8, what, &p)) return false;
  *v = GetLe<std::uint64_t>(p);
  return true;
}

bool WireReader::I32(std::int32_t* v, std::string_view what) {
  std::uint32_t u;
  if (!U32(&u, what)) return false;
  *v = static_cast<std::int32_t>(u);
  return true;
}

bool WireReader::String(std::string* s, std::uint32_t max_len, std::string_view what) {
  std::uint32_t n;
  if (!U32(&n, what)) return false;
  if (n > max_len) {
    return Fail(Status::Error(EMSGSIZE,
                              fmt::format("{}: length {} exceeds the limit {}", what, n, max_len)));
  }
  const std::byte* p;
  if (!Take(n, what, &p)) return false;
  s->assign(reinterpret_cast<const char*>(p), n);
  return true;
}

bool WireReader::Count(std::uint32_t* n, std::uint32_t max_count, std::size_t min_item_size,
                       std::string_view what) {
  if (!U32(n, what)) return false;
  if (*n > max_count) {
    return Fail(Status::Error(
        EMSGSIZE, fmt::format("{}: count {} exceeds the limit {}", what, *n, max_count)));
  }
  if (static_cast<std::uint64_t>(*n) * min_item_size > remaining()) {
    return Fail(Status::Error(
        EBADMSG, fmt::format("{}: count {} does not fit in {} bytes left", what, *n, remaining())));
  }
  return true;
}

bool WireReader::Fail(Status s) {
  if (status_.ok()) status_ = std::move(s);
  return false;
}

Status WireReader::Finish(std::string_view message) {
  if (!status_.ok()) return status_.WithPrefix(message);
  if (remaining() != 0) {
    return Status::Error(EBADMSG,
                         fmt::format("{}: {} unexpected trailing bytes", message, remaining()));
  }
  return Status::OK();
}

}  // namespace ec::net
