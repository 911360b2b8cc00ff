// Helpers shared by the lrc tests.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "plugins/lrc/lrc_code.h"

namespace ec::lrc_test {

// An lrc code made through the registry (lrc built in, layers from $EC_PLUGIN_DIR) from profile
// text (plugin=lrc implied). nullptr and *status on failure.
std::shared_ptr<ErasureCodeLrc> MakeLrc(const std::string& profile_text, Status* status = nullptr);

// init() of a fresh code with `profile` (its plugin key is not needed): its Status.
Status InitError(Profile profile);
// The same from profile text (no commas or spaces inside values: use the Profile form for JSON).
Status InitError(const std::string& profile_text);

Buffer RandomBuffer(std::mt19937_64& rng, std::size_t n);
bool SameBytes(const Buffer& a, const Buffer& b);

// Encodes `data` and returns every chunk by id.
ChunkMap EncodeAll(const ErasureCodeInterface& code, const Buffer& data);

}  // namespace ec::lrc_test
