#include "msg/io_threads.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/thread_name.h"
#include "common/thread_nice.h"

namespace ec::msg {

Result<std::shared_ptr<IoThreads>> IoThreads::Start(int threads, const std::string& name, int nice,
                                                    std::shared_ptr<spdlog::logger> log) {
  if (threads < 1 || threads > 64) {
    return Status::Invalid(fmt::format("io threads {} out of range 1..64", threads));
  }
  auto state = std::make_unique<State>();
  State* raw = state.get();
  for (int i = 0; i < threads; ++i) {
    raw->threads.emplace_back([raw, name, nice, log] {
      if (nice != 0) {
        Status niced = NiceCurrentThread(nice);
        if (!niced.ok() && log) log->warn("{}: io thread nice: {}", name, niced.message());
      }
      NameCurrentThread(name.c_str());
      raw->io.run();
    });
  }
  return std::shared_ptr<IoThreads>(new IoThreads(std::move(state)));
}

IoThreads::State::~State() {
  work.reset();  // already, unless Start failed midway
  for (std::thread& t : threads) t.join();
}

IoThreads::~IoThreads() {
  state_->work.reset();
  for (const std::thread& t : state_->threads) {
    if (t.get_id() == std::this_thread::get_id()) {
      // The last owner let go on one of these threads: it cannot join itself. A detached thread
      // waits for the io_context to run out of work, joins them all and frees the state.
      std::thread([state = std::move(state_)]() mutable { state.reset(); }).detach();
      return;
    }
  }
  state_.reset();
}

}  // namespace ec::msg
