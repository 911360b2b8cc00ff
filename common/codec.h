// The byte codec of every ecstore format, on disk and on the wire: one byte order (little-endian),
// one bounds-checked reader.
//
//   fixed      u8 u16 u32 u64 (and i8..i64, two's complement): 1, 2, 4, 8 bytes, least significant
//              byte first: U32(0x11223344) is 44 33 22 11.
//   varint     unsigned LEB128 of a u64: 7 bits a byte, least significant group first, the high bit
//              set on every byte but the last; 1 to 10 bytes (0 -> 00, 300 -> ac 02).
//   bytes      u32 length, then that many bytes (String, Bytes).
//   raw        bytes with no length (fixed-size fields such as magics and uuids).
//
// The one exception, U64BigEndian, exists for RocksDB keys, whose byte order must sort like the
// number; no value uses it.
//
// Encoder appends to a std::vector<std::byte> or a std::string it borrows, or fills a fixed span
// (a block or header of known layout). Encoding cannot fail; a u32-length field longer than
// UINT32_MAX or writing past the end of a fixed span is a programming error and aborts.
//
// Decoder reads a span it borrows and never reads past its end. Every read names the field
// (`what`, e.g. "WriteShard.object") and returns false on failure; the first failure is kept in
// status() and every later read fails at once, so a caller may chain reads with && and check once:
//   - EBADMSG  "<what>: needs N bytes, M left" (truncated), a varint longer than 10 bytes or
//              above 2^64-1, a count whose items cannot fit in the bytes left;
//   - EMSGSIZE "<what>: length N exceeds the limit L" (and the same for counts) when a length or
//              count is above the caller's maximum.
// Lengths and counts are checked against the caller's maximum and the bytes left before anything
// is allocated for them. Finish() tells whether every byte was consumed.
//
// Thread safety: plain values over borrowed buffers; one object per thread. The buffers must
// outlive the Encoder / Decoder (and any view a Decoder returned).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec {

// The largest unsigned LEB128 encoding of a u64.
inline constexpr std::size_t kMaxVarintBytes = 10;

class Encoder {
 public:
  explicit Encoder(std::vector<std::byte>& out) : vec_(&out) {}
  explicit Encoder(std::string& out) : str_(&out) {}
  // Writes from fixed.data() on; more than fixed.size() bytes in all aborts.
  explicit Encoder(std::span<std::byte> fixed) : fixed_(fixed) {}

  void U8(std::uint8_t v) { Le(v); }
  void U16(std::uint16_t v) { Le(v); }
  void U32(std::uint32_t v) { Le(v); }
  void U64(std::uint64_t v) { Le(v); }
  void I8(std::int8_t v) { Le(static_cast<std::uint8_t>(v)); }
  void I16(std::int16_t v) { Le(static_cast<std::uint16_t>(v)); }
  void I32(std::int32_t v) { Le(static_cast<std::uint32_t>(v)); }
  void I64(std::int64_t v) { Le(static_cast<std::uint64_t>(v)); }
  void Varint(std::uint64_t v);
  // u32 length, then the bytes. The caller keeps the length within the reader's limits.
  void String(std::string_view s);
  void Bytes(std::span<const std::byte> b);
  // The bytes alone.
  void Raw(std::span<const std::byte> b) { Append(b.data(), b.size()); }
  void Raw(std::string_view s) { Append(reinterpret_cast<const std::byte*>(s.data()), s.size()); }
  void Zeros(std::size_t n);
  // Most significant byte first: only for keys that must sort like the number.
  void U64BigEndian(std::uint64_t v);

  // Bytes written by this encoder (not counting what the vector or string held before).
  std::size_t size() const { return written_; }

