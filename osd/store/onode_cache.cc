#include "osd/store/onode_cache.h"

namespace ec::osd::store {

std::uint64_t OnodeCache::Cost(const Entry& e) {
  // Map nodes dominate: about 64 bytes per block entry and per attribute, plus the strings.
  std::uint64_t n = 128 + 2 * e.first.size() + 64 * e.second->blocks.size();
  for (const auto& [k, v] : e.second->attrs) n += 64 + k.size() + v.size();
  return n;
}

std::shared_ptr<const Onode> OnodeCache::Lookup(const std::string& key, std::uint64_t* gen) {
  std::lock_guard<std::mutex> lock(mu_);
  *gen = gen_;
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void OnodeCache::Insert(const std::string& key, std::shared_ptr<const Onode> onode,
                        std::uint64_t gen) {
  std::lock_guard<std::mutex> lock(mu_);
  if (gen != gen_ || capacity_ == 0) return;
  PutLocked(key, std::move(onode));
}

void OnodeCache::EraseLocked(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return;
  used_ -= Cost(*it->second);
  lru_.erase(it->second);
  index_.erase(it);
}

void OnodeCache::PutLocked(const std::string& key, std::shared_ptr<const Onode> onode) {
  EraseLocked(key);
  lru_.emplace_front(key, std::move(onode));
  index_.emplace(key, lru_.begin());
  used_ += Cost(lru_.front());
  while (used_ > capacity_ && !lru_.empty()) {
    used_ -= Cost(lru_.back());
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

void OnodeCache::Commit(std::span<const std::string> removed, std::span<const Entry> updated) {
  std::lock_guard<std::mutex> lock(mu_);
  ++gen_;
  for (const std::string& k : removed) EraseLocked(k);
  if (capacity_ == 0) return;
  for (const auto& [k, onode] : updated) PutLocked(k, onode);
}

}  // namespace ec::osd::store
