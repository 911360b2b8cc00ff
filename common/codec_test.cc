#include "common/codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace ec {
namespace {

std::vector<std::byte> Bytes(std::initializer_list<int> v) {
  std::vector<std::byte> out;
  for (int b : v) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::string Hex(std::span<const std::byte> b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (std::byte x : b) {
    const auto v = std::to_integer<unsigned>(x);
    s += kHex[v >> 4];
    s += kHex[v & 15];
  }
  return s;
}

// One record with a field of every kind.
struct Record {
  std::uint8_t a = 0;
  std::uint16_t b = 0;
  std::uint32_t c = 0;
  std::uint64_t d = 0;
  std::int8_t e = 0;
  std::int16_t f = 0;
  std::int32_t g = 0;
  std::int64_t h = 0;
  std::uint64_t v = 0;
  std::string s;
  std::vector<std::byte> bytes;
  std::vector<std::uint32_t> list;
  std::uint64_t key = 0;
  std::array<std::byte, 3> raw{};

  bool operator==(const Record&) const = default;
};

void Encode(const Record& r, Encoder& w) {
  w.U8(r.a);
  w.U16(r.b);
  w.U32(r.c);
  w.U64(r.d);
  w.I8(r.e);
  w.I16(r.f);
  w.I32(r.g);
  w.I64(r.h);
  w.Varint(r.v);
  w.String(r.s);
  w.Bytes(r.bytes);
  w.U32(static_cast<std::uint32_t>(r.list.size()));
  for (std::uint32_t x : r.list) w.U32(x);
  w.U64BigEndian(r.key);
  w.Raw(r.raw);
}

Status Decode(std::span<const std::byte> in, Record* r) {
  Decoder d(in);
  std::uint32_t n = 0;
  d.U8(&r->a, "a") && d.U16(&r->b, "b") && d.U32(&r->c, "c") && d.U64(&r->d, "d") &&
      d.I8(&r->e, "e") && d.I16(&r->f, "f") && d.I32(&r->g, "g") && d.I64(&r->h, "h") &&
      d.Varint(&r->v, "v") && d.String(&r->s, 1000, "s") && d.Bytes(&r->bytes, 1000, "bytes") &&
      d.Count(&n, 100, 4, "list");
  if (d.ok()) {
    r->list.resize(n);
    for (std::uint32_t& x : r->list) d.U32(&x, "list item");
  }
  d.U64BigEndian(&r->key, "key") && d.Raw(r->raw, "raw");
  return d.Finish("Record");
}

Record Sample() {
  Record r;
  r.a = 0xA1;
  r.b = 0xB2B3;
  r.c = 0xC4C5C6C7;
  r.d = 0xD8D9DADBDCDDDEDFull;
  r.e = -2;
  r.f = -300;
  r.g = std::numeric_limits<std::int32_t>::min();
  r.h = -1;
  r.v = 300;
  r.s = std::string("na\0me", 5);
  r.bytes = Bytes({1, 2, 3});
  r.list = {7, 8};
  r.key = 0x0102030405060708ull;
  r.raw = {std::byte{0xEE}, std::byte{0xEF}, std::byte{0xF0}};
  return r;
}

TEST(Codec, RoundTripIntoVectorStringAndFixedSpan) {
  const Record r = Sample();
  std::vector<std::byte> v;
  Encoder ev(v);
  Encode(r, ev);
  EXPECT_EQ(ev.size(), v.size());

  std::string s = "prefix";
  Encoder es(s);
  Encode(r, es);
  ASSERT_EQ(s.size(), 6 + v.size());
  EXPECT_EQ(es.size(), v.size());  // counts only what it wrote
  EXPECT_EQ(s.substr(6), std::string(reinterpret_cast<const char*>(v.data()), v.size()));

  std::vector<std::byte> block(v.size() + 10, std::byte{0x55});
  Encoder ef(std::span<std::byte>(block.data(), v.size()));
  Encode(r, ef);
  EXPECT_TRUE(std::equal(v.begin(), v.end(), block.begin()));
  EXPECT_EQ(block[v.size()], std::byte{0x55});  // nothing past the span

  Record back;
  Status st = Decode(v, &back);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(back, r);

  // The std::string form of the decoder reads the same bytes.
  Decoder ds(std::string_view(s).substr(6));
  std::uint8_t a = 0;
  ASSERT_TRUE(ds.U8(&a, "a"));
  EXPECT_EQ(a, r.a);
}

TEST(Codec, KnownAnswerBytesAreLittleEndian) {
  std::vector<std::byte> out;
  Encoder w(out);
  w.U16(0x1122);
  w.U32(0x11223344);
  w.U64(0x1122334455667788ull);
  w.I32(-2);
  w.String("ab");
  w.Varint(300);
  w.U64BigEndian(0x1122334455667788ull);
  EXPECT_EQ(Hex(out),
            "2211"
            "44332211"
            "8877665544332211"
            "feffffff"
            "020000006162"
            "ac02"
            "1122334455667788");

  Decoder d(out);
  std::uint16_t u16;
  std::uint32_t u32;
  std::uint64_t u64;
  ASSERT_TRUE(d.U16(&u16, "u16") && d.U32(&u32, "u32") && d.U64(&u64, "u64"));
  EXPECT_EQ(u16, 0x1122);
  EXPECT_EQ(u32, 0x11223344u);
  EXPECT_EQ(u64, 0x1122334455667788ull);
}

TEST(Codec, EveryTruncationFailsCleanly) {
  std::vector<std::byte> full;
  Encoder w(full);
  Encode(Sample(), w);
  for (std::size_t len = 0; len < full.size(); ++len) {
    // A copy of exactly `len` bytes, so that ASan would catch a read past it.
    std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(len));
    Record r;
    Status s = Decode(cut, &r);
    EXPECT_FALSE(s.ok()) << "length " << len;
    EXPECT_EQ(s.code(), EBADMSG) << "length " << len << ": " << s.ToString();
    EXPECT_EQ(s.message().rfind("Record: ", 0), 0u) << s.message();
  }
}

TEST(Codec, TrailingBytesAndFirstFailureWin) {
  std::vector<std::byte> in = Bytes({1, 2, 3});
  Decoder d(in);
  std::uint16_t v;
  ASSERT_TRUE(d.U16(&v, "v"));
  EXPECT_FALSE(d.AtEnd());
  Status s = d.Finish("Msg");
  EXPECT_EQ(s.code(), EBADMSG);
  EXPECT_EQ(s.message(), "Msg: 1 unexpected trailing bytes");

  Decoder e(in);
  std::uint32_t big;
  EXPECT_FALSE(e.U32(&big, "big"));
  EXPECT_EQ(e.status().message(), "big: needs 4 bytes, 3 left");
  std::uint8_t small;
  EXPECT_FALSE(e.U8(&small, "small"));  // sticky: later reads fail too
  EXPECT_FALSE(e.Fail(Status::Invalid("later")));
  EXPECT_EQ(e.Finish("Msg").message(), "Msg: big: needs 4 bytes, 3 left");
  EXPECT_EQ(e.position(), 0u);
}

TEST(Codec, LengthsAreCheckedBeforeAllocation) {
  // A string claiming 4 GiB - 1 bytes with 2 behind it.
  std::vector<std::byte> in = Bytes({0xff, 0xff, 0xff, 0xff, 'x', 'y'});
  std::string s;
  Decoder over_limit(in);
  EXPECT_FALSE(over_limit.String(&s, 100, "name"));
  EXPECT_EQ(over_limit.status().code(), EMSGSIZE);
  EXPECT_EQ(over_limit.status().message(), "name: length 4294967295 exceeds the limit 100");

  Decoder past_end(in);
  EXPECT_FALSE(past_end.String(&s, UINT32_MAX, "name"));
  EXPECT_EQ(past_end.status().code(), EBADMSG);
  EXPECT_TRUE(s.empty());

  std::vector<std::byte> ok = Bytes({2, 0, 0, 0, 'x', 'y'});
  Decoder view(ok);
  std::span<const std::byte> v;
  ASSERT_TRUE(view.BytesView(&v, 2, "v"));
  EXPECT_EQ(v.data(), ok.data() + 4);  // a view, not a copy
  EXPECT_TRUE(view.Finish("v").ok());

  Decoder exact(ok);
  EXPECT_FALSE(exact.String(&s, 1, "v"));  // the limit is inclusive of 2, not of 1
  EXPECT_EQ(exact.status().code(), EMSGSIZE);
}

TEST(Codec, CountsAreCheckedAgainstLimitAndBytesLeft) {
  std::vector<std::byte> in = Bytes({3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});  // 3 items, 8 bytes left
  std::uint32_t n = 0;
  Decoder limit(in);
  EXPECT_FALSE(limit.Count(&n, 2, 1, "items"));
  EXPECT_EQ(limit.status().code(), EMSGSIZE);
  EXPECT_EQ(limit.status().message(), "items: count 3 exceeds the limit 2");

  Decoder fit(in);
  EXPECT_FALSE(fit.Count(&n, 10, 4, "items"));  // 12 bytes needed, 8 left
  EXPECT_EQ(fit.status().code(), EBADMSG);
  EXPECT_EQ(fit.status().message(), "items: count 3 does not fit in 8 bytes left");

  Decoder good(in);
  EXPECT_TRUE(good.Count(&n, 10, 2, "items"));
  EXPECT_EQ(n, 3u);

  // A huge item size cannot overflow the check.
  std::vector<std::byte> one = Bytes({1, 0, 0, 0});
  Decoder huge(one);
  EXPECT_FALSE(huge.Count(&n, 10, std::numeric_limits<std::size_t>::max(), "items"));
}

TEST(Codec, VarintEdgeCases) {
  struct Case {
    std::uint64_t value;
    const char* hex;
  };
  const Case cases[] = {
      {0, "00"},
      {1, "01"},
      {127, "7f"},
      {128, "8001"},
      {300, "ac02"},
      {16383, "ff7f"},
      {16384, "808001"},
      {std::uint64_t{1} << 63, "80808080808080808001"},
      {std::numeric_limits<std::uint64_t>::max(), "ffffffffffffffffff01"},
  };
  for (const Case& c : cases) {
    std::vector<std::byte> out;
    Encoder w(out);
    w.Varint(c.value);
    EXPECT_EQ(Hex(out), c.hex) << c.value;
    Decoder d(out);
    std::uint64_t back = 1;
    ASSERT_TRUE(d.Varint(&back, "v")) << d.status().ToString();
    EXPECT_EQ(back, c.value);
    EXPECT_TRUE(d.AtEnd());
    // Every cut of it is a truncated varint.
    for (std::size_t len = 0; len < out.size(); ++len) {
      std::vector<std::byte> cut(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(len));
      Decoder t(cut);
      EXPECT_FALSE(t.Varint(&back, "v"));
      EXPECT_EQ(t.status().code(), EBADMSG);
    }
  }

  std::uint64_t v = 0;
  // Eleven bytes: ten with the continuation bit, then a terminator.
  std::vector<std::byte> eleven =
      Bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00});
  Decoder d11(eleven);
  EXPECT_FALSE(d11.Varint(&v, "v"));
  EXPECT_EQ(d11.status().code(), EBADMSG);
  EXPECT_EQ(d11.status().message(), "v: varint longer than 10 bytes");

  // Ten bytes whose last holds more than bit 63: 2^64 and above.
  std::vector<std::byte> overflow =
      Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02});
  Decoder dov(overflow);
  EXPECT_FALSE(dov.Varint(&v, "v"));
  EXPECT_EQ(dov.status().message(), "v: varint overflows 64 bits");

  // Non-minimal but within ten bytes: accepted.
  std::vector<std::byte> padded = Bytes({0x80, 0x00});
  Decoder dp(padded);
  ASSERT_TRUE(dp.Varint(&v, "v"));
  EXPECT_EQ(v, 0u);
}

