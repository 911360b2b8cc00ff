// FileShardSource: the shards of one object as local files FNAME.<id> (ec-tool's layout, as in
// Ceph's ceph-erasure-code-tool: file i holds chunk i of every stripe). Each ReadAsync reads the
// extents of all its requests as one ec::UringBatch: as many reads in flight as the io_uring ring
// holds (one submission per round), or pread one after another when io_uring is unavailable (an
// old kernel, a seccomp policy) or not wanted. If the ring itself fails, the reads not yet done run
// again on a fresh ring; a second ring failure in the same call moves the source to pread for good.
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

namespace ec {
class UringBatch;
}  // namespace ec

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
  // True while reads go through io_uring (false: forced off, refused by the kernel, or given up
  // after repeated ring failures).
  bool uses_io_uring() const;

 private:
  Status Open(int shard, int* fd);

  std::string fname_;
  unsigned depth_;
  std::unique_ptr<UringBatch> runner_;
  std::map<int, int> fds_;
  mutable std::mutex mutex_;
};

}  // namespace ec::recovery