 private:
  template <typename T>
  void Le(T v) {
    std::byte b[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      b[i] = static_cast<std::byte>(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    Append(b, sizeof(T));
  }
  void Append(const std::byte* p, std::size_t n);

  std::vector<std::byte>* vec_ = nullptr;
  std::string* str_ = nullptr;
  std::span<std::byte> fixed_;
  std::size_t written_ = 0;
};

class Decoder {
 public:
  explicit Decoder(std::span<const std::byte> bytes) : bytes_(bytes) {}
  explicit Decoder(std::string_view bytes)
      : bytes_(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()) {}

  bool U8(std::uint8_t* v, std::string_view what) { return Le(v, what); }
  bool U16(std::uint16_t* v, std::string_view what) { return Le(v, what); }
  bool U32(std::uint32_t* v, std::string_view what) { return Le(v, what); }
  bool U64(std::uint64_t* v, std::string_view what) { return Le(v, what); }
  bool I8(std::int8_t* v, std::string_view what) { return Signed<std::uint8_t>(v, what); }
  bool I16(std::int16_t* v, std::string_view what) { return Signed<std::uint16_t>(v, what); }
  bool I32(std::int32_t* v, std::string_view what) { return Signed<std::uint32_t>(v, what); }
  bool I64(std::int64_t* v, std::string_view what) { return Signed<std::uint64_t>(v, what); }
  // Fails (EBADMSG) on a truncated varint, one longer than kMaxVarintBytes, or one above 2^64-1.
  // Non-minimal encodings within 10 bytes (80 00 for 0) are accepted.
  bool Varint(std::uint64_t* v, std::string_view what);
  // A u32 length, then that many bytes. Fails (EMSGSIZE) when the length exceeds max_len,
  // (EBADMSG) when it exceeds the bytes left; nothing is allocated before both checks.
  bool String(std::string* s, std::uint32_t max_len, std::string_view what);
  bool Bytes(std::vector<std::byte>* b, std::uint32_t max_len, std::string_view what);
  // The same, as a view into the decoder's input (no copy).
  bool BytesView(std::span<const std::byte>* v, std::uint32_t max_len, std::string_view what);
  // Exactly out.size() bytes, copied into `out`.
  bool Raw(std::span<std::byte> out, std::string_view what);
  // The next n bytes as a view into the input.
  bool RawView(std::size_t n, std::span<const std::byte>* v, std::string_view what);
  bool Skip(std::size_t n, std::string_view what);
  bool U64BigEndian(std::uint64_t* v, std::string_view what);
  // A u32 list count. Fails (EMSGSIZE) above max_count, (EBADMSG) when count * min_item_size
  // exceeds the bytes left, so that a caller may reserve `count` items safely (min_item_size is the
  // smallest encoding of one item; it must be at least 1 for that promise to hold).
  bool Count(std::uint32_t* n, std::uint32_t max_count, std::size_t min_item_size,
             std::string_view what);
  // Records a failure the caller found (a bad enum value, a checksum, ...); returns false. The
  // first failure wins.
  bool Fail(Status s);

  // OK when every read succeeded and every byte was consumed. Otherwise the first failure with
  // "<context>: " in front, or EBADMSG "<context>: N unexpected trailing bytes".
  Status Finish(std::string_view context) const;

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }
  std::size_t position() const { return pos_; }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  // The next n bytes, or nullptr after recording EBADMSG (or an earlier failure).
  const std::byte* Take(std::size_t n, std::string_view what);
  bool CheckLength(std::uint32_t n, std::uint32_t max_len, std::string_view what);
  template <typename T>
  bool Le(T* v, std::string_view what) {
    const std::byte* p = Take(sizeof(T), what);
    if (p == nullptr) return false;
    T x = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      x = static_cast<T>(
          x | static_cast<T>(static_cast<T>(std::to_integer<std::uint8_t>(p[i])) << (8 * i)));
    }
    *v = x;
    return true;
  }
  template <typename U, typename S>
  bool Signed(S* v, std::string_view what) {
    U u;
    if (!Le(&u, what)) return false;
    *v = static_cast<S>(u);
    return true;
  }

  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
  Status status_;
};

}  // namespace ec
