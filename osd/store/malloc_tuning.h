// Process-wide malloc settings for programs that move big buffers (the store's benchmark and the
// storage daemon).
//
// Why: glibc serves an allocation of more than 128 KiB-32 MiB (its threshold adapts) with a fresh
// mmap and gives it back with munmap, so every 1 MiB write buffer is page-faulted in on its first
// touch, 256 faults per MiB, and the TLB shootdown of its munmap interrupts the other core. On
// this 2-core VM that was most of the time of a 1 MiB write (ec-store-bench, 4 writers, not
// durable: 394 MB/s with glibc's defaults, 1180 MB/s with these settings). Ceph links tcmalloc for
// the same reason; the Debian packages we use do not include one, so glibc is told to keep such
// buffers in its heaps instead.
//
// Thread safety: call once at the start of main(), before other threads exist.
#pragma once

#include <cstddef>

namespace ec::osd::store {

// Serves allocations up to `largest_buffer` bytes from malloc's heaps, and keeps up to
// `retain_bytes` of freed memory per heap instead of returning it to the kernel. glibc takes at
// most 32 MiB for the first (half its per-thread heap size). Returns false
// when the C library refused a setting (nothing else changes then; it is only slower).
bool TuneMallocForLargeBuffers(std::size_t largest_buffer = std::size_t{32} << 20,
                               std::size_t retain_bytes = std::size_t{256} << 20);

}  // namespace ec::osd::store