TEST(Codec, RawSkipAndViews) {
  std::vector<std::byte> in = Bytes({1, 2, 3, 4, 5});
  Decoder d(in);
  std::array<std::byte, 2> two{};
  std::span<const std::byte> view;
  ASSERT_TRUE(d.Raw(two, "two"));
  EXPECT_EQ(two[1], std::byte{2});
  ASSERT_TRUE(d.Skip(1, "gap"));
  ASSERT_TRUE(d.RawView(2, &view, "tail"));
  EXPECT_EQ(view[0], std::byte{4});
  EXPECT_TRUE(d.AtEnd());
  EXPECT_FALSE(d.Skip(1, "more"));
  EXPECT_EQ(d.status().message(), "more: needs 1 bytes, 0 left");

  std::string out;
  Encoder w(out);
  w.Zeros(300);
  w.Raw(std::string_view("xyz"));
  EXPECT_EQ(out.size(), 303u);
  EXPECT_EQ(out.substr(298), std::string("\0\0xyz", 5));
}

TEST(CodecDeathTest, FixedSpanOverflowAborts) {
  std::array<std::byte, 3> small{};
  EXPECT_DEATH(
      {
        Encoder w{std::span<std::byte>(small)};
        w.U32(1);
      },
      "");
}

// Random records round-trip, and random bytes never crash the decoder or make it read past the
// input (ASan would report it); a failure always comes with a message.
TEST(Codec, RandomInputs) {
  const char* env = std::getenv("ECSTORE_TEST_SEED");
  const std::uint64_t seed = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
  std::cout << "seed " << seed << " (ECSTORE_TEST_SEED replays)" << std::endl;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto bits = [&](int n) { return n == 64 ? rng() : rng() & ((std::uint64_t{1} << n) - 1); };

  for (int i = 0; i < 2000; ++i) {
    Record r;
    r.a = static_cast<std::uint8_t>(rng());
    r.b = static_cast<std::uint16_t>(rng());
    r.c = static_cast<std::uint32_t>(rng());
    r.d = rng();
    r.e = static_cast<std::int8_t>(rng());
    r.f = static_cast<std::int16_t>(rng());
    r.g = static_cast<std::int32_t>(rng());
    r.h = static_cast<std::int64_t>(rng());
    r.v = bits(static_cast<int>(rng() % 64) + 1);
    r.s.resize(rng() % 40);
    for (char& c : r.s) c = static_cast<char>(rng());
    r.bytes.resize(rng() % 40);
    for (std::byte& b : r.bytes) b = static_cast<std::byte>(rng());
    r.list.resize(rng() % 20);
    for (std::uint32_t& x : r.list) x = static_cast<std::uint32_t>(rng());
    r.key = rng();
    std::vector<std::byte> out;
    Encoder w(out);
    Encode(r, w);
    Record back;
    Status s = Decode(out, &back);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(back, r);
  }

  for (int i = 0; i < 20000; ++i) {
    std::vector<std::byte> junk(rng() % 200);
    for (std::byte& b : junk) b = static_cast<std::byte>(rng());
    Record r;
    Status s = Decode(junk, &r);
    if (!s.ok()) {
      EXPECT_FALSE(s.message().empty());
      EXPECT_TRUE(s.code() == EBADMSG || s.code() == EMSGSIZE) << s.ToString();
    }
  }
}

}  // namespace
}  // namespace ec
