#include "common/thread_nice.h"

#include <fstream>
#include <string>

#include "common/thread_name.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <latch>
#include <mutex>
#include <set>
#include <thread>

namespace {

int MyNice() {
  errno = 0;
  return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
}

TEST(ThreadNice, SetsOnlyTheCallingThread) {
  const int before = MyNice();
  int in_thread = -100;
  ec::Status s;
  std::thread t([&] {
    s = ec::NiceCurrentThread(19);  // raising is always allowed
    in_thread = MyNice();
  });
  t.join();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(in_thread, 19);
  EXPECT_EQ(MyNice(), before);
}

TEST(ThreadNice, TwentyMeansSchedIdleForTheCallingThreadOnly) {
  int policy = -1;
  ec::Status s;
  std::thread t([&] {
    s = ec::NiceCurrentThread(ec::kNiceSchedIdle);
    policy = ::sched_getscheduler(0);  // 0: the calling thread
  });
  t.join();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(policy, SCHED_IDLE);
  EXPECT_EQ(::sched_getscheduler(0), SCHED_OTHER);
}

TEST(ThreadNice, OutOfRangeIsInvalidAndZeroChangesNothing) {
  EXPECT_EQ(ec::NiceCurrentThread(-1).code(), EINVAL);
  EXPECT_EQ(ec::NiceCurrentThread(21).code(), EINVAL);
  const int before = MyNice();
  EXPECT_TRUE(ec::NiceCurrentThread(0).ok());
  EXPECT_EQ(MyNice(), before);
}

TEST(ThreadNice, EveryThreadOfAPoolOnce) {
  constexpr std::size_t kThreads = 4;
  boost::asio::thread_pool pool(kThreads);
  auto post = [&](std::function<void()> fn) { boost::asio::post(pool, std::move(fn)); };
  ASSERT_TRUE(ec::NiceEveryThread(kThreads, 17, post).ok());
  // Look at every thread: the same trick (each task holds its thread until all run).
  std::latch running(kThreads);
  std::mutex mu;
  std::set<long> tids;
  std::set<int> nices;
  std::latch done(kThreads);
  for (std::size_t i = 0; i < kThreads; ++i) {
    post([&] {
      {
        std::lock_guard lock(mu);
        tids.insert(::syscall(SYS_gettid));
        nices.insert(MyNice());
      }
      running.arrive_and_wait();
      done.count_down();
    });
  }
  done.wait();
  EXPECT_EQ(ec::NiceEveryThread(kThreads, 25, post).code(), EINVAL);  // nothing posted
  pool.join();
  EXPECT_EQ(tids.size(), kThreads);
  EXPECT_EQ(nices, std::set<int>{17});
}

std::string MyName() {
  std::ifstream in("/proc/self/task/" + std::to_string(::syscall(SYS_gettid)) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

TEST(ThreadName, NamesEveryThreadOfAPoolAndCutsLongNames) {
  constexpr std::size_t kThreads = 3;
  boost::asio::thread_pool pool(kThreads);
  auto post = [&](std::function<void()> fn) { boost::asio::post(pool, std::move(fn)); };
  ec::NameEveryThread(kThreads, "a-rather-long-thread-name", post);
  std::latch running(kThreads);
  std::mutex mu;
  std::set<std::string> names;
  std::latch done(kThreads);
  for (std::size_t i = 0; i < kThreads; ++i) {
    post([&] {
      {
        std::lock_guard lock(mu);
        names.insert(MyName());
      }
      running.arrive_and_wait();
      done.count_down();
    });
  }
  done.wait();
  pool.join();
  EXPECT_EQ(names, std::set<std::string>{"a-rather-long-t"});  // 15 bytes: the kernel's limit
}

}  // namespace
