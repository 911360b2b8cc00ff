#include "recovery/file_shard_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "common/uring_batch.h"

namespace ec::recovery {

namespace {

Status ErrnoStatus(int error) {
  return Status::Error(error, std::strerror(error));
}

// UringBatch's error for a read names only the offset; this source's contract names the file
// (added by the caller) and, for a short file, the byte the extent needed.
Status ReadError(const Status& s, const UringBatch::Request& read) {
  if (s.code() == ENODATA) {
    return Status::Error(ENODATA, "the file ends before byte " +
                                      std::to_string(read.offset + read.length) + " (truncated?)");
  }
  return ErrnoStatus(s.code());
}

std::unique_ptr<UringBatch> MakeRunner(unsigned depth, UringBatch::Mode mode) {
  auto r = UringBatch::Create(depth, mode);
  // kAuto and kSync never fail (uring_batch.h); the pread path is the last resort regardless.
  if (!r.ok()) r = UringBatch::Create(depth, UringBatch::Mode::kSync);
  return std::move(r).value();
}

}  // namespace

FileShardSource::FileShardSource(std::string fname, unsigned depth, bool use_io_uring)
    : fname_(std::move(fname)),
      depth_(std::max(1u, depth)),
      runner_(
          MakeRunner(depth_, use_io_uring ? UringBatch::Mode::kAuto : UringBatch::Mode::kSync)) {}

FileShardSource::~FileShardSource() {
  for (const auto& [shard, fd] : fds_) ::close(fd);
}

std::string FileShardSource::ShardPath(const std::string& fname, int id) {
  return fname + "." + std::to_string(id);
}

bool FileShardSource::uses_io_uring() const {
  std::lock_guard lock(mutex_);
  return runner_->uses_io_uring();
}

Status FileShardSource::Open(int shard, int* fd) {
  auto it = fds_.find(shard);
  if (it != fds_.end()) {
    *fd = it->second;
    return Status::OK();
  }
  const int opened = ::open(ShardPath(fname_, shard).c_str(), O_RDONLY | O_CLOEXEC);
  if (opened < 0) return ErrnoStatus(errno);
  fds_[shard] = opened;
  *fd = opened;
  return Status::OK();
}

void FileShardSource::ReadAsync(std::span<const ShardReadRequest> requests, Completion done) {
  std::lock_guard lock(mutex_);
  auto fail = [&](std::size_t i, const Status& s) {
    done(i, s.WithPrefix("failed to read " + ShardPath(fname_, requests[i].shard)));
  };
  // Requests still to read; a failure completes its request and the rest run again.
  std::vector<std::size_t> pending;
  std::vector<int> fds(requests.size(), -1);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    std::uint64_t total = 0;
    for (const Extent& e : requests[i].extents) total += e.length;
    if (total != requests[i].destination.size()) {
      fail(i, Status::Invalid("the destination does not match the extents"));
      continue;
    }
    Status s = Open(requests[i].shard, &fds[i]);
    if (!s.ok()) {
      fail(i, s);
      continue;
    }
    pending.push_back(i);
  }
  std::vector<UringBatch::Request> batch;
  std::vector<std::size_t> owner;  // read -> request index
  bool ring_failed = false;        // in this call
  while (!pending.empty()) {
    batch.clear();
    owner.clear();
    for (std::size_t i : pending) {
      std::byte* dest = requests[i].destination.data();
      for (const Extent& e : requests[i].extents) {
        batch.push_back(UringBatch::Request::Read(fds[i], e.offset, {dest, e.length}));
        owner.push_back(i);
        dest += e.length;
      }
    }
    std::size_t failed = batch.size();
    Status s = runner_->Run(batch, &failed);
    if (s.ok()) break;
    if (runner_->broken()) {
      // The ring itself failed (reads may still be in flight on it): it is destroyed, never
      // reused, and the same reads run again. A fresh ring gets one chance per call; the pread
      // path, which cannot break, takes over after a second failure so that the loop ends.
      runner_ = MakeRunner(depth_, ring_failed ? UringBatch::Mode::kSync : UringBatch::Mode::kAuto);
      ring_failed = true;
      continue;
    }
    if (failed >= batch.size()) {  // not a request's error (never, by UringBatch's contract)
      for (std::size_t i : pending) fail(i, s);
      return;
    }
    const std::size_t bad = owner[failed];
    fail(bad, ReadError(s, batch[failed]));
    pending.erase(std::find(pending.begin(), pending.end(), bad));
  }
  for (std::size_t i : pending) done(i, Status::OK());
}

}  // namespace ec::recovery
