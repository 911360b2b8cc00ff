// UringQueue: one io_uring instance that runs batches of IoRequests on one file descriptor.
// Internal to the device layer (file_device.cc).
//
// Thread safety: Run serialises callers with an internal mutex (one ring, one submitter).
#pragma once

#include <liburing.h>

#include <memory>
#include <mutex>
#include <span>

#include "common/status.h"
#include "osd/store/device.h"

namespace ec::store {

class UringQueue {
 public:
  // Errors: the errno of io_uring_queue_init (ENOSYS, EPERM when io_uring is disabled, ENOMEM).
  static Result<std::unique_ptr<UringQueue>> Create(unsigned entries);
  ~UringQueue();
  UringQueue(const UringQueue&) = delete;
  UringQueue& operator=(const UringQueue&) = delete;

  // Queues every request of `batch` on `fd` (as many as the ring holds per round), submits them
  // with one system call per round and waits for all completions. A short transfer is continued
  // with a follow-up request. Returns the first error seen (a negative completion result).
  // When the ring itself fails (a submit or wait error rather than a failed request), requests
  // may still be in flight: the ring is then broken() and its owner destroys it instead of
  // reusing it, so that stale completions never reach a later batch.
  Status Run(int fd, std::span<IoRequest> batch);
  bool broken() const { return broken_; }

 private:
  explicit UringQueue(unsigned entries) : entries_(entries) {}
  unsigned entries_;
  bool broken_ = false;
  io_uring ring_{};
  std::mutex mu_;
};

}  // namespace ec::store
