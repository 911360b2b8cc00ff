#include "ec/gf.h"

#include <isa-l/erasure_code.h>

#include "ec/simd.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace ec::gf {

namespace {

// Log/antilog tables of GF(2^8) with generator 2 and polynomial x^8+x^4+x^3+x^2+1 (0x11D).
struct Tables {
  std::array<std::uint8_t, 512> exp{};
  std::array<int, 256> log{};
  Tables() {
    unsigned x = 1;
    for (int i = 0; i < 255; ++i) {
      exp[i] = static_cast<std::uint8_t>(x);
      log[x] = i;
      x <<= 1;
      if (x & 0x100) x ^= 0x11D;
    }
    for (int i = 255; i < 512; ++i) exp[i] = exp[i - 255];
    log[0] = -1;
  }
};

const Tables& T() {
  static const Tables t;
  return t;
}

}  // namespace

std::uint8_t Mul(std::uint8_t a, std::uint8_t b) {
  if (a == 0 || b == 0) return 0;
  return T().exp[T().log[a] + T().log[b]];
}

std::uint8_t Inv(std::uint8_t a) {
  if (a == 0) return 0;
  return T().exp[255 - T().log[a]];
}

std::uint8_t Div(std::uint8_t a, std::uint8_t b) {
  return Mul(a, Inv(b));
}

std::uint8_t Pow(std::uint8_t a, unsigned n) {
  std::uint8_t r = 1;
  for (unsigned i = 0; i < n; ++i) r = Mul(r, a);
  return r;
}

bool InvertMatrix(const std::uint8_t* in, std::uint8_t* out, int n) {
  // gf_invert_matrix destroys its input, so work on a copy.
  std::vector<std::uint8_t> tmp(in, in + static_cast<std::size_t>(n) * n);
  return gf_invert_matrix(tmp.data(), out, n) == 0;
}

void ReferenceMatrixEncode(int k, int m, const std::uint8_t* matrix,
                           const std::uint8_t* const* data, std::uint8_t* const* coding,
                           std::size_t len) {
  for (int j = 0; j < m; ++j) {
    for (std::size_t b = 0; b < len; ++b) {
      std::uint8_t acc = 0;
      for (int i = 0; i < k; ++i) acc ^= Mul(matrix[j * k + i], data[i][b]);
      coding[j][b] = acc;
    }
  }
}

std::vector<std::uint8_t> MulAddTables(const std::uint8_t* coef, int rows) {
  std::vector<std::uint8_t> tables(static_cast<std::size_t>(32) * static_cast<std::size_t>(rows));
  // A one-source code: the coefficient "matrix" is rows x 1, i.e. the column itself.
  ec_init_tables(1, rows, const_cast<std::uint8_t*>(coef), tables.data());
  return tables;
}

void MulAddRegion(const std::vector<std::uint8_t>& tables, int rows, const std::uint8_t* in,
                  std::uint8_t* const* out, std::size_t len) {
  if (len == 0 || rows < 1) return;
  // ISA-L takes non-const pointers but writes neither the tables nor the source.
  ec_encode_data_update(static_cast<int>(len), 1, rows, 0, const_cast<std::uint8_t*>(tables.data()),
                        const_cast<std::uint8_t*>(in), const_cast<std::uint8_t**>(out));
  ClearUpperVectorState();
}

void ReferenceMulAddRegion(const std::uint8_t* coef, int rows, const std::uint8_t* in,
                           std::uint8_t* const* out, std::size_t len) {
  for (int r = 0; r < rows; ++r)
    for (std::size_t b = 0; b < len; ++b) out[r][b] ^= Mul(coef[r], in[b]);
}

MatrixCodec::MatrixCodec(int k, int m, std::vector<std::uint8_t> coding, std::size_t lru_capacity)
    : k_(k), m_(m), coding_(std::move(coding)), cache_(lru_capacity) {
  encode_tables_.resize(static_cast<std::size_t>(32) * k_ * m_);
  ec_init_tables(k_, m_, coding_.data(), encode_tables_.data());
}

