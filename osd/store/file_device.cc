// FileDevice: a block device or pre-sized file opened with O_DIRECT; I/O through the base layer's
// UringBatch (io_uring, or preadv/pwritev for IoBackend::kSync).
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "common/uring_batch.h"
#include "osd/store/device.h"

namespace ec::osd::store {
namespace {

Status Errno(int e, const std::string& what) {
  return Status::Error(e, what + ": " + std::strerror(e));
}

UringBatch::Mode ModeOf(IoBackend backend) {
  return backend == IoBackend::kUring ? UringBatch::Mode::kUring : UringBatch::Mode::kSync;
}

class FileDevice final : public BlockDevice {
 public:
  FileDevice(int fd, std::string path, std::uint64_t size, IoBackend backend, unsigned depth,
             std::unique_ptr<UringBatch> first)
      : fd_(fd), path_(std::move(path)), size_(size), backend_(backend), depth_(depth) {
    idle_.push_back(std::move(first));
  }
  ~FileDevice() override { ::close(fd_); }

  std::uint64_t size() const override { return size_; }
  std::string_view name() const override { return IoBackendName(backend_); }

  Status Submit(std::span<IoRequest> batch) override {
    EC_RETURN_IF_ERROR(ValidateBatch(batch, size_));
    // One runner (ring) per concurrent caller, so that threads reading at once keep several
    // batches in flight instead of queueing behind one ring.
    std::unique_ptr<UringBatch> runner;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!idle_.empty()) {
        runner = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    if (!runner) {
      auto r = UringBatch::Create(depth_, ModeOf(backend_));
      if (!r.ok()) return r.status().WithPrefix("device " + path_);
      runner = std::move(r).value();
    }
    std::vector<UringBatch::Request> reqs;
    reqs.reserve(batch.size());
    for (const IoRequest& r : batch) {
      reqs.push_back(UringBatch::Request{r.op == IoRequest::Op::kRead
                                             ? UringBatch::Request::Op::kRead
                                             : UringBatch::Request::Op::kWrite,
                                         fd_, r.offset, nullptr, 0, r.iov});
    }
    Status s = runner->Run(reqs);
    if (!s.ok()) s = s.WithPrefix("device " + path_);
    // A broken ring may still have requests in flight: it is dropped, never reused.
    if (runner->broken()) return s;
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(runner));
    return s;
  }

  Status Flush() override {
    if (::fdatasync(fd_) != 0) return Errno(errno, "fdatasync");
    return Status::OK();
  }

 private:
  int fd_;
  std::string path_;
  std::uint64_t size_;
  IoBackend backend_;
  unsigned depth_;
  std::mutex mu_;
  std::vector<std::unique_ptr<UringBatch>> idle_;  // runners not in use
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

namespace {

// Writes zeros over [0, len) of the new file `path` so that every extent is allocated and written
// (DeviceOptions::create_size says why), and makes that durable. A file system that refuses
// O_DIRECT is left alone: the device cannot be opened there anyway (OpenFileDevice says so).
Status ZeroFill(const std::string& path, off_t len) {
  int fd = ::open(path.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return errno == EINVAL ? Status::OK() : Errno(errno, "cannot open " + path);
  constexpr std::size_t kChunk = 4 << 20;
  void* zeros = nullptr;
  if (::posix_memalign(&zeros, kBlockSize, kChunk) != 0) {
    ::close(fd);
    return Status::Error(ENOMEM, "cannot allocate a buffer to zero " + path);
  }
  std::memset(zeros, 0, kChunk);
  Status st;
  for (off_t at = 0; at < len && st.ok();) {
    const auto n = static_cast<std::size_t>(std::min<off_t>(len - at, kChunk));
    const ssize_t rc = ::pwrite(fd, zeros, n, at);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) {
      st = Errno(rc < 0 ? errno : EIO, "cannot zero device file " + path);
    } else {
      at += rc;
    }
  }
  if (st.ok() && ::fdatasync(fd) != 0) st = Errno(errno, "cannot sync device file " + path);
  std::free(zeros);
  ::close(fd);
  return st;
}

}  // namespace

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
    if (Status zeroed = ZeroFill(path, len); !zeroed.ok()) {
      ::unlink(path.c_str());
      return zeroed;
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
  // The first runner is made now, so that a kernel without io_uring is reported at open.
  auto runner = UringBatch::Create(options.queue_depth, ModeOf(options.backend));
  if (!runner.ok()) {
    ::close(fd);
    return runner.status().WithPrefix("device " + path);
  }
  return std::unique_ptr<BlockDevice>(new FileDevice(
      fd, path, size, options.backend, options.queue_depth, std::move(runner).value()));
}

}  // namespace ec::osd::store
