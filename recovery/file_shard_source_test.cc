// FileShardSource on real files, with io_uring and with the pread fallback: extents land back to
// back, a missing or truncated file fails its own request only, with a message naming the file.
#include "recovery/file_shard_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace ec::recovery {
namespace {

namespace fs = std::filesystem;

class FileShardSourceTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ec_file_source_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(dir_);
    fname_ = (dir_ / "obj").string();
    std::mt19937 rng(7);
    for (int id = 0; id < 3; ++id) {
      std::vector<std::byte> bytes(100000);
      for (auto& b : bytes) b = static_cast<std::byte>(rng());
      std::ofstream(fname_ + "." + std::to_string(id), std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()),
                 static_cast<std::streamsize>(bytes.size()));
      shards_.push_back(std::move(bytes));
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `requests` and returns the status of each.
  std::vector<Status> Run(FileShardSource& source, std::vector<ShardReadRequest>& requests) {
    std::vector<Status> results(requests.size(), Status::Invalid("not completed"));
    std::vector<int> calls(requests.size(), 0);
    source.ReadAsync(requests, [&](std::size_t i, Status s) {
      results[i] = std::move(s);
      ++calls[i];
    });
    for (int c : calls) EXPECT_EQ(c, 1);
    return results;
  }

  static inline int counter_ = 0;
  fs::path dir_;
  std::string fname_;
  std::vector<std::vector<std::byte>> shards_;
};

TEST_P(FileShardSourceTest, ExtentsLandBackToBack) {
  FileShardSource source(fname_, 4, GetParam());
  if (GetParam() && !source.uses_io_uring()) GTEST_SKIP() << "no io_uring on this kernel";
  std::vector<std::vector<std::byte>> dest(3);
  std::vector<ShardReadRequest> requests;
  for (int id = 0; id < 3; ++id) {
    ShardReadRequest r;
    r.shard = id;
    // Many small extents (more than the ring depth) and one large one.
    for (std::uint64_t off = 0; off < 20000; off += 1000) r.extents.push_back({off + id, 500});
    r.extents.push_back({50000, 50000});
    dest[id].resize(20 * 500 + 50000);
    r.destination = dest[id];
    requests.push_back(std::move(r));
  }
  for (const Status& s : Run(source, requests)) EXPECT_TRUE(s.ok()) << s.message();
  for (int id = 0; id < 3; ++id) {
    std::size_t pos = 0;
    for (const Extent& e : requests[id].extents) {
      ASSERT_EQ(0, std::memcmp(dest[id].data() + pos, shards_[id].data() + e.offset, e.length));
      pos += e.length;
    }
  }
}

TEST_P(FileShardSourceTest, AFailingShardFailsOnlyItsRequest) {
  FileShardSource source(fname_, 8, GetParam());
  fs::resize_file(fname_ + ".1", 5000);
  fs::remove(fname_ + ".2");
  std::vector<std::vector<std::byte>> dest(4, std::vector<std::byte>(8000));
  std::vector<ShardReadRequest> requests = {{0, {{0, 8000}}, dest[0]},
                                            {1, {{0, 4000}, {4000, 4000}}, dest[1]},
                                            {2, {{0, 8000}}, dest[2]},
                                            {0, {{100, 8000}}, dest[3]}};
  const std::vector<Status> r = Run(source, requests);
  EXPECT_TRUE(r[0].ok()) << r[0].message();
  EXPECT_TRUE(r[3].ok()) << r[3].message();
  EXPECT_EQ(r[1].code(), ENODATA);
  EXPECT_EQ(r[1].message(),
            "failed to read " + fname_ + ".1: the file ends before byte 8000 (truncated?)");
  EXPECT_EQ(r[2].code(), ENOENT);
  EXPECT_EQ(r[2].message(), "failed to read " + fname_ + ".2: No such file or directory");
  EXPECT_EQ(0, std::memcmp(dest[3].data(), shards_[0].data() + 100, 8000));
}

// An error of the read itself (not of open, not end of file) is the kernel's errno, named after
// the file, whichever path ran it.
TEST_P(FileShardSourceTest, AReadErrorNamesTheFileAndTheErrno) {
  FileShardSource source(fname_, 8, GetParam());
  fs::remove(fname_ + ".2");
  fs::create_directory(fname_ + ".2");  // opens read-only; every read fails with EISDIR
  std::vector<std::vector<std::byte>> dest(2, std::vector<std::byte>(4000));
  std::vector<ShardReadRequest> requests = {{2, {{0, 4000}}, dest[0]}, {0, {{10, 4000}}, dest[1]}};
  const std::vector<Status> r = Run(source, requests);
  EXPECT_EQ(r[0].code(), EISDIR);
  EXPECT_EQ(r[0].message(), "failed to read " + fname_ + ".2: " + std::strerror(EISDIR));
  EXPECT_TRUE(r[1].ok()) << r[1].message();
  EXPECT_EQ(0, std::memcmp(dest[1].data(), shards_[0].data() + 10, 4000));
}

INSTANTIATE_TEST_SUITE_P(Paths, FileShardSourceTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("io_uring") : std::string("pread");
                         });

}  // namespace
}  // namespace ec::recovery
