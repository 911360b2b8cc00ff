// GF(2^8) arithmetic with the polynomial 0x11D (the field of jerasure w=8, gf-complete and ISA-L),
// and a systematic matrix code run on ISA-L's kernels.
//
// The scalar functions and ReferenceMatrixEncode are the plain, obviously-correct reference that
// the fast paths are tested against; they are not meant for bulk data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "ec/lru_cache.h"

namespace ec::gf {

std::uint8_t Mul(std::uint8_t a, std::uint8_t b);
// Multiplicative inverse; Inv(0) is 0 (undefined in the field, callers must not rely on it).
std::uint8_t Inv(std::uint8_t a);
std::uint8_t Div(std::uint8_t a, std::uint8_t b);
std::uint8_t Pow(std::uint8_t a, unsigned n);

// Inverts the n x n row-major matrix `in` into `out`. Returns false if it is singular.
bool InvertMatrix(const std::uint8_t* in, std::uint8_t* out, int n);

// Reference: coding[j][b] = XOR_i matrix[j*k+i] * data[i][b], byte by byte.
void ReferenceMatrixEncode(int k, int m, const std::uint8_t* matrix,
                           const std::uint8_t* const* data, std::uint8_t* const* coding,
                           std::size_t len);

// Region multiply-accumulate: one input region into several outputs,
//   out[r][b] ^= coef[r] * in[b]   for every row r < rows and byte b < len,
// on ISA-L's kernels (ec_encode_data_update). The partial sums of pipelined repair
// (recovery/pipeline_plan.h) are built from it. `tables` is MulAddTables(coef, rows): 32 bytes per
// coefficient, made once and reused for every region. Preconditions (callers check them): rows >=
// 1, tables.size() == 32 * rows, len <= INT32_MAX (ISA-L takes an int); `in` does not overlap any
// output. Any len works, 0 included; no alignment is needed. Thread safe (pure).
std::vector<std::uint8_t> MulAddTables(const std::uint8_t* coef, int rows);
void MulAddRegion(const std::vector<std::uint8_t>& tables, int rows, const std::uint8_t* in,
                  std::uint8_t* const* out, std::size_t len);
// Reference of MulAddRegion, byte by byte with Mul().
void ReferenceMulAddRegion(const std::uint8_t* coef, int rows, const std::uint8_t* in,
                           std::uint8_t* const* out, std::size_t len);

// A systematic (k+m, k) code over GF(2^8): data pieces 0..k-1, parity pieces k..k+m-1 with
// parity_j = sum_i coding[j*k+i] * data_i. Encode and decode run on ISA-L (ec_encode_data);
// decode tables are kept per erasure pattern in a thread-safe LRU.
//
// Thread safety: after construction all methods are safe to call concurrently.
class MatrixCodec {
 public:
  // `coding` holds m rows of k coefficients. `lru_capacity` bounds the decode-table cache
  // (Ceph's isa plugin keeps 2516).
  MatrixCodec(int k, int m, std::vector<std::uint8_t> coding, std::size_t lru_capacity = 2516);

  int k() const { return k_; }
  int m() const { return m_; }
  const std::vector<std::uint8_t>& coding() const { return coding_; }

  // Computes all m parity pieces from the k data pieces. Precondition: len <= INT32_MAX (ISA-L
  // takes an int) and k+m <= 256; callers validate lengths before they get here.
  void Encode(std::size_t len, const std::uint8_t* const* data, std::uint8_t* const* parity) const;

  // Rebuilds the pieces listed in `targets` (indexes in [0, k+m)) into `outputs` (one pointer per
  // target), reading from `pieces`, an array of k+m pointers where nullptr marks a piece that is
  // not available. The first k available pieces (in index order) are the sources.
  // Errors: EIO when fewer than k pieces are available or the chosen rows are singular; EINVAL for
  // a target out of range, more than 256 pieces or len > INT32_MAX.
  Status Decode(std::size_t len, const std::uint8_t* const* pieces, const int* targets,
                int num_targets, std::uint8_t* const* outputs) const;

  // Number of decode-table sets currently cached (for tests).
  std::size_t cached_decode_tables() const { return cache_.size(); }

 private:
  int k_;
  int m_;
  std::vector<std::uint8_t> coding_;
  std::vector<std::uint8_t> encode_tables_;
  mutable LruCache<std::string, std::vector<std::uint8_t>> cache_;
};

}  // namespace ec::gf
