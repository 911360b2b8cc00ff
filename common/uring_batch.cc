#include "common/uring_batch.h"

#include <liburing.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

namespace ec {

struct UringBatch::Ring {
  io_uring ring{};
  bool live = false;  // io_uring_queue_init succeeded
  ~Ring() {
    if (live) io_uring_queue_exit(&ring);
  }
};

// One request while it runs: what is left of it after the transfers so far.
struct UringBatch::Pending {
  std::size_t index = 0;  // in the caller's batch
  const Request* req = nullptr;
  std::uint64_t offset = 0;
  const iovec* iov = nullptr;  // what is left: iov[0, iovcnt)
  std::size_t iovcnt = 0;
  bool iov_mutable = false;  // iov points at `single` or `copy`, which may be edited in place
  iovec single{};            // the data/length form
  std::vector<iovec> copy;   // the caller's iovecs after a short transfer split one of them

  bool done() const { return iovcnt == 0; }
  const char* op_name() const { return req->op == Request::Op::kRead ? "read" : "write"; }
  // A failed transfer: the errno names what went wrong, the offset where.
  Status Error(int e) const {
    return Status::Error(e, std::string(op_name()) + " at offset " + std::to_string(offset) + ": " +
                                std::strerror(e));
  }
  // A transfer of zero bytes: the end of the file for a read, no progress for a write.
  Status NoProgress() const {
    if (req->op == Request::Op::kRead) {
      return Status::Error(ENODATA, "read at offset " + std::to_string(offset) + ": end of file");
    }
    return Status::IOError("write at offset " + std::to_string(offset) + ": no progress");
  }
  // Consumes n transferred bytes.
  void Advance(std::uint64_t n) {
    offset += n;
    while (iovcnt > 0 && n >= iov[0].iov_len) {
      n -= iov[0].iov_len;
      ++iov;
      --iovcnt;
    }
    if (iovcnt == 0 || n == 0) return;
    if (!iov_mutable) {
      // The caller's array is const: continue from a private copy of what is left.
      copy.assign(iov, iov + iovcnt);
      iov = copy.data();
      iov_mutable = true;
    }
    auto* first = const_cast<iovec*>(iov);
    first->iov_base = static_cast<char*>(first->iov_base) + n;
    first->iov_len -= n;
  }
};

namespace {

// The kernel takes at most IOV_MAX iovecs per call; the rest is continued like a short transfer.
constexpr std::size_t kMaxIov = IOV_MAX;
// io_uring's read/write take a 32-bit length, and Linux moves at most ~2 GiB per call anyway.
constexpr std::uint64_t kMaxSingle = std::uint64_t{1} << 30;

}  // namespace

UringBatch::UringBatch(unsigned entries, std::unique_ptr<Ring> ring)
    : entries_(entries), ring_(std::move(ring)) {}

UringBatch::~UringBatch() = default;

Result<std::unique_ptr<UringBatch>> UringBatch::Create(unsigned entries, Mode mode) {
  if (entries == 0) entries = 1;
  std::unique_ptr<Ring> ring;
  if (mode != Mode::kSync) {
    auto r = std::make_unique<Ring>();
    const int rc = io_uring_queue_init(entries, &r->ring, 0);
    if (rc == 0) {
      r->live = true;
      entries = r->ring.sq.ring_entries;
      ring = std::move(r);
    } else if (mode == Mode::kUring) {
      return Status::Error(-rc, std::string("io_uring setup failed: ") + std::strerror(-rc));
    }
  }
  return std::unique_ptr<UringBatch>(new UringBatch(entries, std::move(ring)));
}

bool UringBatch::uses_io_uring() const {
  return ring_ != nullptr;
}

Status UringBatch::Run(std::span<const Request> batch, std::size_t* failed) {
  if (failed != nullptr) *failed = batch.size();
  if (broken_) {
    return Status::IOError("io_uring ring is broken by an earlier failure; it must not be reused");
  }
  std::vector<Pending> todo(batch.size());
  std::size_t n = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const Request& r = batch[i];
    Pending& p = todo[n];
    p = Pending{};
    p.index = i;
    p.req = &r;
    p.offset = r.offset;
    if (!r.iov.empty()) {
      p.iov = r.iov.data();
      p.iovcnt = r.iov.size();
      p.Advance(0);  // skips leading empty iovecs
    } else if (r.length > 0) {
      p.single = iovec{r.data, static_cast<std::size_t>(r.length)};
      p.iov = &p.single;
      p.iovcnt = 1;
      p.iov_mutable = true;
    }
    if (!p.done()) ++n;
  }
  std::span<Pending> work(todo.data(), n);
  return ring_ ? RunUring(work, failed) : RunSync(work, failed);
}

