// Little-endian primitives of the message headers: a Writer that appends to a byte vector and a
// bounds-checked Reader over a byte span. Strings and lists are a u32 count followed by the
// items. The Reader never reads past its span and checks a string's length against a caller's
// maximum and against the bytes left before allocating it.
//
// Thread safety: plain values; one object per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::net {

class WireWriter {
 public:
  explicit WireWriter(std::vector<std::byte>& out) : out_(out) {}
  void U8(std::uint8_t v);
  void U16(std::uint16_t v);
  void U32(std::uint32_t v);
  void U64(std::uint64_t v);
  void I32(std::int32_t v) { U32(static_cast<std::uint32_t>(v)); }
  // u32 length, then the bytes; the caller keeps the string within the peer's limits.
  void String(std::string_view s);

 private:
  std::vector<std::byte>& out_;
};

// Every read returns false once the reader has failed (the first failure is kept in status()).
// `what` names the field in the error message ("WriteShard.object").
class WireReader {
 public:
  explicit WireReader(std::span<const std::byte> bytes) : bytes_(bytes) {}
  bool U8(std::uint8_t* v, std::string_view what);
  bool U16(std::uint16_t* v, std::string_view what);
  bool U32(std::uint32_t* v, std::string_view what);
  bool U64(std::uint64_t* v, std::string_view what);
  bool I32(std::int32_t* v, std::string_view what);
  // Fails (EMSGSIZE) when the length exceeds max_len, (EBADMSG) when it exceeds the bytes left.
  bool String(std::string* s, std::uint32_t max_len, std::string_view what);
  // A list count: fails (EMSGSIZE) above max_count, (EBADMSG) when count * min_item_size exceeds
  // the bytes left (so a caller may reserve `count` items safely).
  bool Count(std::uint32_t* n, std::uint32_t max_count, std::size_t min_item_size,
             std::string_view what);
  // Records a failure found by the caller (a bad enum value, ...).
  bool Fail(Status s);
  // OK when every read succeeded and every byte was consumed; EBADMSG naming `message` otherwise.
  Status Finish(std::string_view message);

  std::size_t remaining() const { return bytes_.size() - pos_; }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  bool Take(std::size_t n, std::string_view what, const std::byte** p);
  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  Status status_;
};

}  // namespace ec::net
