#include "common/fan_out.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ec {
namespace {

TEST(GatherAll, NoCallsReturnsAtOnce) {
  int started = 0;
  auto out = GatherAll<int>(0, [&](std::size_t, auto) { ++started; });
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(started, 0);
}

TEST(GatherAll, SynchronousCompletionsDoNotBlock) {
  auto out = GatherAll<std::string>(3, [](std::size_t i, auto done) {
    done(std::to_string(i * 10));  // before start returns
  });
  EXPECT_EQ(out, (std::vector<std::string>{"0", "10", "20"}));
}

TEST(GatherAll, ResultsInIndexOrderWhateverTheThreadAndOrder) {
  constexpr std::size_t kCalls = 16;
  std::mutex mu;
  std::condition_variable started;
  std::vector<Gather<int>::Done> pending;
  std::vector<int> out;
  std::thread waiter([&] {
    out = GatherAll<int>(kCalls, [&](std::size_t, auto done) {
      std::lock_guard lock(mu);
      pending.push_back(std::move(done));
      started.notify_one();
    });
  });
  {
    std::unique_lock lock(mu);
    started.wait(lock, [&] { return pending.size() == kCalls; });
  }
  // Completed last to first, each on a thread of its own, as io threads would.
  std::vector<std::thread> threads;
  for (std::size_t i = kCalls; i-- > 0;) {
    threads.emplace_back([d = pending[i], i] { d(static_cast<int>(i) * 2); });
  }
  for (auto& t : threads) t.join();
  waiter.join();
  ASSERT_EQ(out.size(), kCalls);
  for (std::size_t i = 0; i < kCalls; ++i) EXPECT_EQ(out[i], static_cast<int>(i) * 2);
}

TEST(Gather, SecondCompletionAndOutOfRangeAreIgnored) {
  Gather<int> g(2);
  auto indexed = g.Indexed();
  indexed(0, 1);
  indexed(0, 99);  // a second completion of 0 must not count for 1
  indexed(7, 99);  // out of range
  indexed(1, 2);
  EXPECT_EQ(g.Wait(), (std::vector<int>{1, 2}));
}

// A thread running posted tasks in order, standing for a client's io thread.
class IoThread {
 public:
  IoThread() : thread_([this] { Run(); }) {}
  ~IoThread() {
    Post(nullptr);
    thread_.join();
  }
  void Post(std::function<void()> task) {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(task));
    cv_.notify_one();
  }

 private:
  void Run() {
    for (;;) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !tasks_.empty(); });
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      if (!task) return;
      task();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::thread thread_;
};

TEST(Gather, ACompletionMayContinueTheCallFromItsThread) {
  // A paged call: each page's completion asks for the next page from the io thread; the index
  // completes with its last page.
  IoThread io;
  struct Pager {
    int pages_left;
    int sum;
    Gather<int>::Done done;
    IoThread* io;
    void Next(std::shared_ptr<Pager> self) {
      io->Post([self] {
        self->sum += self->pages_left;
        if (--self->pages_left == 0) return self->done(self->sum);
        self->Next(self);
      });
    }
  };
  auto out = GatherAll<int>(2, [&](std::size_t i, auto done) {
    auto pager = std::make_shared<Pager>(Pager{static_cast<int>(i) + 3, 0, std::move(done), &io});
    pager->Next(pager);
  });
  EXPECT_EQ(out, (std::vector<int>{3 + 2 + 1, 4 + 3 + 2 + 1}));
}

TEST(Gather, ACompletionOutlivingTheGatherIsHarmless) {
  Gather<int>::Done late;
  {
    Gather<int> g(1);
    late = g.For(0);
    g.For(0)(5);
    EXPECT_EQ(g.Wait(), std::vector<int>{5});
  }
  late(6);  // the state is shared with the completion: nothing freed is touched
}

}  // namespace
}  // namespace ec
