#include "common/uring_batch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace ec {
namespace {

using Mode = UringBatch::Mode;
using Request = UringBatch::Request;

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "uring_batch_test.XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

class Fd {
 public:
  Fd(const std::string& path, int flags) : fd_(::open(path.c_str(), flags | O_CLOEXEC, 0644)) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::vector<std::byte> Pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 17) & 0xff);
  return v;
}

void WriteFile(const std::string& path, const std::vector<std::byte>& data) {
  Fd fd(path, O_WRONLY | O_CREAT | O_TRUNC);
  ASSERT_GE(fd.get(), 0);
  ASSERT_EQ(::pwrite(fd.get(), data.data(), data.size(), 0), static_cast<ssize_t>(data.size()));
}

std::unique_ptr<UringBatch> Make(unsigned entries, Mode mode) {
  auto b = UringBatch::Create(entries, mode);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? std::move(b).value() : nullptr;
}

class UringBatchTest : public ::testing::TestWithParam<Mode> {
 protected:
  TempDir dir_;
};

TEST_P(UringBatchTest, FallbackIsUsedWhenForced) {
  auto b = Make(8, GetParam());
  ASSERT_NE(b, nullptr);
  if (GetParam() == Mode::kSync) {
    EXPECT_FALSE(b->uses_io_uring());
  }
  std::cout << "io_uring: " << (b->uses_io_uring() ? "yes" : "no (fallback)") << std::endl;
  EXPECT_TRUE(b->Run({}).ok());
  EXPECT_EQ(b->submissions(), 0u);
}

TEST_P(UringBatchTest, WritesAndReadsManyFilesWithBuffersAndIovecs) {
  auto b = Make(16, GetParam());
  ASSERT_NE(b, nullptr);
  const auto a = Pattern(10000, 1), c = Pattern(7000, 2);
  Fd fa(dir_.File("a"), O_RDWR | O_CREAT), fc(dir_.File("c"), O_RDWR | O_CREAT);
  ASSERT_GE(fa.get(), 0);
  ASSERT_GE(fc.get(), 0);
  // File a in two pieces; file c through three iovecs (one of them empty).
  std::vector<iovec> iov = {{const_cast<std::byte*>(c.data()), 3000},
                            {nullptr, 0},
                            {const_cast<std::byte*>(c.data()) + 3000, 4000}};
  std::vector<Request> writes = {
      Request::Write(fa.get(), 0, std::span(a).first(4096)),
      Request::Write(fa.get(), 4096, std::span(a).subspan(4096)),
      Request{Request::Op::kWrite, fc.get(), 0, nullptr, 0, iov},
  };
  std::size_t failed = 99;
  Status s = b->Run(writes, &failed);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(failed, writes.size());

  std::vector<std::byte> ra(a.size()), rc(c.size());
  std::vector<iovec> riov = {{rc.data(), 1}, {rc.data() + 1, rc.size() - 1}};
  std::vector<Request> reads = {
      Request::Read(fc.get(), 0, {}),  // zero bytes: completes at once
      Request::Read(fa.get(), 100, std::span(ra).subspan(100)),
      Request::Read(fa.get(), 0, std::span(ra).first(100)),
      Request{Request::Op::kRead, fc.get(), 0, nullptr, 0, riov},
  };
  s = b->Run(reads);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ra, a);
  EXPECT_EQ(rc, c);
}

TEST_P(UringBatchTest, ReadPastEndOfFileIsEndOfFileError) {
  auto b = Make(8, GetParam());
  ASSERT_NE(b, nullptr);
  const auto data = Pattern(5000, 3);
  WriteFile(dir_.File("short"), data);
  Fd fd(dir_.File("short"), O_RDONLY);
  std::vector<std::byte> buf(8192);
  std::vector<std::byte> tail(904);
  std::vector<Request> reads = {
      Request::Read(fd.get(), 4096, tail),  // exactly up to the end: fine
      Request::Read(fd.get(), 0, buf),      // 5000 bytes, then the end of the file
  };
  std::size_t failed = 99;
  Status s = b->Run(reads, &failed);
  EXPECT_EQ(s.code(), ENODATA) << s.ToString();
  EXPECT_EQ(failed, 1u);
  // The offset where the file ended, after the short transfer was continued.
  EXPECT_EQ(s.message(), "read at offset 5000: end of file");
  EXPECT_TRUE(std::equal(data.begin(), data.end(), buf.begin()));
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), data.begin() + 4096));
}

TEST_P(UringBatchTest, KernelErrorsNameTheRequest) {
  auto b = Make(8, GetParam());
  ASSERT_NE(b, nullptr);
  WriteFile(dir_.File("f"), Pattern(4096, 4));
  Fd ro(dir_.File("f"), O_RDONLY);
  Fd wo(dir_.File("f"), O_WRONLY);
  std::vector<std::byte> buf(4096);
  std::vector<Request> batch = {
      Request::Read(ro.get(), 0, buf),
      Request::Read(wo.get(), 0, buf),  // EBADF: not open for reading
  };
  std::size_t failed = 99;
  Status s = b->Run(batch, &failed);
  EXPECT_EQ(s.code(), EBADF) << s.ToString();
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(s.message().rfind("read at offset 0: ", 0), 0u) << s.message();

  batch = {Request::Write(ro.get(), 8192, buf)};
  s = b->Run(batch, &failed);
  EXPECT_EQ(s.code(), EBADF) << s.ToString();
  EXPECT_EQ(failed, 0u);
  EXPECT_EQ(s.message().rfind("write at offset 8192: ", 0), 0u) << s.message();

  batch = {Request::Read(-1, 0, buf)};
  EXPECT_EQ(b->Run(batch).code(), EBADF);
  EXPECT_FALSE(b->broken());  // failed requests do not break the ring
  batch = {Request::Read(ro.get(), 0, buf)};
  EXPECT_TRUE(b->Run(batch).ok());
}

