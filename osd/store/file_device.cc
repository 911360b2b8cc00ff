// FileDevice: a block device or pre-sized file opened with O_DIRECT; I/O through UringQueue or
// preadv/pwritev.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "osd/store/device.h"
#include "osd/store/uring_queue.h"

namespace ec::store {
namespace {

Status Errno(int e, const std::string& what) {
  return Status::Error(e, what + ": " + std::strerror(e));
}

class FileDevice final : public BlockDevice {
 public:
  FileDevice(int fd, std::uint64_t size, std::unique_ptr<UringQueue> uring, unsigned depth)
      : fd_(fd), size_(size), uring_(uring != nullptr), depth_(depth) {
    if (uring) rings_.push_back(std::move(uring));
  }
  ~FileDevice() override { ::close(fd_); }

  std::uint64_t size() const override { return size_; }
  std::string_view name() const override { return uring_ ? "uring" : "sync"; }

  Status Submit(std::span<IoRequest> batch) override {
    EC_RETURN_IF_ERROR(ValidateBatch(batch, size_));
    if (!uring_) {
      for (IoRequest& r : batch) EC_RETURN_IF_ERROR(RunSync(r));
      return Status::OK();
    }
    // One ring per concurrent caller, so that threads reading at once keep several batches in
    // flight instead of queueing behind one ring.
    std::unique_ptr<UringQueue> ring;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!rings_.empty()) {
        ring = std::move(rings_.back());
        rings_.pop_back();
      }
    }
    if (!ring) {
      auto q = UringQueue::Create(depth_);
      if (!q.ok()) return q.status();
      ring = std::move(q).value();
    }
    Status s = ring->Run(fd_, batch);
    if (ring->broken()) return s;
    std::lock_guard<std::mutex> lock(mu_);
    rings_.push_back(std::move(ring));
    return s;
  }

  Status Flush() override {
    if (::fdatasync(fd_) != 0) return Errno(errno, "fdatasync");
    return Status::OK();
  }

 private:
  Status RunSync(const IoRequest& r) {
    std::vector<iovec> iov = r.iov;
    std::uint64_t off = r.offset;
    std::size_t first = 0;
    while (first < iov.size()) {
      auto n = static_cast<int>(iov.size() - first);
      ssize_t rc = r.op == IoRequest::Op::kRead
                       ? ::preadv(fd_, iov.data() + first, n, static_cast<off_t>(off))
                       : ::pwritev(fd_, iov.data() + first, n, static_cast<off_t>(off));
      if (rc < 0) {
        if (errno == EINTR) continue;
        return Errno(errno, std::string(r.op == IoRequest::Op::kRead ? "preadv" : "pwritev") +
                                " at offset " + std::to_string(off));
      }
      if (rc == 0) return Status::IOError("zero-length transfer at offset " + std::to_string(off));
      auto done = static_cast<std::uint64_t>(rc);
      off += done;
      while (first < iov.size() && done >= iov[first].iov_len) done -= iov[first++].iov_len;
      if (first < iov.size() && done > 0) {
        iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + done;
        iov[first].iov_len -= done;
      }
    }
    return Status::OK();
  }

  int fd_;
  std::uint64_t size_;
  bool uring_;
  unsigned depth_;
  std::mutex mu_;
  std::vector<std::unique_ptr<UringQueue>> rings_;  // idle rings
};

}  // namespace

std::uint64_t IoRequest::length() const {
  std::uint64_t n = 0;
  for (const iovec& v : iov) n += v.iov_len;
  return n;
}

std::string_view IoBackendName(IoBackend backend) {
  return backend == IoBackend::kUring ? "uring" : "sync";
}

Status ValidateBatch(std::span<const IoRequest> batch, std::uint64_t size) {
  for (const IoRequest& r : batch) {
    if (r.offset % kBlockSize != 0 || r.iov.empty()) {
      return Status::Invalid("I/O request at offset " + std::to_string(r.offset) +
                             " is not 4 KiB aligned or empty");
    }
    for (const iovec& v : r.iov) {
      if (reinterpret_cast<std::uintptr_t>(v.iov_base) % kBlockSize != 0 ||
          v.iov_len % kBlockSize != 0 || v.iov_len == 0) {
        return Status::Invalid("I/O buffer not 4 KiB aligned at device offset " +
                               std::to_string(r.offset));
      }
    }
    std::uint64_t len = r.length();
    if (r.offset > size || len > size - r.offset) {
      return Status::Invalid("I/O request [" + std::to_string(r.offset) + ", +" +
                             std::to_string(len) + ") beyond device end " + std::to_string(size));
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<BlockDevice>> OpenFileDevice(const std::string& path,
                                                    const DeviceOptions& options) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Errno(errno, "cannot stat device " + path);
    if (options.create_size == 0) return Status::NotFound("device " + path + " does not exist");
    int cfd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (cfd < 0) return Errno(errno, "cannot create device file " + path);
    auto len = static_cast<off_t>(RoundDownToBlock(options.create_size));
    int rc = ::posix_fallocate(cfd, 0, len);
    ::close(cfd);
    if (rc != 0) {
      ::unlink(path.c_str());
      return Errno(rc, "cannot allocate " + std::to_string(len) + " bytes for device file " + path);
    }
    if (::stat(path.c_str(), &st) != 0) return Errno(errno, "cannot stat device " + path);
  }
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
    return Status::Invalid("device " + path + " is neither a regular file nor a block device");
  }
  int fd = ::open(path.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == EINVAL) {
      return Status::Invalid("device " + path + ": the file system refuses O_DIRECT");
    }
    return Errno(e, "cannot open device " + path);
  }
  std::uint64_t size = 0;
  if (S_ISBLK(st.st_mode)) {
    if (::ioctl(fd, BLKGETSIZE64, &size) != 0) {
      int e = errno;
      ::close(fd);
      return Errno(e, "cannot read the size of block device " + path);
    }
  } else {
    size = static_cast<std::uint64_t>(st.st_size);
  }
  size = RoundDownToBlock(size);
  if (size < options.min_size) {
    ::close(fd);
    return Status::Error(ENOSPC, "device " + path + " too small: " + std::to_string(size) +
                                     " bytes, need at least " + std::to_string(options.min_size));
  }
  std::unique_ptr<UringQueue> uring;
  if (options.backend == IoBackend::kUring) {
    auto q = UringQueue::Create(options.queue_depth);
    if (!q.ok()) {
      ::close(fd);
      return q.status().WithPrefix("device " + path);
    }
    uring = std::move(q).value();
  }
  return std::unique_ptr<BlockDevice>(
      new FileDevice(fd, size, std::move(uring), options.queue_depth));
}

}  // namespace ec::store
