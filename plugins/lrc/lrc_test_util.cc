#include "plugins/lrc/lrc_test_util.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "ec/plugin.h"
#include "plugins/lrc/lrc_plugin.h"

namespace ec::lrc_test {

std::shared_ptr<ErasureCodeLrc> MakeLrc(const std::string& profile_text, Status* status) {
  RegisterLrcBuiltin();
  Result<Profile> profile = ParseProfile("plugin=lrc " + profile_text);
  if (!profile.ok()) {
    if (status) *status = profile.status();
    return nullptr;
  }
  ErasureCodeInterfaceRef code;
  Status s = PluginRegistry::instance().factory("lrc", PluginRegistry::default_directory(),
                                                *profile, &code);
  if (status) *status = s;
  if (!s.ok()) return nullptr;
  return std::dynamic_pointer_cast<ErasureCodeLrc>(code);
}

Status InitError(Profile profile) {
  ErasureCodeLrc code(PluginRegistry::default_directory());
  return code.init(profile);
}

Status InitError(const std::string& profile_text) {
  Result<Profile> profile = ParseProfile("plugin=lrc " + profile_text);
  if (!profile.ok()) return profile.status();
  return InitError(*profile);
}

Buffer RandomBuffer(std::mt19937_64& rng, std::size_t n) {
  Buffer b = Buffer::Allocate(n, false);
  for (std::size_t i = 0; i < n; ++i) b.udata()[i] = static_cast<std::uint8_t>(rng());
  return b;
}

bool SameBytes(const Buffer& a, const Buffer& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

ChunkMap EncodeAll(const ErasureCodeInterface& code, const Buffer& data) {
  ShardSet all;
  for (unsigned i = 0; i < code.get_chunk_count(); ++i) all.insert(static_cast<int>(i));
  ChunkMap encoded;
  Status s = code.encode(all, data.span(), &encoded);
  if (!s.ok()) encoded.clear();
  return encoded;
}

}  // namespace ec::lrc_test
