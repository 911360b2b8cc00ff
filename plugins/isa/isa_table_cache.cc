#include "plugins/isa/isa_table_cache.h"

namespace ec::isa {

std::shared_ptr<const gf::MatrixCodec> IsaTableCache::Get(Technique technique, int k, int m) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = codecs_[{technique, k, m}];
  if (!slot) {
    // Built under the lock: construction is a few microseconds and happens once per geometry.
    slot = std::make_shared<const gf::MatrixCodec>(k, m, EffectiveCodingMatrix(technique, k, m),
                                                   kDecodeLruCapacity);
  }
  return slot;
}

std::size_t IsaTableCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return codecs_.size();
}

}  // namespace ec::isa