// More requests than the ring holds: several rounds, one submission each.
TEST_P(UringBatchTest, LargeBatchBeyondTheRing) {
  auto b = Make(4, GetParam());
  ASSERT_NE(b, nullptr);
  constexpr std::size_t kFiles = 3, kPieces = 333, kPiece = 512;
  std::vector<std::vector<std::byte>> contents;
  std::vector<std::unique_ptr<Fd>> fds;
  for (std::size_t f = 0; f < kFiles; ++f) {
    contents.push_back(Pattern(kPieces * kPiece, static_cast<unsigned>(f + 10)));
    WriteFile(dir_.File("big" + std::to_string(f)), contents.back());
    fds.push_back(std::make_unique<Fd>(dir_.File("big" + std::to_string(f)), O_RDONLY));
  }
  // Pieces in a shuffled order, into one destination.
  std::vector<std::byte> dest(kFiles * kPieces * kPiece);
  std::vector<Request> reads;
  for (std::size_t f = 0; f < kFiles; ++f) {
    for (std::size_t i = 0; i < kPieces; ++i) {
      std::size_t piece = (i * 7) % kPieces;
      reads.push_back(
          Request::Read(fds[f]->get(), piece * kPiece,
                        std::span(dest).subspan((f * kPieces + piece) * kPiece, kPiece)));
    }
  }
  Status s = b->Run(reads);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (std::size_t f = 0; f < kFiles; ++f) {
    EXPECT_TRUE(std::equal(contents[f].begin(), contents[f].end(),
                           dest.begin() + static_cast<std::ptrdiff_t>(f * kPieces * kPiece)))
        << "file " << f;
  }
  if (b->uses_io_uring()) {
    // The ring is kept full and refilled as completions arrive: at least one submission per ring
    // of requests, at most one per request.
    EXPECT_GE(b->submissions(), (reads.size() + b->entries() - 1) / b->entries());
    EXPECT_LE(b->submissions(), reads.size());
    // A batch that fits in the ring is one submission.
    const std::uint64_t before = b->submissions();
    std::vector<Request> few(reads.begin(), reads.begin() + b->entries());
    ASSERT_TRUE(b->Run(few).ok());
    EXPECT_EQ(b->submissions(), before + 1);
  } else {
    EXPECT_EQ(b->submissions(), 0u);
  }
}

// More iovecs than one system call takes (IOV_MAX = 1024): continued like a short transfer.
TEST_P(UringBatchTest, MoreIovecsThanTheKernelTakesAtOnce) {
  auto b = Make(8, GetParam());
  ASSERT_NE(b, nullptr);
  constexpr std::size_t kIov = 3000, kLen = 16;
  const auto data = Pattern(kIov * kLen, 5);
  Fd fd(dir_.File("iov"), O_RDWR | O_CREAT);
  std::vector<iovec> out(kIov);
  for (std::size_t i = 0; i < kIov; ++i) {
    out[i] = {const_cast<std::byte*>(data.data()) + i * kLen, kLen};
  }
  std::vector<Request> w = {Request{Request::Op::kWrite, fd.get(), 4096, nullptr, 0, out}};
  Status s = b->Run(w);
  ASSERT_TRUE(s.ok()) << s.ToString();

  std::vector<std::byte> back(data.size());
  std::vector<iovec> in(kIov);
  for (std::size_t i = 0; i < kIov; ++i) in[i] = {back.data() + i * kLen, kLen};
  std::vector<Request> r = {Request{Request::Op::kRead, fd.get(), 4096, nullptr, 0, in}};
  s = b->Run(r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(back, data);
  // The caller's iovecs are untouched.
  EXPECT_EQ(in[0].iov_base, back.data());
  EXPECT_EQ(in[kIov - 1].iov_len, kLen);
}

INSTANTIATE_TEST_SUITE_P(Modes, UringBatchTest, ::testing::Values(Mode::kAuto, Mode::kSync),
                         [](const auto& info) {
                           return info.param == Mode::kSync ? std::string("Sync")
                                                            : std::string("Auto");
                         });

TEST(UringBatch, UringModeGivesARingOrSaysWhy) {
  auto b = UringBatch::Create(8, Mode::kUring);
  if (b.ok()) {
    EXPECT_TRUE((*b)->uses_io_uring());
  } else {
    EXPECT_EQ(b.status().message().rfind("io_uring setup failed: ", 0), 0u)
        << b.status().ToString();
  }
  auto sync = UringBatch::Create(0, Mode::kSync);  // 0 entries means 1
  ASSERT_TRUE(sync.ok());
  EXPECT_EQ((*sync)->entries(), 1u);
}

}  // namespace
}  // namespace ec
