// IsaTableCache: the matrix codecs shared by every isa code one plugin creates (Ceph's
// ErasureCodeIsaTableCache). A codec holds the coding matrix, the ISA-L encode tables and the LRU
// of decode tables keyed by erasure pattern, so codes with the same (technique, k, m) share them
// instead of each warming its own.
//
// Differences from Ceph, by design: Ceph keeps one decode LRU (2516 entries) per technique shared
// by all (k, m); here each (technique, k, m) codec has its own LRU of kDecodeLruCapacity entries.
// Entries are never dropped while the cache lives (Ceph's never are either).
//
// Thread safety: Get() may be called concurrently; the codecs it returns are safe for concurrent
// use (see ec::gf::MatrixCodec).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "ec/gf.h"
#include "plugins/isa/isa_matrix.h"

namespace ec::isa {

// Ceph's decoding_tables_lru_length: "sufficient up to (12,4) decodings".
inline constexpr std::size_t kDecodeLruCapacity = 2516;

class IsaTableCache {
 public:
  // The codec of EffectiveCodingMatrix(technique, k, m), built on first use. Same preconditions
  // as EffectiveCodingMatrix. Never returns nullptr.
  std::shared_ptr<const gf::MatrixCodec> Get(Technique technique, int k, int m);

  // Number of distinct (technique, k, m) codecs held (for tests).
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::tuple<Technique, int, int>, std::shared_ptr<const gf::MatrixCodec>> codecs_;
};

}  // namespace ec::isa