void MatrixCodec::Encode(std::size_t len, const std::uint8_t* const* data,
                         std::uint8_t* const* parity) const {
  // ISA-L takes non-const pointers but does not write the sources.
  ec_encode_data(static_cast<int>(len), k_, m_, const_cast<std::uint8_t*>(encode_tables_.data()),
                 const_cast<std::uint8_t**>(data), const_cast<std::uint8_t**>(parity));
  ClearUpperVectorState();
}

Status MatrixCodec::Decode(std::size_t len, const std::uint8_t* const* pieces, const int* targets,
                           int num_targets, std::uint8_t* const* outputs) const {
  const int n = k_ + m_;
  if (num_targets <= 0) return Status::OK();
  if (k_ < 1 || m_ < 0 || n > 256 || num_targets > 256) {
    return Status::Invalid("matrix codec supports at most 256 chunks");
  }
  if (len > static_cast<std::size_t>(INT32_MAX)) return Status::Invalid("chunk too large");
  std::array<std::uint8_t*, 256> sources{};
  std::array<int, 256> source_rows{};
  int found = 0;
  for (int i = 0; i < n && found < k_; ++i) {
    if (pieces[i] != nullptr) {
      source_rows[found] = i;
      sources[found] = const_cast<std::uint8_t*>(pieces[i]);
      ++found;
    }
  }
  if (found < k_) return Status::IOError("not enough chunks to decode");

  // The cache key names the source rows and the rows to rebuild: "+s0+s1...-t0-t1...".
  std::string key;
  key.reserve(static_cast<std::size_t>(k_ + num_targets));
  for (int i = 0; i < k_; ++i) key.push_back(static_cast<char>(source_rows[i]));
  key.push_back(static_cast<char>(0xFF));
  for (int t = 0; t < num_targets; ++t) {
    if (targets[t] < 0 || targets[t] >= n) return Status::Invalid("decode target out of range");
    key.push_back(static_cast<char>(targets[t]));
  }

  std::shared_ptr<const std::vector<std::uint8_t>> tables = cache_.Get(key);
  if (!tables) {
    // Generator rows: identity for data pieces, coding_ rows for parity.
    auto row = [&](int piece, int col) -> std::uint8_t {
      if (piece < k_) return piece == col ? 1 : 0;
      return coding_[static_cast<std::size_t>(piece - k_) * k_ + col];
    };
    std::vector<std::uint8_t> sub(static_cast<std::size_t>(k_) * k_);
    for (int r = 0; r < k_; ++r)
      for (int c = 0; c < k_; ++c) sub[r * k_ + c] = row(source_rows[r], c);
    std::vector<std::uint8_t> inv(sub.size());
    if (!InvertMatrix(sub.data(), inv.data(), k_)) {
      return Status::IOError("decode matrix is singular (the code is not MDS for this pattern)");
    }
    // Each target row = generator row of the target times the inverse.
    std::vector<std::uint8_t> dm(static_cast<std::size_t>(num_targets) * k_);
    for (int t = 0; t < num_targets; ++t) {
      for (int c = 0; c < k_; ++c) {
        std::uint8_t acc = 0;
        for (int j = 0; j < k_; ++j) acc ^= Mul(row(targets[t], j), inv[j * k_ + c]);
        dm[t * k_ + c] = acc;
      }
    }
    auto built = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(32) * k_ *
                                                             num_targets);
    ec_init_tables(k_, num_targets, dm.data(), built->data());
    tables = built;
    cache_.Put(key, tables);
  }
  ec_encode_data(static_cast<int>(len), k_, num_targets, const_cast<std::uint8_t*>(tables->data()),
                 sources.data(), const_cast<std::uint8_t**>(outputs));
  ClearUpperVectorState();
  return Status::OK();
}

}  // namespace ec::gf
