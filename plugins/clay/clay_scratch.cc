#include "plugins/clay/clay_scratch.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

namespace ec::clay {

struct ScratchLease::Region {
  std::uint8_t* data = nullptr;
  std::size_t size = 0;
  ~Region() { std::free(data); }
  // Grows to at least `bytes`; `zero` fills new memory with zeros.
  std::uint8_t* Ensure(std::size_t bytes, bool zero) {
    if (bytes <= size) return data;
    std::size_t want = (bytes + 4095) & ~std::size_t{4095};
    void* p = std::aligned_alloc(64, want);
    if (p == nullptr) throw std::bad_alloc();
    std::free(data);
    data = static_cast<std::uint8_t*>(p);
    size = want;
    if (zero) std::memset(data, 0, size);
    return data;
  }
};

namespace {

// Idle work regions, and every zero region made so far (the newest is the largest; older ones stay
// until the plugin is unloaded, because a call may still read them).
struct Pool {
  std::mutex mu;
  std::vector<std::unique_ptr<ScratchLease::Region>> idle;
  std::vector<std::unique_ptr<ScratchLease::Region>> zeros;
  std::atomic<const ScratchLease::Region*> largest_zeros{nullptr};
};

Pool& ThePool() {
  static Pool pool;
  return pool;
}

}  // namespace

ScratchLease::ScratchLease(std::size_t bytes) {
  if (bytes > kKeepLimit) {
    void* p = std::aligned_alloc(64, (bytes + 63) & ~std::size_t{63});
    if (p == nullptr) throw std::bad_alloc();
    owned_ = static_cast<std::uint8_t*>(p);
    data_ = owned_;
    return;
  }
  Pool& pool = ThePool();
  {
    std::lock_guard lock(pool.mu);
    if (!pool.idle.empty()) {
      region_ = pool.idle.back().release();
      pool.idle.pop_back();
    }
  }
  if (region_ == nullptr) region_ = new Region();
  data_ = region_->Ensure(bytes == 0 ? 64 : bytes, false);
}

ScratchLease::~ScratchLease() {
  std::free(owned_);
  if (region_ != nullptr) {
    Pool& pool = ThePool();
    std::lock_guard lock(pool.mu);
    pool.idle.emplace_back(region_);
  }
}

const std::uint8_t* ScratchLease::Zeros(std::size_t bytes) {
  if (bytes == 0) bytes = 64;
  Pool& pool = ThePool();
  const Region* z = pool.largest_zeros.load(std::memory_order_acquire);
  if (z != nullptr && z->size >= bytes) return z->data;
  std::lock_guard lock(pool.mu);
  z = pool.largest_zeros.load(std::memory_order_relaxed);
  if (z != nullptr && z->size >= bytes) return z->data;
  auto grown = std::make_unique<Region>();
  // Doubling keeps the regions made over the plugin's life within twice the largest.
  grown->Ensure(z != nullptr && bytes < 2 * z->size ? 2 * z->size : bytes, true);
  z = grown.get();
  pool.zeros.push_back(std::move(grown));
  pool.largest_zeros.store(z, std::memory_order_release);
  return z->data;
}

}  // namespace ec::clay
