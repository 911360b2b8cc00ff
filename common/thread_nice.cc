#include "common/thread_nice.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <latch>
#include <mutex>
#include <string>

namespace ec {

Status NiceCurrentThread(int nice) {
  if (nice < 0 || nice > kNiceSchedIdle) {
    return Status::Invalid("thread nice value " + std::to_string(nice) + " is not in 0..20");
  }
  if (nice == 0) return Status::OK();
  // On Linux PRIO_PROCESS with a thread id sets that one thread (the glibc wrapper passes it on);
  // so does sched_setscheduler with a thread id.
  const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
  if (nice == kNiceSchedIdle) {
    // SCHED_IDLE: the scheduler preempts such a thread as soon as any normal thread wakes up on
    // its CPU, where a nice 19 thread may still finish its time slice first (milliseconds that a
    // client's request would wait at every hop).
    sched_param param{};
    param.sched_priority = 0;
    if (::sched_setscheduler(static_cast<pid_t>(tid), SCHED_IDLE, &param) != 0) {
      const int err = errno;
      return Status::Error(err,
                           std::string("sched_setscheduler(SCHED_IDLE): ") + std::strerror(err));
    }
    return Status::OK();
  }
  if (::setpriority(PRIO_PROCESS, tid, nice) != 0) {
    const int err = errno;
    return Status::Error(
        err, std::string("setpriority(nice ") + std::to_string(nice) + "): " + std::strerror(err));
  }
  return Status::OK();
}

Status NiceEveryThread(std::size_t threads, int nice,
                       const std::function<void(std::function<void()>)>& post) {
  if (nice < 0 || nice > kNiceSchedIdle) return NiceCurrentThread(nice);  // the range error
  if (nice == 0) return Status::OK();
  return OnEveryThread(threads, post, [nice] { return NiceCurrentThread(nice); });
}

Status OnEveryThread(std::size_t threads, const std::function<void(std::function<void()>)>& post,
                     const std::function<Status()>& fn) {
  if (threads == 0) return Status::OK();
  std::latch all_running(static_cast<std::ptrdiff_t>(threads));
  std::latch all_done(static_cast<std::ptrdiff_t>(threads));
  std::mutex mu;
  Status first = Status::OK();
  for (std::size_t i = 0; i < threads; ++i) {
    post([&] {
      Status s = fn();
      if (!s.ok()) {
        std::lock_guard lock(mu);
        if (first.ok()) first = s;
      }
      // Hold this thread until every task has one, so no thread takes two tasks.
      all_running.arrive_and_wait();
      all_done.count_down();
    });
  }
  all_done.wait();
  return first;
}

}  // namespace ec
