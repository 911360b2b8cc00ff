#include "recovery/file_shard_source.h"

#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ec::recovery {

namespace {

Status ErrnoStatus(int error) {
  return Status::Error(error, std::strerror(error));
}

Status EndOfFile(std::uint64_t end) {
  return Status::Error(ENODATA,
                       "the file ends before byte " + std::to_string(end) + " (truncated?)");
}

// Finishes a read with pread, looping until done or end of file.
Status PreadAll(int fd, std::byte* dest, std::uint64_t offset, std::uint64_t length) {
  while (length > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(length, 1u << 30));
    ssize_t r = ::pread(fd, dest, n, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno);
    }
    if (r == 0) return EndOfFile(offset + length);
    dest += r;
    offset += static_cast<std::uint64_t>(r);
    length -= static_cast<std::uint64_t>(r);
  }
  return Status::OK();
}

}  // namespace

// The io_uring part, kept in this one class so that it can be swapped for the common io_uring
// batch wrapper: runs a batch of positioned reads, as many in flight as the ring holds, and
// returns the first failure with the index of the read that failed (no read is started after a
// failure; those in flight are reaped first).
class FileShardSource::Reads {
 public:
  struct Read {
    int fd = -1;
    std::uint64_t offset = 0;
    std::byte* dest = nullptr;
    std::uint64_t length = 0;
  };

  Reads(unsigned depth, bool use_io_uring) : depth_(std::max(1u, depth)) {
    ring_ok_ = use_io_uring && io_uring_queue_init(depth_, &ring_, 0) == 0;
  }
  ~Reads() {
    if (ring_ok_) io_uring_queue_exit(&ring_);
  }
  bool uses_io_uring() const { return ring_ok_; }

  Status Run(std::span<const Read> reads, std::size_t* failed) {
    if (!ring_ok_) {
      for (std::size_t i = 0; i < reads.size(); ++i) {
        Status s = PreadAll(reads[i].fd, reads[i].dest, reads[i].offset, reads[i].length);
        if (!s.ok()) {
          *failed = i;
          return s;
        }
      }
      return Status::OK();
    }
    // A read longer than one submission takes (the length is 32 bits) is finished with pread.
    constexpr std::uint64_t kMaxSubmit = std::uint64_t{1} << 30;
    std::size_t next = 0, in_flight = 0;
    Status first_error;
    while (next < reads.size() || in_flight > 0) {
      while (first_error.ok() && next < reads.size() && in_flight < depth_) {
        io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
        if (sqe == nullptr) break;
        const Read& r = reads[next];
        io_uring_prep_read(sqe, r.fd, r.dest, static_cast<unsigned>(std::min(r.length, kMaxSubmit)),
                           r.offset);
        io_uring_sqe_set_data64(sqe, next);
        ++next;
        ++in_flight;
      }
      int rc = io_uring_submit_and_wait(&ring_, 1);
      if (rc < 0 && rc != -EINTR) {
        // The ring itself failed: requests may still be in flight, so it is never used again.
        io_uring_queue_exit(&ring_);
        ring_ok_ = false;
        *failed = reads.size();
        return ErrnoStatus(-rc).WithPrefix("io_uring");
      }
      io_uring_cqe* cqe = nullptr;
      unsigned head = 0, seen = 0;
      io_uring_for_each_cqe(&ring_, head, cqe) {
        const std::size_t i = static_cast<std::size_t>(io_uring_cqe_get_data64(cqe));
        const int res = cqe->res;
        ++seen;
        --in_flight;
        if (!first_error.ok()) continue;
        const Read& r = reads[i];
        Status s;
        if (res < 0) {
          s = ErrnoStatus(-res);
        } else if (static_cast<std::uint64_t>(res) < r.length) {
          // Short: end of file, a partial completion, or a read beyond one submission.
          const auto done = static_cast<std::uint64_t>(res);
          s = PreadAll(r.fd, r.dest + done, r.offset + done, r.length - done);
        }
        if (!s.ok()) {
          first_error = s;
          *failed = i;
        }
      }
      io_uring_cq_advance(&ring_, seen);
    }
    return first_error;
  }

 private:
  io_uring ring_{};
  bool ring_ok_ = false;
  unsigned depth_;
};

FileShardSource::FileShardSource(std::string fname, unsigned depth, bool use_io_uring)
    : fname_(std::move(fname)), reads_(std::make_unique<Reads>(depth, use_io_uring)) {}

FileShardSource::~FileShardSource() {
  for (const auto& [shard, fd] : fds_) ::close(fd);
}

std::string FileShardSource::ShardPath(const std::string& fname, int id) {
  return fname + "." + std::to_string(id);
}

bool FileShardSource::uses_io_uring() const {
  return reads_->uses_io_uring();
}

Status FileShardSource::Open(int shard, int* fd) {
  auto it = fds_.find(shard);
  if (it != fds_.end()) {
    *fd = it->second;
    return Status::OK();
  }
  const int opened = ::open(ShardPath(fname_, shard).c_str(), O_RDONLY | O_CLOEXEC);
  if (opened < 0) return ErrnoStatus(errno);
  fds_[shard] = opened;
  *fd = opened;
  return Status::OK();
}

void FileShardSource::ReadAsync(std::span<const ShardReadRequest> requests, Completion done) {
  std::lock_guard lock(mutex_);
  auto fail = [&](std::size_t i, const Status& s) {
    done(i, s.WithPrefix("failed to read " + ShardPath(fname_, requests[i].shard)));
  };
  // Requests still to read; a failure completes its request and the rest run again.
  std::vector<std::size_t> pending;
  std::vector<int> fds(requests.size(), -1);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    std::uint64_t total = 0;
    for (const Extent& e : requests[i].extents) total += e.length;
    if (total != requests[i].destination.size()) {
      fail(i, Status::Invalid("the destination does not match the extents"));
      continue;
    }
    Status s = Open(requests[i].shard, &fds[i]);
    if (!s.ok()) {
      fail(i, s);
      continue;
    }
    pending.push_back(i);
  }
  std::vector<Reads::Read> batch;
  std::vector<std::size_t> owner;  // read -> request index
  while (!pending.empty()) {
    batch.clear();
    owner.clear();
    for (std::size_t i : pending) {
      std::byte* dest = requests[i].destination.data();
      for (const Extent& e : requests[i].extents) {
        batch.push_back({fds[i], e.offset, dest, e.length});
        owner.push_back(i);
        dest += e.length;
      }
    }
    std::size_t failed = 0;
    Status s = reads_->Run(batch, &failed);
    if (s.ok()) break;
    if (failed >= batch.size()) {  // the ring broke: the pread path finishes the job
      continue;
    }
    const std::size_t bad = owner[failed];
    fail(bad, s);
    pending.erase(std::find(pending.begin(), pending.end(), bad));
  }
  for (std::size_t i : pending) done(i, Status::OK());
}

}  // namespace ec::recovery
