// FileShardSource: the shards of one object as local files FNAME.<id> (ec-tool's layout, as in
// Ceph's ceph-erasure-code-tool: file i holds chunk i of every stripe). Each ReadAsync reads the
// extents of all its requests with as many reads in flight as the io_uring ring holds (one
// submission per round), or with pread one after another when io_uring is unavailable (an old
// kernel, a seccomp policy) or not wanted.
//
// ReadAsync completes every request before it returns, on the calling thread. Per request:
//   OK, or "failed to read PATH: <strerror>" (the errno of open or read, e.g. ENOENT for a
//   missing file), or ENODATA "failed to read PATH: the file ends before byte N (truncated?)".
// A failing request does not fail the others.
//
// Files are opened on first use and stay open until the source is destroyed.
// Thread safety: calls are serialised internally (one ring per source).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "recovery/shard_source.h"

namespace ec::recovery {

class FileShardSource final : public ShardSource {
 public:
  // `depth`: reads in flight at most. `use_io_uring` false forces the pread path.
  explicit FileShardSource(std::string fname, unsigned depth = 128, bool use_io_uring = true);
  ~FileShardSource() override;
  FileShardSource(const FileShardSource&) = delete;
  FileShardSource& operator=(const FileShardSource&) = delete;

  // FNAME.<id>
  static std::string ShardPath(const std::string& fname, int id);

  void ReadAsync(std::span<const ShardReadRequest> requests, Completion done) override;
  bool uses_io_uring() const;

  class Reads;  // the io_uring batch (file_shard_source.cc)

 private:
  Status Open(int shard, int* fd);

  std::string fname_;
  std::unique_ptr<Reads> reads_;
  std::map<int, int> fds_;
  std::mutex mutex_;
};

}  // namespace ec::recovery
