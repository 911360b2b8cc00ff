#include "plugins/shec/shec_table_cache.h"

namespace ec::shec {

Result<std::shared_ptr<const ShecCodec>> ShecTableCache::Get(Technique technique, int k, int m,
                                                             int c, int w) {
  const Key key{technique, k, m, c, w};
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = codecs_.find(key); it != codecs_.end()) return it->second;
  Result<std::shared_ptr<const ShecCodec>> codec = ShecCodec::Create(technique, k, m, c, w);
  if (codec.ok()) codecs_.emplace(key, *codec);
  return codec;
}

std::size_t ShecTableCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return codecs_.size();
}

}  // namespace ec::shec
