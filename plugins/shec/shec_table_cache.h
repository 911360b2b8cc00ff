// ShecTableCache: the codecs shared by every shec code one plugin creates (Ceph's
// ErasureCodeShecTableCache): one ShecCodec (coding matrix, ISA-L tables, decode-program LRU)
// per (technique, k, m, c, w), built on first use, so codes with the same parameters share their
// warm decode programs.
//
// Thread safety: Get() may be called concurrently; the codecs are safe for concurrent use.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "plugins/shec/shec_codec.h"

namespace ec::shec {

class ShecTableCache {
 public:
  // The codec for these parameters. Errors: those of ShecCodec::Create (nothing is cached then).
  Result<std::shared_ptr<const ShecCodec>> Get(Technique technique, int k, int m, int c, int w);

  // Number of codecs held (for tests).
  std::size_t size() const;

 private:
  using Key = std::tuple<Technique, int, int, int, int>;
  mutable std::mutex mutex_;
  std::map<Key, std::shared_ptr<const ShecCodec>> codecs_;
};

}  // namespace ec::shec
