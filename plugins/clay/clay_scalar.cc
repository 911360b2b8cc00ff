#include "plugins/clay/clay_scalar.h"

#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "ec/buffer.h"
#include "ec/gf.h"
#include "ec/simd.h"

namespace ec::clay {

namespace {

std::span<const std::byte> ConstSpan(const std::uint8_t* p, std::size_t len) {
  return {reinterpret_cast<const std::byte*>(p), len};
}
std::span<std::byte> MutSpan(std::uint8_t* p, std::size_t len) {
  return {reinterpret_cast<std::byte*>(p), len};
}

// ISA-L's AVX2 kernels return with the upper YMM halves dirty (see ec/simd.h); a 32-byte kernel
// call cost 170 ns instead of 13 ns here until every call was followed by VZEROUPPER.
inline void AfterIsal() {
  ClearUpperVectorState();
}

// Deterministic filler for the linearity check.
std::uint64_t NextRandom(std::uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

}  // namespace

bool XorRows(std::size_t len, int n_in, const std::uint8_t* const* in, std::uint8_t* out) {
  // ISA-L's xor_gen wants the length in whole 32-byte vectors and at most 255 sources.
  if (len % 32 != 0 || n_in < 2 || n_in > 255) return false;
  for (int s = 0; s < n_in; ++s)
    if (reinterpret_cast<std::uintptr_t>(in[s]) % 32 != 0) return false;
  if (out == nullptr) return true;
  if (reinterpret_cast<std::uintptr_t>(out) % 32 != 0) return false;
  std::array<void*, 256> vects{};
  for (int s = 0; s < n_in; ++s) vects[s] = const_cast<std::uint8_t*>(in[s]);
  vects[n_in] = out;
  const bool ok = xor_gen(n_in + 1, static_cast<int>(len), vects.data()) == 0;
  AfterIsal();
  return ok;
}

void ApplyTables(std::size_t len, int n_in, int n_out, const std::uint8_t* tables,
                 const std::uint8_t* const* in, std::uint8_t* const* out) {
  auto* t = const_cast<std::uint8_t*>(tables);
  auto** src = const_cast<std::uint8_t**>(in);
  auto** dst = const_cast<std::uint8_t**>(out);
  const int n = static_cast<int>(len);
#if defined(__x86_64__)
  // CLAY makes many short calls; going straight to ISA-L's AVX2 kernels (what ec_encode_data
  // dispatches to on these CPUs) saves a few nanoseconds each.
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  if (has_avx2 && n >= 32) {
    while (n_out > 0) {
      const int rows = n_out > 6 ? 6 : n_out;
      switch (rows) {
        case 1:
          gf_vect_dot_prod_avx2(n, n_in, t, src, dst[0]);
          break;
        case 2:
          gf_2vect_dot_prod_avx2(n, n_in, t, src, dst);
          break;
        case 3:
          gf_3vect_dot_prod_avx2(n, n_in, t, src, dst);
          break;
        case 4:
          gf_4vect_dot_prod_avx2(n, n_in, t, src, dst);
          break;
        case 5:
          gf_5vect_dot_prod_avx2(n, n_in, t, src, dst);
          break;
        default:
          gf_6vect_dot_prod_avx2(n, n_in, t, src, dst);
          break;
      }
      t += static_cast<std::size_t>(32) * n_in * rows;
      dst += rows;
      n_out -= rows;
    }
    AfterIsal();
    return;
  }
#endif
  ec_encode_data(n, n_in, n_out, t, src, dst);
  AfterIsal();
}

Result<bool> ProbeByteMatrix(const ErasureCodeInterface& code, int k, int m,
                             std::vector<std::uint8_t>* matrix) {
  std::size_t len = code.get_chunk_size(1);
  if (len == 0) len = 32;
  Buffer region = Buffer::Allocate(len * (k + m), true);
  auto chunk = [&](int i) { return region.udata() + i * len; };
  ConstChunkSpans in;
  ChunkSpans out;
  for (int i = 0; i < k; ++i) in[i] = ConstSpan(chunk(i), len);
  for (int j = 0; j < m; ++j) out[k + j] = MutSpan(chunk(k + j), len);

  matrix->assign(static_cast<std::size_t>(k) * m, 0);
  for (int i = 0; i < k; ++i) {
    std::memset(region.data(), 0, len * k);
    std::memset(chunk(i), 1, len);
    EC_RETURN_IF_ERROR(code.encode_chunks(in, out));
    for (int j = 0; j < m; ++j) {
      const std::uint8_t* p = chunk(k + j);
      for (std::size_t b = 1; b < len; ++b)
        if (p[b] != p[0]) return false;
      (*matrix)[static_cast<std::size_t>(j) * k + i] = p[0];
    }
  }
  // Unit vectors only show the images of 0x01; random bytes show whether the code really is a
  // byte-wise GF(2^8) matrix (a bit-matrix code can pass the first test by accident).
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (std::size_t b = 0; b < len * k; ++b)
    region.udata()[b] = static_cast<std::uint8_t>(NextRandom(&state));
  EC_RETURN_IF_ERROR(code.encode_chunks(in, out));
  std::vector<std::uint8_t> expect(len * m);
  std::vector<const std::uint8_t*> data(k);
  std::vector<std::uint8_t*> parity(m);
  for (int i = 0; i < k; ++i) data[i] = chunk(i);
  for (int j = 0; j < m; ++j) parity[j] = expect.data() + j * len;
  gf::ReferenceMatrixEncode(k, m, matrix->data(), data.data(), parity.data(), len);
  return std::memcmp(expect.data(), chunk(k), len * m) == 0;
}

Status PairCode::Init(ErasureCodeInterfaceRef code, bool allow_matrix) {
  if (!code || code->get_data_chunk_count() != 2 || code->get_coding_chunk_count() != 2)
    return Status::Invalid("the clay pairwise code must be a (2,2) code");
  code_ = std::move(code);
  alignment_ = code_->get_chunk_size(1);
  std::vector<std::uint8_t> m;
  Result<bool> linear = ProbeByteMatrix(*code_, 2, 2, &m);
  if (!linear.ok()) return linear.status();
  linear_ = *linear && allow_matrix;
  if (!linear_) return Status::OK();
  std::copy(m.begin(), m.end(), matrix_.begin());
  // Generator rows of the 4 tuple values over (C_A, C_B).
  const std::uint8_t rows[4][2] = {{1, 0}, {0, 1}, {m[0], m[1]}, {m[2], m[3]}};
  for (unsigned known = 0; known < 16; ++known) {
    if (std::popcount(known) != 2) continue;
    const int a = std::countr_zero(known);
    const int b = std::countr_zero(known & (known - 1));
    const std::uint8_t sub[4] = {rows[a][0], rows[a][1], rows[b][0], rows[b][1]};
    std::uint8_t inv[4];
    if (!gf::InvertMatrix(sub, inv, 2)) return Status::Invalid("the clay pairwise code is not MDS");
    for (unsigned target = 1; target < 16; ++target) {
      if (target & known) continue;
      std::vector<std::uint8_t> coef;
      for (int t = 0; t < 4; ++t) {
        if (!(target & (1u << t))) continue;
        for (int c = 0; c < 2; ++c)
          coef.push_back(gf::Mul(rows[t][0], inv[c]) ^ gf::Mul(rows[t][1], inv[2 + c]));
      }
      const int n = static_cast<int>(coef.size() / 2);
      tables_[known][target].resize(32 * 2 * n);
      ec_init_tables(2, n, coef.data(), tables_[known][target].data());
      coef_[known][target] = std::move(coef);
    }
  }
  return Status::OK();
}

Status PairCode::Solve(unsigned known, unsigned target, std::size_t len,
                       const std::uint8_t* const* in, std::uint8_t* const* out,
                       std::uint8_t* spare) const {
  const int n_out = std::popcount(target);
  if (linear_) {
    ApplyTables(len, 2, n_out, tables_[known][target].data(), in, out);
    return Status::OK();
  }
  ConstChunkSpans have;
  ChunkSpans get;
  ShardSet want;
  int next_in = 0, next_out = 0;
  for (int t = 0; t < 4; ++t) {
    const unsigned bit = 1u << t;
    if (known & bit) {
      have[t] = ConstSpan(in[next_in++], len);
    } else if (target & bit) {
      get[t] = MutSpan(out[next_out++], len);
      want.insert(t);
    } else {
      get[t] = MutSpan(spare, len);
    }
  }
  return code_->decode_chunks(want, have, get);
}

std::vector<std::uint8_t> PairCode::Coefficients(unsigned known, unsigned target) const {
  return coef_[known][target];
}

Status MdsCode::Init(ErasureCodeInterfaceRef code, int data, int parity, bool allow_matrix) {
  if (!code || static_cast<int>(code->get_data_chunk_count()) != data ||
      static_cast<int>(code->get_coding_chunk_count()) != parity) {
    return Status::Invalid("the clay per-plane code must be a (" + std::to_string(data) + "," +
                           std::to_string(parity) + ") code");
  }
  code_ = std::move(code);
  data_ = data;
  parity_ = parity;
  Result<bool> linear = ProbeByteMatrix(*code_, data, parity, &matrix_);
  if (!linear.ok()) return linear.status();
  has_matrix_ = *linear;
  linear_ = *linear && allow_matrix;
  return Status::OK();
}

bool MdsCode::Determines(const std::vector<int>& sources) const {
  const int k = data_;
  if (!has_matrix_) return true;
  if (static_cast<int>(sources.size()) != k) return false;
  std::vector<std::uint8_t> sub(static_cast<std::size_t>(k) * k), inv(sub.size());
  for (int r = 0; r < k; ++r) {
    for (int c = 0; c < k; ++c) {
      const int node = sources[r];
      sub[r * k + c] =
          node < k ? (node == c ? 1 : 0) : matrix_[static_cast<std::size_t>(node - k) * k + c];
    }
  }
  return gf::InvertMatrix(sub.data(), inv.data(), k);
}

Result<std::vector<int>> MdsCode::ChooseSources(const std::vector<int>& fixed,
                                                const std::vector<int>& known) const {
  const int k = data_;
  const int free_count = k - static_cast<int>(fixed.size());
  if (free_count < 0 || free_count > static_cast<int>(known.size()))
    return Status::IOError("the clay per-plane code cannot decode this erasure pattern");
  auto with = [&](const std::vector<int>& pick) {
    std::vector<int> sources = fixed;
    for (int i : pick) sources.push_back(known[i]);
    std::sort(sources.begin(), sources.end());
    return sources;
  };
  std::vector<int> pick(free_count);
  for (int i = 0; i < free_count; ++i) pick[i] = i;
  const int n_known = static_cast<int>(known.size());
  // Subsets in lexicographic order; bounded, since a code with no decodable subset among the
  // first tens of thousands is not one whose pattern is worth searching further.
  for (int tries = 0; tries < (1 << 16); ++tries) {
    std::vector<int> sources = with(pick);
    if (Determines(sources)) return sources;
    int i = free_count - 1;
    while (i >= 0 && pick[i] == n_known - free_count + i) --i;
    if (i < 0) break;
    ++pick[i];
    for (int j = i + 1; j < free_count; ++j) pick[j] = pick[j - 1] + 1;
  }
  return Status::IOError("the clay per-plane code cannot decode this erasure pattern");
}

Result<std::shared_ptr<const MdsCode::Solve>> MdsCode::Prepare(
    const std::vector<int>& sources, const std::vector<int>& targets) const {
  auto solve = std::make_shared<Solve>();
  solve->sources = sources;
  solve->targets = targets;
  if (!linear_ || targets.empty()) return std::shared_ptr<const Solve>(std::move(solve));
  const int k = data_;
  auto row = [&](int node, int col) -> std::uint8_t {
    if (node < k) return node == col ? 1 : 0;
    return matrix_[static_cast<std::size_t>(node - k) * k + col];
  };
  std::vector<std::uint8_t> sub(static_cast<std::size_t>(k) * k), inv(sub.size());
  for (int r = 0; r < k; ++r)
    for (int c = 0; c < k; ++c) sub[r * k + c] = row(sources[r], c);
  if (!gf::InvertMatrix(sub.data(), inv.data(), k))
    return Status::IOError("the clay per-plane code cannot decode this erasure pattern");
  const int n = static_cast<int>(targets.size());
  std::vector<std::uint8_t> coef(static_cast<std::size_t>(n) * k);
  for (int t = 0; t < n; ++t) {
    for (int c = 0; c < k; ++c) {
      std::uint8_t acc = 0;
      for (int j = 0; j < k; ++j) acc ^= gf::Mul(row(targets[t], j), inv[j * k + c]);
      coef[t * k + c] = acc;
    }
  }
  solve->tables.resize(static_cast<std::size_t>(32) * k * n);
  ec_init_tables(k, n, coef.data(), solve->tables.data());
  solve->coef = std::move(coef);
  return std::shared_ptr<const Solve>(std::move(solve));
}

Status MdsCode::Run(const Solve& solve, std::size_t len, const std::uint8_t* const* in,
                    std::uint8_t* const* out) const {
  if (solve.targets.empty()) return Status::OK();
  if (linear_) {
    ApplyTables(len, data_, static_cast<int>(solve.targets.size()), solve.tables.data(), in, out);
    return Status::OK();
  }
  ConstChunkSpans have;
  ChunkSpans get;
  ShardSet want;
  for (std::size_t i = 0; i < solve.sources.size(); ++i)
    have[solve.sources[i]] = ConstSpan(in[i], len);
  for (std::size_t j = 0; j < solve.targets.size(); ++j) {
    get[solve.targets[j]] = MutSpan(out[j], len);
    want.insert(solve.targets[j]);
  }
  return code_->decode_chunks(want, have, get);
}

}  // namespace ec::clay
