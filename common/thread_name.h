// Thread names: every long-lived thread of ecstore's programs carries a short name ("msg-io",
// "shard-wk", "pg-wk", ...), shown by `top -H`, `ps -L`, perf and gdb, and in
// /proc/PID/task/*/comm, which the benchmarks read to say which threads spend the CPU and the
// context switches.
//
// Thread safety: NameCurrentThread touches only the calling thread.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace ec {

// Names the calling thread. Linux keeps at most 15 bytes: a longer name is cut. Best effort: a
// refusal by the kernel is ignored (a name is a diagnostic, never a reason to fail).
void NameCurrentThread(const char* name);

// Names every thread of a pool of exactly `threads` idle threads, through `post` (the contract of
// OnEveryThread, thread_nice.h). Blocks until each has taken its name.
void NameEveryThread(std::size_t threads, const std::string& name,
                     const std::function<void(std::function<void()>)>& post);

}  // namespace ec
