#include <cstring>

#include "bench/ec_bench/raw_benchmarks.h"

namespace ecbench {

double PluginParityMatches(const ec::Profile& profile, const Layout& layout, int k,
                           const std::string& plugin_dir) {
  ec::ErasureCodeInterfaceRef code = CodeFor(profile, plugin_dir, nullptr);
  if (!code || code->get_chunk_size(static_cast<unsigned>(layout.chunk) * k) != layout.chunk)
    return -1;
  Arena& arena = Arena::Data();
  Arena& scratch = Arena::Scratch();
  const int m = layout.chunks - k;
  scratch.Reserve(static_cast<std::size_t>(m) * layout.stride);
  ec::ConstChunkSpans in;
  ec::ChunkSpans out;
  for (int i = 0; i < k; ++i) in[i] = arena.span(layout.offset(0, i), layout.chunk);
  for (int j = 0; j < m; ++j) out[k + j] = scratch.span(j * layout.stride, layout.chunk);
  if (!code->encode_chunks(in, out).ok()) return 0;
  for (int j = 0; j < m; ++j) {
    if (std::memcmp(scratch.at(j * layout.stride), arena.at(layout.offset(0, k + j)),
                    layout.chunk) != 0)
      return 0;
  }
  return 1;
}

bool CheckRebuild(const Layout& layout, const std::vector<int>& lost,
                  const std::function<void()>& rebuild, std::string* error) {
  Arena& arena = Arena::Data();
  Arena& scratch = Arena::Scratch();
  scratch.Reserve(lost.size() * layout.stride);
  for (std::size_t i = 0; i < lost.size(); ++i) {
    std::memcpy(scratch.at(i * layout.stride), arena.at(layout.offset(0, lost[i])), layout.chunk);
    std::memset(arena.at(layout.offset(0, lost[i])), 0xA5, layout.chunk);
  }
  rebuild();
  bool ok = true;
  for (std::size_t i = 0; i < lost.size(); ++i) {
    std::byte* chunk = arena.at(layout.offset(0, lost[i]));
    if (std::memcmp(scratch.at(i * layout.stride), chunk, layout.chunk) != 0) {
      if (ok) *error = "the baseline rebuilt chunk " + std::to_string(lost[i]) + " wrongly";
      ok = false;
      std::memcpy(chunk, scratch.at(i * layout.stride), layout.chunk);
    }
  }
  return ok;
}

}  // namespace ecbench
