// Thread niceness: background work (recovery) runs on threads with a higher nice value than the
// threads serving clients, so that when the CPU is short the kernel runs the client's work first.
// Linux keeps a nice value per thread (setpriority on the thread id), which is what this uses.
//
// Raising a thread's nice value needs no privilege; lowering it below the process's does
// (CAP_SYS_NICE), so a thread made nicer stays so.
//
// Thread safety: NiceCurrentThread touches only the calling thread. NiceEveryThread and
// OnEveryThread block the caller until each of the pool's threads has run its task.
#pragma once

#include <cstddef>
#include <functional>

#include "common/status.h"

namespace ec {

// The nice value that means "below 19": the SCHED_IDLE scheduling class. Such a thread runs only on
// CPU time no normal thread wants, and a normal thread that wakes up takes its CPU at once.
inline constexpr int kNiceSchedIdle = 20;

// Sets the calling thread's nice value to `nice` (0..19; 0 leaves the thread as it is; 20,
// kNiceSchedIdle: the SCHED_IDLE class instead). Errors: EINVAL for a value out of range; the
// kernel's errno (EACCES/EPERM) when it refuses.
Status NiceCurrentThread(int nice);

// Sets the nice value of every thread of a pool of exactly `threads` threads whose only work so
// far is what `post` hands it: `post(task)` must queue `task` on the pool. Each of the `threads`
// tasks waits until all of them are running, so each runs on its own thread. The pool must have
// exactly `threads` idle threads (fewer would wait forever). Returns the first error (the other
// threads are still set).
Status NiceEveryThread(std::size_t threads, int nice,
                       const std::function<void(std::function<void()>)>& post);

// Runs `fn` once on each thread of such a pool (the same contract as NiceEveryThread, which is
// this with NiceCurrentThread): for per-thread set-up, such as a name (thread_name.h). Returns the
// first error.
Status OnEveryThread(std::size_t threads, const std::function<void(std::function<void()>)>& post,
                     const std::function<Status()>& fn);

}  // namespace ec
