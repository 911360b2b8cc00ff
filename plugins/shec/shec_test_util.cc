#include "plugins/shec/shec_test_util.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "plugins/shec/shec_plugin.h"

extern "C" {
#include <galois.h>
}

namespace ec::shec_test {

std::shared_ptr<ErasureCodeShec> MakeCode(const std::string& profile_text, Status* status) {
  Status ignored;
  Status* st = status ? status : &ignored;
  Result<Profile> profile = ParseProfile(profile_text);
  if (!profile.ok()) {
    *st = profile.status();
    return nullptr;
  }
  ShecPlugin plugin;
  ErasureCodeInterfaceRef code;
  *st = plugin.factory("", *profile, &code);
  if (!st->ok()) return nullptr;
  return std::dynamic_pointer_cast<ErasureCodeShec>(code);
}

Status InitError(const std::string& profile_text) {
  Status s;
  MakeCode(profile_text, &s);
  return s;
}

void ForEachSubset(int n, int max_size, const std::function<void(const std::vector<int>&)>& fn) {
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) > max_size) continue;
    std::vector<int> ids;
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) ids.push_back(i);
    fn(ids);
  }
}

EncodedStripe Encode(const ErasureCodeShec& code, std::size_t len, std::mt19937_64& rng) {
  const int k = static_cast<int>(code.get_data_chunk_count());
  const int n = static_cast<int>(code.get_chunk_count());
  EncodedStripe s;
  ConstChunkSpans in;
  ChunkSpans out;
  for (int id = 0; id < n; ++id) {
    s.chunks.push_back(Buffer::Allocate(len, true));
    if (id < k) {
      for (std::size_t b = 0; b < len; ++b)
        s.chunks[id].udata()[b] = static_cast<std::uint8_t>(rng());
      in[id] = s.chunks[id].span();
    } else {
      out[id] = s.chunks[id].span();
    }
  }
  Status st = code.encode_chunks(in, out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return s;
}

std::vector<std::vector<std::uint8_t>> ReferenceParity(const ErasureCodeShec& code,
                                                       const std::vector<Buffer>& data) {
  const int k = static_cast<int>(code.get_data_chunk_count());
  const int m = static_cast<int>(code.get_coding_chunk_count());
  const int w = code.w();
  const std::size_t word = static_cast<std::size_t>(w) / 8;
  const std::size_t len = data[0].size();
  const std::vector<int>& matrix = code.codec()->matrix();
  std::vector<std::vector<std::uint8_t>> parity(m, std::vector<std::uint8_t>(len, 0));
  for (int j = 0; j < m; ++j) {
    for (std::size_t off = 0; off < len; off += word) {
      std::uint32_t acc = 0;
      for (int i = 0; i < k; ++i) {
        std::uint32_t v = 0;
        std::memcpy(&v, data[i].udata() + off, word);
        acc ^= static_cast<std::uint32_t>(
            galois_single_multiply(static_cast<int>(v), matrix[j * k + i], w));
      }
      std::memcpy(parity[j].data() + off, &acc, word);
    }
  }
  return parity;
}

std::string Name(const std::vector<int>& ids) {
  std::string s = "{";
  for (int id : ids) s += " " + std::to_string(id);
  return s + " }";
}

}  // namespace ec::shec_test
