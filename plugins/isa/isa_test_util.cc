#include "plugins/isa/isa_test_util.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "ec/gf.h"

namespace ec::isa_test {

std::vector<std::uint8_t> RandomBytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

std::shared_ptr<ErasureCodeIsa> MakeCode(const std::string& profile_text, Status* status,
                                         std::shared_ptr<isa::IsaTableCache> tables) {
  Result<Profile> profile = ParseProfile(profile_text);
  if (!profile.ok()) {
    if (status) *status = profile.status();
    return nullptr;
  }
  auto code = std::make_shared<ErasureCodeIsa>(std::move(tables));
  Status s = code->init(*profile);
  if (status) *status = s;
  return s.ok() ? code : nullptr;
}

Stripe::Stripe(int n, std::size_t len, std::size_t misalign)
    : n_(n), len_(len), misalign_(misalign), stride_((len + 127) / 64 * 64) {
  buf_ = Buffer::Allocate(stride_ * n + 64, true);
}

void FillData(const ErasureCodeIsa& code, Stripe& s, std::mt19937_64& rng) {
  for (unsigned i = 0; i < code.get_data_chunk_count(); ++i) {
    auto bytes = RandomBytes(rng, s.len());
    std::memcpy(s.chunk(code.chunk_index(i)), bytes.data(), bytes.size());
  }
}

Status EncodeAll(const ErasureCodeIsa& code, Stripe& s) {
  ConstChunkSpans in;
  ChunkSpans out;
  const unsigned k = code.get_data_chunk_count();
  for (unsigned i = 0; i < code.get_chunk_count(); ++i) {
    int id = code.chunk_index(i);
    if (i < k)
      in[id] = s.span(id);
    else
      out[id] = s.span(id);
  }
  return code.encode_chunks(in, out);
}

std::vector<std::uint8_t> ExpectedMatrix(isa::Technique t, int k, int m) {
  std::vector<std::uint8_t> rows(static_cast<std::size_t>(k) * m);
  for (int j = 0; j < m; ++j) {
    for (int i = 0; i < k; ++i) {
      rows[j * k + i] = t == isa::Technique::kCauchy
                            ? gf::Inv(static_cast<std::uint8_t>((k + j) ^ i))
                            : gf::Pow(gf::Pow(2, j), i);
    }
  }
  return rows;
}

void ForEachSubset(int n, int max_size, const std::function<void(const std::vector<int>&)>& fn) {
  std::vector<int> cur;
  std::function<void(int)> rec = [&](int start) {
    if (!cur.empty()) fn(cur);
    if (static_cast<int>(cur.size()) == max_size) return;
    for (int i = start; i < n; ++i) {
      cur.push_back(i);
      rec(i + 1);
      cur.pop_back();
    }
  };
  rec(0);
}

::testing::AssertionResult DecodeMatches(const ErasureCodeIsa& code, Stripe& s,
                                         const std::vector<int>& erased) {
  Stripe rebuilt(s.size(), s.len());
  ConstChunkSpans in;
  ChunkSpans out;
  ShardSet want(erased.begin(), erased.end());
  for (int id = 0; id < s.size(); ++id) {
    if (want.count(id)) {
      std::memset(rebuilt.chunk(id), 0xA5, s.len());
      out[id] = rebuilt.span(id);
    } else {
      in[id] = s.span(id);
    }
  }
  Status st = code.decode_chunks(want, in, out);
  if (!st.ok()) return ::testing::AssertionFailure() << st.ToString();
  for (int id : erased) {
    if (std::memcmp(rebuilt.chunk(id), s.chunk(id), s.len()) != 0) {
      return ::testing::AssertionFailure() << "chunk " << id << " incorrectly recovered";
    }
  }
  return ::testing::AssertionSuccess();
}

std::string PatternName(const std::vector<int>& erased) {
  std::string out = "erased {";
  for (int id : erased) out += " " + std::to_string(id);
  return out + " }";
}

}  // namespace ec::isa_test
