// IoThreads: an io_context and the threads that run it, shared by several OsdClients (a PG
// primary's clients of its peers, PeerOptions::share_io) so that one thread serves every peer
// connection: the sub-operations of one object write, sent to five OSDs, wake one thread once or
// twice instead of five threads once each, and their replies likewise.
//
// Lifetime: the threads run until the IoThreads is destroyed, which waits until the io_context
// has no more work (every handler of every connection on it has run: a closed client's last
// completions included) and joins them. Destroyed from one of its own threads (the last owner
// let go in a completion), it hands the wait to a detached thread instead of joining itself.
//
// Thread safety: io() may be used from any thread.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

namespace spdlog {
class logger;
}

namespace ec::msg {

class IoThreads {
 public:
  // Starts `threads` (1..64) threads named `name`, at nice `nice` (common/thread_nice.h; a value
  // the kernel refuses is logged to `log`, may be null). Errors: EINVAL for a count out of range.
  static Result<std::shared_ptr<IoThreads>> Start(int threads, const std::string& name, int nice,
                                                  std::shared_ptr<spdlog::logger> log);
  ~IoThreads();
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  boost::asio::io_context& io() { return state_->io; }

 private:
  struct State {
    boost::asio::io_context io;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{
        boost::asio::make_work_guard(io)};
    std::vector<std::thread> threads;
    // Joins the threads (after work is reset); never from one of them.
    ~State();
  };
  explicit IoThreads(std::unique_ptr<State> state) : state_(std::move(state)) {}
  std::unique_ptr<State> state_;
};

}  // namespace ec::msg
