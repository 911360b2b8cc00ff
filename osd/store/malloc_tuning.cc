#include "osd/store/malloc_tuning.h"

#include <malloc.h>

#include <climits>

namespace ec::osd::store {

bool TuneMallocForLargeBuffers(std::size_t largest_buffer, std::size_t retain_bytes) {
  if (largest_buffer > INT_MAX || retain_bytes > INT_MAX) return false;
  // Setting either value by hand also turns off glibc's adaptive threshold, which would otherwise
  // move back towards mmap for buffers of varying sizes.
  bool ok = mallopt(M_MMAP_THRESHOLD, static_cast<int>(largest_buffer)) == 1;
  ok = mallopt(M_TRIM_THRESHOLD, static_cast<int>(retain_bytes)) == 1 && ok;
  return ok;
}

}  // namespace ec::osd::store
