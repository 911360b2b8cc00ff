// File I/O for ec-tool: reading inputs and shards in large blocks, and writing outputs safely.
//
// Outputs are never written in place: AtomicFile writes to a temporary file in the destination's
// directory and rename()s it over the destination only on Commit(), so a failure (bad input, disk
// full, a signal) never leaves a half-written file where a good one was. An AtomicFile that is
// destroyed without a successful Commit() removes its temporary file.
//
// Error messages name the file and the cause, as Ceph's tool does:
//   "failed to read PATH: <strerror>", "failed to write PATH: <strerror>".
// Thread safety: none; one object per thread.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"

namespace ec::tools::ec_tool {

// A file opened for reading.
class InputFile {
 public:
  InputFile() = default;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  ~InputFile();

  // Opens `path`; a directory is refused (EISDIR). Errors: "failed to read PATH: <strerror>".
  static ec::Result<InputFile> Open(const std::string& path);

  const std::string& path() const { return path_; }
  // Size when opened.
  std::uint64_t size() const { return size_; }
  // Reads the next bytes into `out`, looping over short reads; returns how many bytes were read,
  // which is less than out.size() only at the end of the file.
  ec::Result<std::size_t> Read(std::span<std::byte> out);

 private:
  int fd_ = -1;
  std::string path_;
  std::uint64_t size_ = 0;
};

// A file written to PATH.ec-tool-tmp.<pid>.<n> and renamed to PATH by Commit().
class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&& other) noexcept;
  // Removes the temporary file if Commit() did not succeed.
  ~AtomicFile();

  // Creates the temporary file (mode 0666 & ~umask, like any new file). Errors: "failed to write
  // PATH: <strerror>" (e.g. the directory does not exist or is not writable).
  static ec::Result<AtomicFile> Create(const std::string& path);

  const std::string& path() const { return path_; }
  // Appends `bytes`, looping over short writes.
  ec::Status Write(std::span<const std::byte> bytes);
  // Appends the regions of `iov` in order (a gather write; any number of entries).
  ec::Status WriteGather(std::span<const iovec> iov);
  // Closes the temporary file (after fsync() when `sync`); no more writes. Lets a caller with
  // several files find every write error before it renames any of them.
  ec::Status Close(bool sync = false);
  // Close()s if needed and renames the temporary file to path(). After an error the temporary
  // file is removed and path() is untouched.
  ec::Status Commit(bool sync = false);
  // Removes the temporary file now (no-op after Commit()).
  void Abandon();

 private:
  ec::Status Failed(int error);

  int fd_ = -1;
  std::string path_;
  // Heap-allocated so that its characters stay put when the object moves: the signal cleanup
  // (RemoveTemporaryFilesOnSignal) holds a pointer to them.
  std::unique_ptr<std::string> temp_path_;
};

// Makes SIGINT, SIGTERM, SIGHUP and SIGPIPE remove the temporary files of live AtomicFiles before
// the process dies of the signal (destructors do not run then). Call once, early in main().
void RemoveTemporaryFilesOnSignal();

// Reads a whole file. Errors: "failed to read PATH: <strerror>".
ec::Result<std::vector<std::byte>> ReadWholeFile(const std::string& path);
// Writes a whole file through AtomicFile.
ec::Status WriteWholeFile(const std::string& path, std::span<const std::byte> bytes,
                          bool sync = false);

// Checks the shard files FNAME.<id> of `shards` against each other and against `layout` (the
// profile and stripe unit): each must exist and be a regular file, and all must have one size, a
// non-zero multiple of the chunk size (= the stripe unit). A shorter one was truncated, a longer
// one belongs to another object, a size that is not a multiple was written with another stripe
// unit or profile. Returns the number of stripes. Errors name the file(s).
// What sizes cannot tell: shards written with another profile whose chunks have the same size
// (e.g. isa k=4 m=2 and clay k=4 m=2 d=5, both at stripe unit 4096). Shard files carry no
// header (Ceph's format), so such shards decode to wrong bytes.
ec::Result<std::uint64_t> CheckShardSizes(const std::string& fname, const ec::ShardSet& shards,
                                          const ec::StripeLayout& layout);

}  // namespace ec::tools::ec_tool