Status UringBatch::RunUring(std::span<Pending> todo, std::size_t* failed) {
  io_uring* ring = &ring_->ring;
  Status first_error;
  auto fail = [&](const Pending& p, Status s) {
    if (!first_error.ok()) return;
    first_error = std::move(s);
    if (failed != nullptr) *failed = p.index;
  };
  std::size_t next = 0;
  std::vector<Pending*> again;  // continued after a short transfer
  std::vector<Pending*> later;
  unsigned in_flight = 0;
  auto queue = [&](Pending* p) {
    io_uring_sqe* sqe = io_uring_get_sqe(ring);
    if (sqe == nullptr) return false;
    const bool read = p->req->op == Request::Op::kRead;
    if (p->iovcnt == 1) {
      const auto len =
          static_cast<unsigned>(p->iov[0].iov_len < kMaxSingle ? p->iov[0].iov_len : kMaxSingle);
      if (read) {
        io_uring_prep_read(sqe, p->req->fd, p->iov[0].iov_base, len, p->offset);
      } else {
        io_uring_prep_write(sqe, p->req->fd, p->iov[0].iov_base, len, p->offset);
      }
    } else {
      const auto cnt = static_cast<unsigned>(p->iovcnt < kMaxIov ? p->iovcnt : kMaxIov);
      if (read) {
        io_uring_prep_readv(sqe, p->req->fd, p->iov, cnt, p->offset);
      } else {
        io_uring_prep_writev(sqe, p->req->fd, p->iov, cnt, p->offset);
      }
    }
    io_uring_sqe_set_data(sqe, p);
    return true;
  };
  for (;;) {
    // Fill the free slots: continuations first, then new requests. Nothing new starts after a
    // failure; what is in flight is still reaped below.
    unsigned queued = 0;
    if (first_error.ok()) {
      later.clear();
      for (Pending* p : again) {
        if (in_flight + queued < entries_ && queue(p)) {
          ++queued;
        } else {
          later.push_back(p);
        }
      }
      again.swap(later);
      while (next < todo.size() && in_flight + queued < entries_ && queue(&todo[next])) {
        ++next;
        ++queued;
      }
      if (queued == 0 && in_flight == 0 && (next < todo.size() || !again.empty())) {
        // Nothing is in flight, so every entry should be free; if none is, the ring is not ours
        // to trust any more.
        broken_ = true;
        return Status::IOError("io_uring has no free submission entry");
      }
    }
    if (queued == 0 && in_flight == 0) break;

    // While more requests wait for a slot, wake at the first completion and refill its slot at
    // once: a ring drained round by round leaves the kernel idle between rounds (reads of tmpfs
    // run on io_uring's worker threads: -10% for a CLAY repair). With nothing left to start, wait
    // for everything: a batch that fits in the ring costs one system call and one wake-up.
    const bool more = first_error.ok() && (next < todo.size() || !again.empty());
    const unsigned wait_for = more ? 1 : in_flight + queued;
    if (queued > 0) {
      const int rc = io_uring_submit_and_wait(ring, wait_for);
      ++submissions_;
      if (rc < 0 || static_cast<unsigned>(rc) != queued) {
        // Requests may be in flight that this call can no longer reap: retire the ring.
        broken_ = true;
        const int e = rc < 0 ? -rc : EIO;
        return Status::Error(e, std::string("io_uring submit failed: ") + std::strerror(e));
      }
      in_flight += queued;
    }
    // Reap `wait_for` completions (already there after a submit-and-wait), then whatever else is
    // ready without blocking.
    for (unsigned got = 0; in_flight > 0;) {
      io_uring_cqe* cqe = nullptr;
      const int wrc =
          got < wait_for ? io_uring_wait_cqe(ring, &cqe) : io_uring_peek_cqe(ring, &cqe);
      if (wrc == -EINTR) continue;
      if (wrc == -EAGAIN && got >= wait_for) break;
      if (wrc < 0) {
        broken_ = true;
        return Status::Error(-wrc, std::string("io_uring wait failed: ") + std::strerror(-wrc));
      }
      auto* p = static_cast<Pending*>(io_uring_cqe_get_data(cqe));
      const int res = cqe->res;
      io_uring_cqe_seen(ring, cqe);
      ++got;
      --in_flight;
      if (res < 0) {
        fail(*p, p->Error(-res));
      } else if (res == 0) {
        fail(*p, p->NoProgress());
      } else {
        p->Advance(static_cast<std::uint64_t>(res));
        if (!p->done()) again.push_back(p);
      }
    }
  }
  return first_error;
}

Status UringBatch::RunSync(std::span<Pending> todo, std::size_t* failed) {
  for (Pending& p : todo) {
    while (!p.done()) {
      const bool read = p.req->op == Request::Op::kRead;
      const auto off = static_cast<off_t>(p.offset);
      ssize_t rc;
      if (p.iovcnt == 1) {
        const std::size_t len = p.iov[0].iov_len < kMaxSingle ? p.iov[0].iov_len : kMaxSingle;
        rc = read ? ::pread(p.req->fd, p.iov[0].iov_base, len, off)
                  : ::pwrite(p.req->fd, p.iov[0].iov_base, len, off);
      } else {
        const int cnt = static_cast<int>(p.iovcnt < kMaxIov ? p.iovcnt : kMaxIov);
        rc = read ? ::preadv(p.req->fd, p.iov, cnt, off) : ::pwritev(p.req->fd, p.iov, cnt, off);
      }
      Status s;
      if (rc < 0) {
        if (errno == EINTR) continue;
        s = p.Error(errno);
      } else if (rc == 0) {
        s = p.NoProgress();
      } else {
        p.Advance(static_cast<std::uint64_t>(rc));
        continue;
      }
      if (failed != nullptr) *failed = p.index;
      return s;
    }
  }
  return Status::OK();
}

}  // namespace ec
