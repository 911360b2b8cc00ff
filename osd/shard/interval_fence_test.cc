#include "osd/shard/interval_fence.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace ec::osd::shard {
namespace {

using namespace std::chrono_literals;

TEST(IntervalFence, RefusesOnlyEpochsBelowTheFenceOfThatCollection) {
  IntervalFence fence;
  EXPECT_EQ(fence.FenceOf("pg.1.0"), 0u);
  EXPECT_TRUE(fence.Admit("pg.1.0", 0, "SubWrite").ok());  // never raised: anything goes
  fence.Raise("pg.1.0", 7);
  EXPECT_EQ(fence.FenceOf("pg.1.0"), 7u);
  auto old = fence.Admit("pg.1.0", 6, "SubWrite");
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().code(), ESTALE);
  EXPECT_TRUE(old.status().is_retryable());
  EXPECT_NE(old.status().message().find("pg.1.0 was peered at epoch 7"), std::string::npos)
      << old.status().message();
  EXPECT_NE(old.status().message().find("this SubWrite is from epoch 6"), std::string::npos);
  EXPECT_TRUE(fence.Admit("pg.1.0", 7, "SubWrite").ok());
  EXPECT_TRUE(fence.Admit("pg.1.0", 9, "SubWrite").ok());
  EXPECT_TRUE(fence.Admit("pg.1.1", 1, "SubWrite").ok());  // another PG: its own fence
  // A fence never goes down; epoch 0 raises nothing.
  fence.Raise("pg.1.0", 5);
  fence.Raise("pg.1.0", 0);
  EXPECT_EQ(fence.FenceOf("pg.1.0"), 7u);
  EXPECT_FALSE(fence.Admit("pg.1.0", 6, "SubResolve").ok());
}

TEST(IntervalFence, RaiseWaitsForOperationsOfOlderEpochsOnly) {
  IntervalFence fence;
  auto older = fence.Admit("pg.2.0", 3, "SubWrite");
  auto newer = fence.Admit("pg.2.0", 9, "SubWrite");
  auto other = fence.Admit("pg.2.1", 1, "SubWrite");
  ASSERT_TRUE(older.ok() && newer.ok() && other.ok());
  std::atomic<bool> raised{false};
  std::thread scan([&] {
    fence.Raise("pg.2.0", 5);
    raised = true;
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(raised) << "Raise returned while an operation of epoch 3 was running";
  // Already refused while the raise waits.
  EXPECT_FALSE(fence.Admit("pg.2.0", 4, "SubWrite").ok());
  { IntervalFence::Guard done = std::move(older).value(); }  // the epoch-3 operation ends
  scan.join();
  EXPECT_TRUE(raised);
  // The operations of epoch 9 and of another PG were not waited for and still hold their guards.
  IntervalFence::Guard moved = std::move(newer).value();
  IntervalFence::Guard again;
  again = std::move(moved);
  fence.Raise("pg.2.0", 9);  // does not wait for epoch 9 itself
  EXPECT_EQ(fence.FenceOf("pg.2.0"), 9u);
}

}  // namespace
}  // namespace ec::osd::shard
