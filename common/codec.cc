#include "common/codec.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace ec {

namespace {

std::string Named(std::string_view what, std::string_view text) {
  std::string s(what);
  s += ": ";
  s += text;
  return s;
}

}  // namespace

void Encoder::Append(const std::byte* p, std::size_t n) {
  if (n == 0) return;
  if (vec_ != nullptr) {
    vec_->insert(vec_->end(), p, p + n);
  } else if (str_ != nullptr) {
    str_->append(reinterpret_cast<const char*>(p), n);
  } else {
    // A fixed layout that does not fit its block is a bug in the format's code, not bad input.
    if (n > fixed_.size() - written_) std::abort();
    std::memcpy(fixed_.data() + written_, p, n);
  }
  written_ += n;
}

void Encoder::Varint(std::uint64_t v) {
  std::byte b[kMaxVarintBytes];
  std::size_t n = 0;
  while (v >= 0x80) {
    b[n++] = static_cast<std::byte>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  b[n++] = static_cast<std::byte>(v);
  Append(b, n);
}

void Encoder::String(std::string_view s) {
  Bytes(std::span<const std::byte>(reinterpret_cast<const std::byte*>(s.data()), s.size()));
}

void Encoder::Bytes(std::span<const std::byte> b) {
  if (b.size() > std::numeric_limits<std::uint32_t>::max()) std::abort();
  U32(static_cast<std::uint32_t>(b.size()));
  Raw(b);
}

void Encoder::Zeros(std::size_t n) {
  static constexpr std::byte kZeros[256] = {};
  while (n > 0) {
    const std::size_t k = n < sizeof(kZeros) ? n : sizeof(kZeros);
    Append(kZeros, k);
    n -= k;
  }
}

void Encoder::U64BigEndian(std::uint64_t v) {
  std::byte b[8];
  for (int i = 0; i < 8; ++i)
    b[i] = static_cast<std::byte>(static_cast<std::uint8_t>(v >> (56 - 8 * i)));
  Append(b, 8);
}

const std::byte* Decoder::Take(std::size_t n, std::string_view what) {
  if (!status_.ok()) return nullptr;
  if (remaining() < n) {
    status_ = Status::Error(EBADMSG, Named(what, "needs " + std::to_string(n) + " bytes, " +
                                                     std::to_string(remaining()) + " left"));
    return nullptr;
  }
  const std::byte* p = bytes_.data() + pos_;
  pos_ += n;
  return p;
}

bool Decoder::Varint(std::uint64_t* v, std::string_view what) {
  if (!status_.ok()) return false;
  std::uint64_t x = 0;
  for (std::size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos_ + i >= bytes_.size()) {
      return Fail(Status::Error(EBADMSG, Named(what, "truncated varint")));
    }
    const auto b = std::to_integer<std::uint8_t>(bytes_[pos_ + i]);
    // The tenth byte holds bit 63 alone: anything above 1 there does not fit in 64 bits.
    if (i == kMaxVarintBytes - 1 && b > 1) {
      return Fail(
          Status::Error(EBADMSG, Named(what, (b & 0x80) != 0 ? "varint longer than 10 bytes"
                                                             : "varint overflows 64 bits")));
    }
    x |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      pos_ += i + 1;
      *v = x;
      return true;
    }
  }
  return false;  // not reached: the tenth byte either ends the varint or fails above
}

bool Decoder::CheckLength(std::uint32_t n, std::uint32_t max_len, std::string_view what) {
  if (n > max_len) {
    return Fail(
        Status::Error(EMSGSIZE, Named(what, "length " + std::to_string(n) + " exceeds the limit " +
                                                std::to_string(max_len))));
  }
  if (n > remaining()) {
    return Fail(Status::Error(EBADMSG, Named(what, "needs " + std::to_string(n) + " bytes, " +
                                                       std::to_string(remaining()) + " left")));
  }
  return true;
}

bool Decoder::BytesView(std::span<const std::byte>* v, std::uint32_t max_len,
                        std::string_view what) {
  std::uint32_t n;
  if (!U32(&n, what) || !CheckLength(n, max_len, what)) return false;
  *v = bytes_.subspan(pos_, n);
  pos_ += n;
  return true;
}

bool Decoder::String(std::string* s, std::uint32_t max_len, std::string_view what) {
  std::span<const std::byte> v;
  if (!BytesView(&v, max_len, what)) return false;
  s->assign(reinterpret_cast<const char*>(v.data()), v.size());
  return true;
}

bool Decoder::Bytes(std::vector<std::byte>* b, std::uint32_t max_len, std::string_view what) {
  std::span<const std::byte> v;
  if (!BytesView(&v, max_len, what)) return false;
  b->assign(v.begin(), v.end());
  return true;
}

bool Decoder::Raw(std::span<std::byte> out, std::string_view what) {
  const std::byte* p = Take(out.size(), what);
  if (p == nullptr) return false;
  if (!out.empty()) std::memcpy(out.data(), p, out.size());
  return true;
}

bool Decoder::RawView(std::size_t n, std::span<const std::byte>* v, std::string_view what) {
  const std::byte* p = Take(n, what);
  if (p == nullptr) return false;
  *v = std::span<const std::byte>(p, n);
  return true;
}

bool Decoder::Skip(std::size_t n, std::string_view what) {
  return Take(n, what) != nullptr;
}

bool Decoder::U64BigEndian(std::uint64_t* v, std::string_view what) {
  const std::byte* p = Take(8, what);
  if (p == nullptr) return false;
  std::uint64_t x = 0;
  for (int i = 0; i < 8; ++i) x = (x << 8) | std::to_integer<std::uint8_t>(p[i]);
  *v = x;
  return true;
}

bool Decoder::Count(std::uint32_t* n, std::uint32_t max_count, std::size_t min_item_size,
                    std::string_view what) {
  if (!U32(n, what)) return false;
  if (*n > max_count) {
    return Fail(
        Status::Error(EMSGSIZE, Named(what, "count " + std::to_string(*n) + " exceeds the limit " +
                                                std::to_string(max_count))));
  }
  // Overflow-free form of n * min_item_size > remaining().
  if (min_item_size != 0 && *n > remaining() / min_item_size) {
    return Fail(
        Status::Error(EBADMSG, Named(what, "count " + std::to_string(*n) + " does not fit in " +
                                               std::to_string(remaining()) + " bytes left")));
  }
  return true;
}

bool Decoder::Fail(Status s) {
  if (status_.ok()) status_ = std::move(s);
  return false;
}

Status Decoder::Finish(std::string_view context) const {
  if (!status_.ok()) return status_.WithPrefix(context);
  if (remaining() != 0) {
    return Status::Error(
        EBADMSG, Named(context, std::to_string(remaining()) + " unexpected trailing bytes"));
  }
  return Status::OK();
}

}  // namespace ec
