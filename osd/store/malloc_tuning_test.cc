#include "osd/store/malloc_tuning.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace ec::osd::store {
namespace {

TEST(MallocTuning, RefusesValuesGlibcCannotTake) {
  EXPECT_FALSE(TuneMallocForLargeBuffers(std::size_t{1} << 40));
  EXPECT_FALSE(TuneMallocForLargeBuffers(std::size_t{1} << 20, std::size_t{1} << 40));
}

// After tuning, a 1 MiB buffer comes from malloc's heap, not from its own mmap (which glibc
// counts in hblks). Not built under ASan, whose allocator replaces glibc's and ignores mallopt
// (GCC says so with __SANITIZE_ADDRESS__, clang 14 only with __has_feature).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ECSTORE_TEST_ASAN 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(ECSTORE_TEST_ASAN)
TEST(MallocTuning, AMebibyteBufferComesFromTheHeap) {
  ASSERT_TRUE(TuneMallocForLargeBuffers());
  const int mapped_before = mallinfo2().hblks;
  void* p = std::malloc(std::size_t{1} << 20);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, std::size_t{1} << 20);
  EXPECT_EQ(mallinfo2().hblks, mapped_before);
  std::free(p);
}
#endif

}  // namespace
}  // namespace ec::osd::store
