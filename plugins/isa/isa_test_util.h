// Helpers shared by the isa tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "plugins/isa/isa_code.h"

namespace ec::isa_test {

std::vector<std::uint8_t> RandomBytes(std::mt19937_64& rng, std::size_t n);

// A code initialised from "k=4 m=2 technique=cauchy"-style text; on failure *status says why and
// nullptr is returned. `tables` as ErasureCodeIsa's constructor.
std::shared_ptr<ErasureCodeIsa> MakeCode(const std::string& profile_text, Status* status = nullptr,
                                         std::shared_ptr<isa::IsaTableCache> tables = nullptr);

// `n` chunk buffers of `len` bytes indexed by chunk id, each starting `misalign` bytes past a
// 64-byte boundary (zero-filled).
class Stripe {
 public:
  Stripe(int n, std::size_t len, std::size_t misalign = 0);
  int size() const { return n_; }
  std::size_t len() const { return len_; }
  std::uint8_t* chunk(int id) { return buf_.udata() + misalign_ + stride_ * id; }
  std::span<std::byte> span(int id) { return {reinterpret_cast<std::byte*>(chunk(id)), len_}; }
  std::vector<std::uint8_t> copy(int id) { return {chunk(id), chunk(id) + len_}; }

 private:
  int n_;
  std::size_t len_;
  std::size_t misalign_;
  std::size_t stride_;
  Buffer buf_;
};

// Random bytes in every data chunk of `s` (by chunk id, so mappings are honoured).
void FillData(const ErasureCodeIsa& code, Stripe& s, std::mt19937_64& rng);
// encode_chunks with every data chunk in and every parity chunk out.
Status EncodeAll(const ErasureCodeIsa& code, Stripe& s);

// The coding rows by their definition (reference §4), computed with the scalar field code:
// reed_sol_van (2^j)^i, cauchy 1/((k+j) ^ i). Independent of ISA-L's generators.
std::vector<std::uint8_t> ExpectedMatrix(isa::Technique t, int k, int m);

// Calls fn for every subset of {0..n-1} with 1..max_size elements, in lexicographic order.
void ForEachSubset(int n, int max_size, const std::function<void(const std::vector<int>&)>& fn);

// Decodes the chunks in `erased` of an encoded stripe with decode_chunks (all others as input)
// and compares them with the originals.
::testing::AssertionResult DecodeMatches(const ErasureCodeIsa& code, Stripe& s,
                                         const std::vector<int>& erased);

// "erased { 0 3 }"
std::string PatternName(const std::vector<int>& erased);

}  // namespace ec::isa_test
