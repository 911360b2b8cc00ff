#include "osd/store/uring_queue.h"

#include <cstring>
#include <string>
#include <vector>

namespace ec::store {
namespace {

// State of one request while it is in flight: its remaining iovecs after a short transfer.
struct Pending {
  IoRequest* req = nullptr;
  std::vector<iovec> iov;
  std::uint64_t offset = 0;
};

void Advance(Pending& p, std::uint64_t done) {
  p.offset += done;
  std::size_t i = 0;
  while (i < p.iov.size() && done >= p.iov[i].iov_len) done -= p.iov[i++].iov_len;
  p.iov.erase(p.iov.begin(), p.iov.begin() + static_cast<std::ptrdiff_t>(i));
  if (!p.iov.empty() && done > 0) {
    p.iov[0].iov_base = static_cast<char*>(p.iov[0].iov_base) + done;
    p.iov[0].iov_len -= done;
  }
}

}  // namespace

Result<std::unique_ptr<UringQueue>> UringQueue::Create(unsigned entries) {
  std::unique_ptr<UringQueue> q(new UringQueue(entries));
  int rc = io_uring_queue_init(entries, &q->ring_, 0);
  if (rc < 0) {
    q->entries_ = 0;  // nothing to tear down
    return Status::Error(-rc, std::string("io_uring setup failed: ") + std::strerror(-rc));
  }
  return q;
}

UringQueue::~UringQueue() {
  if (entries_ != 0) io_uring_queue_exit(&ring_);
}

Status UringQueue::Run(int fd, std::span<IoRequest> batch) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Pending> todo;
  todo.reserve(batch.size());
  for (IoRequest& r : batch) todo.push_back(Pending{&r, r.iov, r.offset});

  Status first_error;
  std::size_t next = 0;
  std::vector<Pending*> retry;
  while (next < todo.size() || !retry.empty()) {
    unsigned queued = 0;
    auto queue = [&](Pending* p) {
      io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
      if (sqe == nullptr) return false;
      auto n = static_cast<unsigned>(p->iov.size());
      if (p->req->op == IoRequest::Op::kRead) {
        io_uring_prep_readv(sqe, fd, p->iov.data(), n, p->offset);
      } else {
        io_uring_prep_writev(sqe, fd, p->iov.data(), n, p->offset);
      }
      io_uring_sqe_set_data(sqe, p);
      ++queued;
      return true;
    };
    std::vector<Pending*> again;
    for (Pending* p : retry) {
      if (!queue(p)) again.push_back(p);
    }
    retry = std::move(again);
    while (next < todo.size() && queue(&todo[next])) ++next;

    // Submit and wait for the whole round in one system call: one wake-up per round instead of
    // one per completion (the loop below then finds the completions ready).
    int rc = io_uring_submit_and_wait(&ring_, queued);
    if (rc < 0 || static_cast<unsigned>(rc) != queued) {
      // Requests may be in flight that this call can no longer reap: retire the ring.
      broken_ = true;
      int e = rc < 0 ? -rc : EIO;
      return Status::Error(e, std::string("io_uring submit failed: ") + std::strerror(e));
    }
    for (unsigned got = 0; got < queued;) {
      io_uring_cqe* cqe = nullptr;
      int wrc = io_uring_wait_cqe(&ring_, &cqe);
      if (wrc == -EINTR) continue;
      if (wrc < 0) {
        broken_ = true;
        return Status::Error(-wrc, std::string("io_uring wait failed: ") + std::strerror(-wrc));
      }
      auto* p = static_cast<Pending*>(io_uring_cqe_get_data(cqe));
      int res = cqe->res;
      io_uring_cqe_seen(&ring_, cqe);
      ++got;
      if (res < 0) {
        if (first_error.ok()) {
          first_error = Status::Error(
              -res, std::string(p->req->op == IoRequest::Op::kRead ? "read" : "write") +
                        " at offset " + std::to_string(p->offset) +
                        " failed: " + std::strerror(-res));
        }
        continue;
      }
      if (res == 0) {
        if (first_error.ok()) {
          first_error =
              Status::IOError("zero-length transfer at offset " + std::to_string(p->offset));
        }
        continue;
      }
      Advance(*p, static_cast<std::uint64_t>(res));
      if (!p->iov.empty()) retry.push_back(p);
    }
  }
  return first_error;
}

}  // namespace ec::store
