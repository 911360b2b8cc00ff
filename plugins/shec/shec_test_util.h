// Helpers shared by the shec tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "plugins/shec/shec_code.h"

namespace ec::shec_test {

// A code initialised from "k=4 m=3 c=2 technique=single"-style text through the plugin's factory
// (so the technique default applies); nullptr with *status on failure.
std::shared_ptr<ErasureCodeShec> MakeCode(const std::string& profile_text,
                                          Status* status = nullptr);
// The init error of `profile_text` (OK when it is valid).
Status InitError(const std::string& profile_text);

// Calls fn for every subset of {0..n-1} with 1..max_size elements.
void ForEachSubset(int n, int max_size, const std::function<void(const std::vector<int>&)>& fn);

// One encoded stripe: k+m chunks of `len` bytes, random data, parity by encode_chunks.
struct EncodedStripe {
  std::vector<Buffer> chunks;
};
EncodedStripe Encode(const ErasureCodeShec& code, std::size_t len, std::mt19937_64& rng);

// Reference parity: every parity by its definition, word by word in GF(2^w) (w/8-byte
// little-endian words) with gf-complete's scalar multiply, independent of ISA-L and of the
// region code paths.
std::vector<std::vector<std::uint8_t>> ReferenceParity(const ErasureCodeShec& code,
                                                       const std::vector<Buffer>& data);

// "{ 0 3 }"
std::string Name(const std::vector<int>& ids);

}  // namespace ec::shec_test
