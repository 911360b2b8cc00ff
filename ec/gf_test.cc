#include "ec/gf.h"

#include <gtest/gtest.h>

#include <random>

namespace ec::gf {
namespace {

TEST(Gf, FieldAxioms) {
  // 0x11D: 2^8 = 0x1D.
  EXPECT_EQ(Mul(0x80, 2), 0x1D);
  for (int a = 1; a < 256; ++a) {
    EXPECT_EQ(Mul(static_cast<uint8_t>(a), Inv(static_cast<uint8_t>(a))), 1) << a;
    EXPECT_EQ(Div(static_cast<uint8_t>(a), static_cast<uint8_t>(a)), 1);
  }
  EXPECT_EQ(Pow(2, 8), 0x1D);
  // jerasure's (2,2) Vandermonde coefficient 143 (corpus-verified in the reference).
  EXPECT_EQ(Mul(143, 1), 143);
}

TEST(Gf, InvertMatrix) {
  const uint8_t id[4] = {1, 0, 0, 1};
  uint8_t out[4];
  ASSERT_TRUE(InvertMatrix(id, out, 2));
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4), std::vector<uint8_t>(id, id + 4));
  const uint8_t sing[4] = {1, 1, 1, 1};
  EXPECT_FALSE(InvertMatrix(sing, out, 2));
  const uint8_t m[4] = {1, 1, 1, 143};
  ASSERT_TRUE(InvertMatrix(m, out, 2));
  // m * out == I
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c)
      EXPECT_EQ(Mul(m[r * 2], out[c]) ^ Mul(m[r * 2 + 1], out[2 + c]), r == c ? 1 : 0);
}

// The region multiply-accumulate against the reference: every length up to 300 (ISA-L's SIMD
// kernels take their tails apart), a few large ones, 1 to 13 rows, zero and one coefficients.
TEST(Gf, MulAddRegionMatchesReference) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  std::mt19937 rng(seed);
  std::vector<size_t> lens;
  for (size_t len = 0; len <= 300; ++len) lens.push_back(len);
  for (size_t len : {1023u, 4096u, 65536u + 17u}) lens.push_back(len);
  for (size_t len : lens) {
    const int rows = 1 + static_cast<int>(rng() % 13);
    std::vector<uint8_t> coef(static_cast<size_t>(rows));
    for (auto& c : coef) c = static_cast<uint8_t>(rng());
    coef[0] = 0;
    if (rows > 1) coef[1] = 1;
    // One spare byte on each side of every region: nothing outside [0, len) may change.
    std::vector<uint8_t> in(len + 2);
    for (auto& b : in) b = static_cast<uint8_t>(rng());
    std::vector<std::vector<uint8_t>> fast(static_cast<size_t>(rows),
                                           std::vector<uint8_t>(len + 2));
    for (auto& o : fast)
      for (auto& b : o) b = static_cast<uint8_t>(rng());
    auto ref = fast;
    std::vector<uint8_t*> fp, rp;
    for (int r = 0; r < rows; ++r) {
      fp.push_back(fast[static_cast<size_t>(r)].data() + 1);
      rp.push_back(ref[static_cast<size_t>(r)].data() + 1);
    }
    const auto tables = MulAddTables(coef.data(), rows);
    ASSERT_EQ(tables.size(), 32u * static_cast<size_t>(rows));
    MulAddRegion(tables, rows, in.data() + 1, fp.data(), len);
    ReferenceMulAddRegion(coef.data(), rows, in.data() + 1, rp.data(), len);
    ASSERT_EQ(fast, ref) << "len " << len << " rows " << rows;
  }
}

