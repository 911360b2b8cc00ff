#include "tools/ec_tool/extent_reader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ectool {

namespace {

ec::Status ReadError(const std::string& path, int error) {
  return ec::Status::Error(error, "failed to read " + path + ": " + std::strerror(error));
}

ec::Status Truncated(const std::string& path, std::uint64_t offset) {
  return ec::Status::IOError("failed to read " + path + ": the file ends before byte " +
                             std::to_string(offset) + " (truncated?)");
}

// Finishes a read that came back short (pread loops until done or end of file).
ec::Status CompleteWithPread(int fd, const std::string& path, std::byte* dest, std::uint64_t offset,
                             std::uint64_t length) {
  while (length > 0) {
    ssize_t r = ::pread(fd, dest, length, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ReadError(path, errno);
    }
    if (r == 0) return Truncated(path, offset + length);
    dest += r;
    offset += static_cast<std::uint64_t>(r);
    length -= static_cast<std::uint64_t>(r);
  }
  return ec::Status::OK();
}

struct Pending {
  const ExtentRead* request;
  std::byte* dest;
  std::uint64_t offset;
  std::uint64_t length;
};

}  // namespace

ExtentReader::ExtentReader(unsigned depth) : depth_(depth ? depth : 1) {
  ring_ok_ = io_uring_queue_init(depth_, &ring_, 0) == 0;
}

ExtentReader::~ExtentReader() {
  if (ring_ok_) io_uring_queue_exit(&ring_);
}

ec::Status ExtentReader::ReadWithPread(std::span<const ExtentRead> requests) {
  for (const ExtentRead& req : requests) {
    std::byte* dest = req.destination;
    for (const auto& e : *req.extents) {
      EC_RETURN_IF_ERROR(CompleteWithPread(req.fd, *req.path, dest, e.offset, e.length));
      dest += e.length;
    }
  }
  return ec::Status::OK();
}

ec::Status ExtentReader::ReadAll(std::span<const ExtentRead> requests) {
  if (!ring_ok_) return ReadWithPread(requests);
  std::vector<Pending> all;
  for (const ExtentRead& req : requests) {
    std::byte* dest = req.destination;
    for (const auto& e : *req.extents) {
      all.push_back({&req, dest, e.offset, e.length});
      dest += e.length;
    }
  }
  // Keep the ring full: submit up to depth_ reads, reap what completed, refill.
  std::size_t next = 0, in_flight = 0;
  ec::Status first_error;
  while (next < all.size() || in_flight > 0) {
    while (next < all.size() && in_flight < depth_) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      if (sqe == nullptr) break;
      Pending& p = all[next];
      io_uring_prep_read(sqe, p.request->fd, p.dest, static_cast<unsigned>(p.length), p.offset);
      io_uring_sqe_set_data(sqe, &p);
      ++next;
      ++in_flight;
    }
    int r = io_uring_submit_and_wait(&ring_, 1);
    if (r < 0 && r != -EINTR) return ReadError("(io_uring)", -r);
    io_uring_cqe* cqe = nullptr;
    unsigned head = 0, seen = 0;
    io_uring_for_each_cqe(&ring_, head, cqe) {
      auto* p = static_cast<Pending*>(io_uring_cqe_get_data(cqe));
      const int res = cqe->res;
      ++seen;
      --in_flight;
      if (!first_error.ok()) continue;
      if (res < 0) {
        first_error = ReadError(*p->request->path, -res);
      } else if (static_cast<std::uint64_t>(res) < p->length) {
        // Short read: end of file, or a rare partial completion; finish it synchronously.
        first_error = CompleteWithPread(p->request->fd, *p->request->path, p->dest + res,
                                        p->offset + static_cast<std::uint64_t>(res),
                                        p->length - static_cast<std::uint64_t>(res));
      }
    }
    io_uring_cq_advance(&ring_, seen);
    if (!first_error.ok() && in_flight == 0) return first_error;
    if (!first_error.ok()) next = all.size();  // stop submitting, drain what is in flight
  }
  return first_error;
}

}  // namespace ectool
