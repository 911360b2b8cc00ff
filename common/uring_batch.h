// UringBatch: runs a batch of positioned reads and writes (each on its own file descriptor) with as
// many in flight as an io_uring ring holds, and returns when all of them have completed. A batch
// that fits in the ring is one submission system call; a larger one keeps the ring full, each
// completion's slot refilled at once (one submission per refill). When io_uring is unavailable (an
// old kernel, a seccomp policy, RLIMIT_MEMLOCK) the same batch runs through pread/pwrite(v), one
// request after another; Mode picks or forces either path.
//
// Used by the store's device layer (osd/store/file_device.cc: 4 KiB-aligned O_DIRECT requests on
// one device) and by readers of many extents of many files (ec-tool repair). It knows no paths or
// object names: errors name the operation and offset only, and *failed tells the caller which
// request it was, so that the caller adds its own context.
//
// Thread safety: none per object (Run is one caller at a time); distinct objects may run in
// distinct threads at once. Buffers named by a request are borrowed until Run returns.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "common/status.h"

namespace ec {

class UringBatch {
 public:
  enum class Mode {
    kAuto,   // io_uring if the kernel grants a ring, otherwise the pread/pwrite fallback
    kUring,  // io_uring or an error (the caller decides what to do without it)
    kSync,   // the fallback always (tests, or a caller that wants no ring)
  };

  // One positioned transfer: `length` bytes at `data`, or, when `iov` is not empty, the buffers of
  // `iov` in order (data and length are then ignored). A request of zero bytes completes at once.
  struct Request {
    enum class Op : std::uint8_t { kRead, kWrite };
    Op op = Op::kRead;
    int fd = -1;
    std::uint64_t offset = 0;
    std::byte* data = nullptr;  // a write never modifies it
    std::uint64_t length = 0;
    std::span<const iovec> iov;

    static Request Read(int fd, std::uint64_t offset, std::span<std::byte> into) {
      return Request{Op::kRead, fd, offset, into.data(), into.size(), {}};
    }
    static Request Write(int fd, std::uint64_t offset, std::span<const std::byte> from) {
      return Request{Op::kWrite, fd, offset, const_cast<std::byte*>(from.data()), from.size(), {}};
    }
  };

  // A batch runner whose ring has `entries` submission entries (at least 1; the kernel rounds up
  // to a power of two): at most that many requests are in flight at once. Errors (kUring only): the
  // errno of io_uring_queue_init (ENOSYS, EPERM, ENOMEM), "io_uring setup failed: ...". kAuto and
  // kSync never fail.
  static Result<std::unique_ptr<UringBatch>> Create(unsigned entries, Mode mode = Mode::kAuto);
  ~UringBatch();
  UringBatch(const UringBatch&) = delete;
  UringBatch& operator=(const UringBatch&) = delete;

  // Runs every request of `batch`. A short transfer is continued from where it stopped (also
  // across iovecs, and beyond the kernel's IOV_MAX iovecs per call) until the request is complete.
  // OK: every byte of every request was transferred.
  // Errors, the first failure seen (*failed, if given, receives that request's index in `batch`):
  //   - the kernel's errno: "read at offset N: <strerror>" (or "write ...");
  //   - ENODATA "read at offset N: end of file" when a read reaches the end of its file first;
  //   - EIO "write at offset N: no progress" when a write transfers nothing;
  //   - (io_uring) "io_uring submit failed: ..." / "io_uring wait failed: ...": the ring itself
  //     failed and requests may still be in flight, so the object is broken(): every later Run
  //     fails with EIO and its owner must destroy it instead of reusing it (stale completions
  //     must never reach a later batch). *failed is then batch.size().
  // After a request fails no further request is started; those already in flight complete before
  // Run returns. Requests that completed before the failure keep their effects.
  Status Run(std::span<const Request> batch, std::size_t* failed = nullptr);

  bool uses_io_uring() const;
  bool broken() const { return broken_; }
  // Requests in flight at most (the ring's size once the kernel rounded it up).
  unsigned entries() const { return entries_; }
  // Submission system calls made so far (1 per batch that fits in the ring, more for larger
  // batches: at least batch / entries(); 0 on the fallback path).
  std::uint64_t submissions() const { return submissions_; }

 private:
  struct Ring;
  struct Pending;
  UringBatch(unsigned entries, std::unique_ptr<Ring> ring);
  Status RunUring(std::span<Pending> todo, std::size_t* failed);
  Status RunSync(std::span<Pending> todo, std::size_t* failed);

  unsigned entries_;
  std::unique_ptr<Ring> ring_;  // null: the fallback path
  bool broken_ = false;
  std::uint64_t submissions_ = 0;
};

}  // namespace ec