// The ISA-L fast path against the reference, on random data (seed printed for replay).
TEST(MatrixCodec, MatchesReferenceAndDecodesEveryPattern) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  std::mt19937 rng(seed);
  for (auto [k, m] : std::vector<std::pair<int, int>>{{2, 1}, {4, 2}, {6, 3}, {10, 4}}) {
    std::vector<uint8_t> coding(static_cast<size_t>(k) * m);
    // A Cauchy matrix is MDS, so every pattern of up to m erasures must decode.
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < k; ++i) coding[j * k + i] = Inv(static_cast<uint8_t>((k + j) ^ i));
    MatrixCodec codec(k, m, coding);
    const size_t len = 1000 + rng() % 3000;
    std::vector<std::vector<uint8_t>> chunks(k + m, std::vector<uint8_t>(len));
    for (int i = 0; i < k; ++i)
      for (auto& b : chunks[i]) b = static_cast<uint8_t>(rng());
    std::vector<const uint8_t*> data(k);
    std::vector<uint8_t*> parity(m);
    for (int i = 0; i < k; ++i) data[i] = chunks[i].data();
    for (int j = 0; j < m; ++j) parity[j] = chunks[k + j].data();
    codec.Encode(len, data.data(), parity.data());
    std::vector<std::vector<uint8_t>> ref(m, std::vector<uint8_t>(len));
    std::vector<uint8_t*> refp(m);
    for (int j = 0; j < m; ++j) refp[j] = ref[j].data();
    ReferenceMatrixEncode(k, m, coding.data(), data.data(), refp.data(), len);
    for (int j = 0; j < m; ++j) ASSERT_EQ(ref[j], chunks[k + j]) << "k=" << k << " parity " << j;

    // Every erasure pattern of size 1..m.
    const int n = k + m;
    for (unsigned mask = 1; mask < (1u << n); ++mask) {
      if (__builtin_popcount(mask) > m) continue;
      std::vector<const uint8_t*> pieces(n);
      std::vector<int> targets;
      for (int i = 0; i < n; ++i) {
        if (mask & (1u << i))
          targets.push_back(i);
        else
          pieces[i] = chunks[i].data();
      }
      std::vector<std::vector<uint8_t>> out(targets.size(), std::vector<uint8_t>(len));
      std::vector<uint8_t*> outp;
      for (auto& o : out) outp.push_back(o.data());
      ASSERT_TRUE(codec
                      .Decode(len, pieces.data(), targets.data(), static_cast<int>(targets.size()),
                              outp.data())
                      .ok());
      for (size_t t = 0; t < targets.size(); ++t) ASSERT_EQ(out[t], chunks[targets[t]]);
    }
    EXPECT_GT(codec.cached_decode_tables(), 0u);
    // Too few pieces is an error, not a crash.
    std::vector<const uint8_t*> none(n, nullptr);
    int target = 0;
    uint8_t* o = chunks[0].data();
    EXPECT_EQ(codec.Decode(len, none.data(), &target, 1, &o).code(), EIO);
  }
}

TEST(MatrixCodec, LruIsBounded) {
  std::vector<uint8_t> coding = {1, 1, 1, 1, 2, 3};
  MatrixCodec codec(3, 2, coding, 2);
  std::vector<uint8_t> a(64, 1), b(64, 2), c(64, 3), p(64), q(64), out(64);
  const uint8_t* d[3] = {a.data(), b.data(), c.data()};
  uint8_t* par[2] = {p.data(), q.data()};
  codec.Encode(64, d, par);
  const std::vector<uint8_t>* originals[5] = {&a, &b, &c, &p, &q};
  for (int lost = 0; lost < 5; ++lost) {
    const uint8_t* pieces[5] = {a.data(), b.data(), c.data(), p.data(), q.data()};
    pieces[lost] = nullptr;
    uint8_t* o = out.data();
    ASSERT_TRUE(codec.Decode(64, pieces, &lost, 1, &o).ok());
    EXPECT_EQ(out, *originals[lost]) << "lost " << lost;
  }
  EXPECT_EQ(codec.cached_decode_tables(), 2u);
}

}  // namespace
}  // namespace ec::gf
