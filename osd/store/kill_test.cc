// Crash safety against a real process death: a writer process (ec_store_kill_writer) is killed
// with SIGKILL mid-stream; after remount every acknowledged transaction is fully present, the one
// in flight is either wholly present or wholly absent, fsck (deep) is clean and no space leaks.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "osd/store/kill_workload.h"
#include "osd/store/store_test_support.h"

extern char** environ;

namespace ec::osd::store {
namespace {

using testing::KillContent;
using testing::KillObjectName;
using testing::KillTouched;

class KillTest : public ::testing::TestWithParam<IoBackend> {};

// Runs the writer from `first`, kills it after it acknowledged `acks_before_kill` transactions and
// returns the last acknowledged transaction number (or first - 1 if none).
std::int64_t RunAndKill(const StoreOptions& o, std::uint64_t first, int acks_before_kill,
                        int kill_delay_us) {
  int fds[2];
  if (::pipe(fds) != 0) return -2;
  std::string fd_arg = std::to_string(fds[1]);
  std::string first_arg = std::to_string(first);
  std::string backend(IoBackendName(o.backend));
  const char* argv[] = {ECSTORE_KILL_WRITER,
                        o.device_path.c_str(),
                        o.db_path.c_str(),
                        backend.c_str(),
                        first_arg.c_str(),
                        fd_arg.c_str(),
                        nullptr};
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, ECSTORE_KILL_WRITER, nullptr, nullptr,
                         const_cast<char* const*>(argv), environ);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return -2;
  }
  std::int64_t last = static_cast<std::int64_t>(first) - 1;
  std::uint64_t v = 0;
  for (int n = 0; n < acks_before_kill && ::read(fds[0], &v, 8) == 8; ++n) {
    last = static_cast<std::int64_t>(v);
  }
  std::this_thread::sleep_for(std::chrono::microseconds(kill_delay_us));
  ::kill(pid, SIGKILL);
  // Acknowledgements already in the pipe count too.
  while (::read(fds[0], &v, 8) == 8) last = static_cast<std::int64_t>(v);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status)) << "writer exited by itself with status " << status;
  return last;
}

TEST_P(KillTest, AcknowledgedTransactionsSurviveSigkill) {
  std::uint64_t seed = testing::TestSeed();
  std::mt19937_64 rng(seed);
  testing::TempDir dir;
  StoreOptions o = testing::MakeOptions(dir, GetParam());
  ASSERT_TRUE(ObjectStore::Mkfs(o).ok());
  std::uint64_t empty_free = 0;
  {
    auto s = ObjectStore::Open(o);
    ASSERT_TRUE(s.ok());
    Transaction t;
    t.CreateCollection("kill");
    ASSERT_TRUE((*s)->Apply(t).ok());
    empty_free = (*s)->free_bytes();
  }
  std::uint64_t next = 0;
  for (int round = 0; round < 4; ++round) {
    std::int64_t acked =
        RunAndKill(o, next, 5 + static_cast<int>(rng() % 40), static_cast<int>(rng() % 3000));
    ASSERT_GE(acked, -1);
    auto s = ObjectStore::Open(o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ObjectStore& store = **s;
    // The newest transaction applied: the last acknowledged one or the one in flight.
    std::int64_t newest = -1;
    for (std::uint64_t k = 0; k < testing::kKillObjects; ++k) {
      auto a = store.GetAttr("kill", KillObjectName(k), "tx");
      if (a.ok()) newest = std::max<std::int64_t>(newest, std::stoll(*a));
    }
    ASSERT_GE(newest, acked) << "an acknowledged transaction is missing (round " << round << ")";
    ASSERT_LE(newest, acked + 1);
    // Every object holds exactly the version of the last transaction <= newest touching it.
    for (std::uint64_t k = 0; k < testing::kKillObjects; ++k) {
      std::int64_t want = -1;
      for (std::int64_t i = newest; i >= 0 && want < 0; --i) {
        for (std::uint64_t t : KillTouched(static_cast<std::uint64_t>(i))) {
          if (t == k) want = i;
        }
      }
      auto a = store.GetAttr("kill", KillObjectName(k), "tx");
      if (want < 0) {
        EXPECT_FALSE(a.ok());
        continue;
      }
      ASSERT_TRUE(a.ok()) << KillObjectName(k);
      EXPECT_EQ(std::stoll(*a), want) << KillObjectName(k);
      auto data = KillContent(static_cast<std::uint64_t>(want), k);
      Extent e{0, data.size() + 100};
      auto r = store.Read("kill", KillObjectName(k), std::span<const Extent>(&e, 1));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ((*r)[0].size(), data.size());
      EXPECT_EQ(std::memcmp((*r)[0].data(), data.data(), data.size()), 0) << KillObjectName(k);
    }
    auto names = store.List("kill");
    ASSERT_TRUE(names.ok());
    for (const std::string& n : *names) {
      EXPECT_FALSE(n.ends_with(".new")) << "a rewrite's temporary name survived: " << n;
    }
    auto f = store.Fsck(true);
    ASSERT_TRUE(f.ok());
    for (const auto& e : f->errors) ADD_FAILURE() << e;
    next = static_cast<std::uint64_t>(newest + 1);
    if (round == 3) {
      Transaction t;
      for (std::uint64_t k = 0; k < testing::kKillObjects; ++k) {
        if (store.Stat("kill", KillObjectName(k)).ok()) t.Remove("kill", KillObjectName(k));
      }
      ASSERT_TRUE(store.Apply(t).ok());
      EXPECT_EQ(store.free_bytes(), empty_free);  // nothing leaked
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, KillTest, ::testing::Values(IoBackend::kUring, IoBackend::kSync),
                         testing::BackendName);

}  // namespace
}  // namespace ec::osd::store
