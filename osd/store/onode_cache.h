// OnodeCache: a least-recently-used cache of decoded Onodes by object key, so that a read does not
// always go to RocksDB and decode. Bounded by an estimate of the memory the Onodes take.
//
// Staleness: a lookup that misses and then loads the Onode from the database may race with a
// commit that changes it. Lookup hands out the cache's generation; the commit calls Commit
// (which starts a new generation) right after its database write; Insert of an Onode loaded under
// an older generation is dropped. So the cache never holds an Onode older than the database.
//
// Thread safety: every method may be called concurrently (one internal mutex).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "osd/store/onode.h"

namespace ec::osd::store {

class OnodeCache {
 public:
  // A cache of about `capacity_bytes` (0 disables caching).
  explicit OnodeCache(std::uint64_t capacity_bytes) : capacity_(capacity_bytes) {}

  // The cached Onode of `key`, or null. `*gen` receives the generation for a later Insert.
  std::shared_ptr<const Onode> Lookup(const std::string& key, std::uint64_t* gen);
  // Caches `onode` under `key` unless a Commit happened since `gen` was handed out.
  void Insert(const std::string& key, std::shared_ptr<const Onode> onode, std::uint64_t gen);
  // After a commit: starts a new generation, drops `removed` and caches `updated` (the Onodes the
  // commit wrote, so that reading what was just written needs no database lookup).
  using Entry = std::pair<std::string, std::shared_ptr<const Onode>>;
  void Commit(std::span<const std::string> removed, std::span<const Entry> updated);

 private:
  static std::uint64_t Cost(const Entry& e);
  void EraseLocked(const std::string& key);
  void PutLocked(const std::string& key, std::shared_ptr<const Onode> onode);

  std::uint64_t capacity_;
  std::mutex mu_;
  std::uint64_t gen_ = 0;
  std::uint64_t used_ = 0;
  std::list<Entry> lru_;  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace ec::osd::store
