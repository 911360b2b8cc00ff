#include "osd/shard/op_dispatch.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace ec::osd::shard {
namespace {

int ThreadNice() {
  return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
}

// A held strand: what is posted to it waits until Release (then runs in posting order), other
// strands run meanwhile, a strand with something in flight cannot be held, and Drain waits for
// the holder.
TEST(OpDispatcher, AHeldStrandDefersItsOperationsUntilRelease) {
  OpDispatcher d(/*workers=*/2, /*inline_read_max_bytes=*/0, nullptr, nullptr);
  constexpr std::size_t kKey = 7, kOther = 8;
  ASSERT_TRUE(d.Hold(kKey));
  EXPECT_FALSE(d.Hold(kKey));                           // held already
  EXPECT_FALSE(d.Hold(kKey + OpDispatcher::kStrands));  // the same strand
  std::mutex mu;
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) {
    d.Post(kKey, [&, i] {
      std::lock_guard lock(mu);
      order.push_back(i);
    });
  }
  std::promise<void> other;
  d.Post(kOther, [&] { other.set_value(); });
  ASSERT_EQ(other.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(order.empty()) << "an operation of the held strand ran";
  }
  EXPECT_EQ(d.inflight(), 6u);  // the holder and the five waiting
  d.Release(kKey);
  d.Drain();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(d.inflight(), 0u);
  // Something in flight on the strand: no Hold until it is done.
  std::promise<void> go;
  std::shared_future<void> gate = go.get_future().share();
  d.Post(kKey, [gate] { gate.wait(); });
  EXPECT_FALSE(d.Hold(kKey));
  go.set_value();
  d.Drain();
  EXPECT_TRUE(d.Hold(kKey));
  d.Release(kKey);
}

// Background operations run on their own, nicer threads and never wait behind keyed ones; Drain
// waits for both kinds.
TEST(OpDispatcher, BackgroundRunsNicerAndBesideBlockedWorkers) {
  const int base = ThreadNice();
  OpDispatcher d(/*workers=*/1, /*inline_read_max_bytes=*/0, nullptr, nullptr,
                 /*background_workers=*/2, /*background_nice=*/std::max(base, 12));
  ASSERT_TRUE(d.background_nice_status().ok()) << d.background_nice_status().ToString();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<int> keyed_nice;
  d.Post(1, [&] {
    keyed_nice.set_value(ThreadNice());
    released.wait();  // the only worker is busy until the background op has run
  });
  std::promise<int> background_nice;
  d.PostBackground([&] { background_nice.set_value(ThreadNice()); });
  auto got = background_nice.get_future();
  ASSERT_EQ(got.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "a background operation waited behind a keyed one";
  EXPECT_EQ(got.get(), std::max(base, 12));
  EXPECT_EQ(keyed_nice.get_future().get(), base);
  // The background operation ends (its count drops) just after it set the value; the keyed one is
  // still blocked, so exactly one stays in flight.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (d.inflight() != 1u && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(d.inflight(), 1u);
  release.set_value();
  std::atomic<bool> late{false};
  d.PostBackground([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    late = true;
  });
  d.Drain();
  EXPECT_TRUE(late.load());
  EXPECT_EQ(d.inflight(), 0u);
}

TEST(OpDispatcher, ANiceValueOutOfRangeIsReported) {
  OpDispatcher d(1, 0, nullptr, nullptr, 1, 42);
  EXPECT_EQ(d.background_nice_status().code(), EINVAL);
  std::promise<void> ran;
  d.PostBackground([&] { ran.set_value(); });
  EXPECT_EQ(ran.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
}

}  // namespace
}  // namespace ec::osd::shard
