// Helpers shared by the clay tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "plugins/clay/clay_code.h"

namespace ec::clay_test {

// A clay code made through the registry (clay built in, sub-codes from $EC_PLUGIN_DIR) from
// "k=4 m=2 d=5"-style text (plugin=clay implied). nullptr and *status on failure.
std::shared_ptr<ErasureCodeClay> MakeClay(const std::string& profile_text,
                                          Status* status = nullptr);

bool ReadFile(const std::filesystem::path& path, Buffer* out);
Buffer RandomBuffer(std::mt19937_64& rng, std::size_t n);
bool SameBytes(const Buffer& a, const Buffer& b);
bool SameBytes(std::span<const std::byte> a, std::span<const std::byte> b);

// Encodes `data` (k * chunk_size bytes) and returns all k+m chunks by id.
ChunkMap EncodeAll(const ErasureCodeInterface& code, const Buffer& data);

// The concatenation of `ranges` of `chunk` (what a helper sends), with sub-chunks of `sub` bytes.
Buffer Gather(const Buffer& chunk, const std::vector<SubChunkRange>& ranges, std::size_t sub);

// Checks, from the definition and with the scalar sub-codes' own encode_chunks only, that `chunks`
// (all k+m chunks of one stripe) form a CLAY codeword of `code`: pairing every non-dot vertex
// gives uncoupled values U, and in every plane U of the parity nodes is the per-plane code's
// encoding of U of the data nodes (virtual nodes zero). A systematic code is determined by its
// data, so a codeword with the right data has Ceph's bytes. Returns "" or what is wrong.
std::string VerifyCodeword(const ErasureCodeClay& code, const ChunkMap& chunks);

// The (k, m, d) triples of the v14.0.0-3924 clay corpus (reference §5.3).
const std::vector<std::array<int, 3>>& CorpusTriples();

}  // namespace ec::clay_test
