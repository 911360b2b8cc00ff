// BlockDevice: the store's view of one block device or of a pre-sized file standing in for one.
//
//   byte 0            4 KiB                                               size()
//   | superblock blk | data blocks (allocated by the store, 4 KiB each) ... |
//
// All I/O is in whole 4 KiB blocks at 4 KiB-aligned offsets from 4 KiB-aligned memory (O_DIRECT).
// A batch of requests goes down as one submission (io_uring) and Submit returns once every request
// in it has completed. Writes are durable only after a successful Flush().
//
// Thread safety: every method may be called from any thread. The io_uring path gives each
// concurrent Submit its own ring (rings are pooled), so batches from several threads are in flight
// together; the fallback issues one system call per request on the caller's thread. Buffers named
// in a request are borrowed for the duration of Submit.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "osd/store/aligned_buffer.h"

namespace ec::osd::store {

// One vectored read or write. Every iovec base is 4 KiB aligned and every length a multiple of
// 4 KiB; offset is a multiple of 4 KiB and offset + total length <= device size.
struct IoRequest {
  enum class Op { kRead, kWrite };
  Op op = Op::kRead;
  std::uint64_t offset = 0;
  std::vector<iovec> iov;

  std::uint64_t length() const;
};

enum class IoBackend {
  kUring,  // io_uring through liburing (the default)
  kSync,   // preadv/pwritev, for kernels or sandboxes without io_uring
};
std::string_view IoBackendName(IoBackend backend);

class BlockDevice {
 public:
  virtual ~BlockDevice() = default;

  // Size in bytes, a multiple of kBlockSize.
  virtual std::uint64_t size() const = 0;
  // Runs every request of `batch`; returns when all have completed. Errors: EINVAL for a
  // misaligned or out-of-range request (nothing is submitted), ENOSPC when the file system under a
  // file device is full, EIO or the kernel's errno otherwise. After an error some requests of the
  // batch may have completed; the store treats the written blocks as garbage (they are free space).
  virtual Status Submit(std::span<IoRequest> batch) = 0;
  // Makes every completed write durable (fdatasync). Errors: the kernel's errno (EIO).
  virtual Status Flush() = 0;
  // "uring", "sync" or a wrapper's name, for logs.
  virtual std::string_view name() const = 0;
};

// Checks the alignment and range rules above for `batch` against a device of `size` bytes.
Status ValidateBatch(std::span<const IoRequest> batch, std::uint64_t size);

struct DeviceOptions {
  IoBackend backend = IoBackend::kUring;
  // When non-zero and `path` does not exist, a file of this size (rounded down to 4 KiB) is
  // created, fully allocated (fallocate), so ENOSPC shows up now rather than mid-write, and written
  // with zeros: a file system keeps fallocated space as "unwritten" extents, and the first write
  // of each block then changes the file's metadata, so its fdatasync commits the file system's
  // journal (ext4 here: 4 KiB write + fdatasync 120 us p50 and 86 us of CPU against 44 us and 36
  // us on written blocks, fio). Zeroing costs about a second per GiB, once.
  std::uint64_t create_size = 0;
  // Smallest acceptable device; a smaller one is refused with ENOSPC ("device too small").
  std::uint64_t min_size = 16 * 1024 * 1024;
  // Entries of each io_uring submission queue; larger batches are split into several rounds.
  unsigned queue_depth = 128;
};

// Opens `path` (a block device or a regular file) with O_DIRECT. Errors: ENOENT "device ... does
// not exist" (and create_size is 0), ENOSPC for a device smaller than min_size or a file that
// cannot be allocated, EINVAL for something that is neither a file nor a block device, or when the
// file system refuses O_DIRECT (e.g. tmpfs); the errno of open/fallocate/io_uring setup otherwise.
// With kUring, a kernel that refuses io_uring gives ENOSYS/EPERM: the caller may retry with kSync.
Result<std::unique_ptr<BlockDevice>> OpenFileDevice(const std::string& path,
                                                    const DeviceOptions& options);

}  // namespace ec::osd::store
