#include "osd/store/crash_fs.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <random>
#include <utility>

namespace ec::osd::store {

using rocksdb::FileOptions;
using rocksdb::FSDirectory;
using rocksdb::FSWritableFile;
using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;

namespace {

// Cuts a file on the real file system. RocksDB 7.8's POSIX FileSystem does not implement
// FileSystem::Truncate, so when the target says NotSupported, truncate(2) does it.
IOStatus TruncatePath(rocksdb::FileSystem* fs, const std::string& path, std::uint64_t len) {
  IOStatus s = fs->Truncate(path, len, IOOptions(), nullptr);
  if (!s.IsNotSupported()) return s;
  if (::truncate(path.c_str(), static_cast<off_t>(len)) != 0) {
    return IOStatus::IOError("truncate " + path, std::strerror(errno));
  }
  return IOStatus::OK();
}

}  // namespace

struct CrashFileSystem::Tracked {
  std::string path;  // empty once the file is deleted, replaced, or forgotten at Restart()
  std::uint64_t synced = 0;
  std::uint64_t size = 0;
  std::optional<std::uint64_t> cut_len;  // the length the cut left, once crashed
};

// Every method that may change the disk holds the file system's io_mu_ shared from its check to
// the end of its bookkeeping, so a cut never falls between a write and its record. RocksDB never
// calls Close() concurrently with other methods of the same file, so closed_ needs no lock.
class CrashFileSystem::File final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  File(CrashFileSystem* fs, std::shared_ptr<Tracked> t, std::uint64_t generation,
       std::unique_ptr<FSWritableFile> file)
      : FSWritableFileOwnerWrapper(std::move(file)),
        fs_(fs),
        t_(std::move(t)),
        generation_(generation) {}

  ~File() override {
    // Close the wrapped file here rather than in its own destructor, under the lock: a close
    // that races with a cut, or follows it, must be trimmed back afterwards.
    std::shared_lock io(fs_->io_mu_);
    if (closed_) return;
    if (Dead()) {
      CloseAfterCut();
    } else {
      target()->Close(IOOptions(), nullptr).PermitUncheckedError();
      closed_ = true;
    }
  }

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    IOStatus s = target()->Append(data, o, dbg);
    if (s.ok()) Appended(data.size());
    return s;
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo& v,
                  IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    IOStatus s = target()->Append(data, o, v, dbg);
    if (s.ok()) Appended(data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, std::uint64_t offset, const IOOptions& o,
                            IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    IOStatus s = target()->PositionedAppend(data, offset, o, dbg);
    if (s.ok()) WroteUpTo(offset + data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, std::uint64_t offset, const IOOptions& o,
                            const rocksdb::DataVerificationInfo& v, IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    IOStatus s = target()->PositionedAppend(data, offset, o, v, dbg);
    if (s.ok()) WroteUpTo(offset + data.size());
    return s;
  }
  IOStatus Truncate(std::uint64_t size, const IOOptions& o, IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    IOStatus s = target()->Truncate(size, o, dbg);
    if (s.ok()) {
      std::lock_guard l(fs_->mu_);
      t_->size = size;
      // Bytes cut from the synced part cannot come back: the model only ever shortens files.
      t_->synced = std::min(t_->synced, size);
    }
    return s;
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    return target()->Flush(o, dbg);
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override { return DoSync(false, o, dbg); }
  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override { return DoSync(true, o, dbg); }
  // sync_file_range starts write-back but is no durability barrier (no metadata, no device cache
  // flush): passed through, never counted.
  IOStatus RangeSync(std::uint64_t offset, std::uint64_t nbytes, const IOOptions& o,
                     IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    return target()->RangeSync(offset, nbytes, o, dbg);
  }
  IOStatus Allocate(std::uint64_t offset, std::uint64_t len, const IOOptions& o,
                    IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    return target()->Allocate(offset, len, o, dbg);
  }
  void PrepareWrite(size_t offset, size_t len, const IOOptions& o, IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return;
    target()->PrepareWrite(offset, len, o, dbg);
  }
  IOStatus Close(const IOOptions& o, IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (closed_) return IOStatus::OK();
    if (Dead()) {
      CloseAfterCut();
      return PowerCut();
    }
    IOStatus s = target()->Close(o, dbg);
    closed_ = true;
    return s;
  }

 private:
  // Requires io_mu_ (shared): crashed_ and generation_ only change under the exclusive lock.
  bool Dead() const { return fs_->crashed() || generation_ != fs_->generation_; }

  IOStatus DoSync(bool full, const IOOptions& o, IODebugContext* dbg) {
    std::shared_lock io(fs_->io_mu_);
    if (Dead()) return PowerCut();
    // What is durable is what had been written when the sync started; an append racing with it
    // (a thread-safe Sync) may or may not be covered, so it is not counted.
    std::uint64_t covered;
    {
      std::lock_guard l(fs_->mu_);
      covered = t_->size;
    }
    IOStatus s = full ? target()->Fsync(o, dbg) : target()->Sync(o, dbg);
    if (s.ok()) {
      std::lock_guard l(fs_->mu_);
      t_->synced = std::min(std::max(t_->synced, covered), t_->size);
    }
    return s;
  }

  void Appended(std::uint64_t n) {
    std::lock_guard l(fs_->mu_);
    t_->size += n;
  }
  void WroteUpTo(std::uint64_t end) {
    std::lock_guard l(fs_->mu_);
    t_->size = std::max(t_->size, end);
  }

  // Requires io_mu_ (shared) and Dead(). Releases the descriptor, then undoes whatever closing
  // did to the length (POSIX trims preallocated space with an ftruncate to the length it wrote,
  // which would regrow a file the cut shortened).
  void CloseAfterCut() {
    if (closed_) return;
    closed_ = true;
    target()->Close(IOOptions(), nullptr).PermitUncheckedError();
    std::lock_guard l(fs_->mu_);
    if (!t_->cut_len || t_->path.empty()) return;
    IOStatus s = TruncatePath(fs_->target(), t_->path, *t_->cut_len);
    fs_->NoteErrorLocked(s, t_->path);
  }

  CrashFileSystem* fs_;
  std::shared_ptr<Tracked> t_;
  std::uint64_t generation_;
  bool closed_ = false;
};

class CrashFileSystem::Dir final : public rocksdb::FSDirectoryWrapper {
 public:
  Dir(CrashFileSystem* fs, std::unique_ptr<FSDirectory> dir)
      : FSDirectoryWrapper(std::move(dir)), fs_(fs) {}

  IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
    std::shared_lock io(fs_->io_mu_);
    if (fs_->crashed()) return PowerCut();
    return FSDirectoryWrapper::Fsync(o, dbg);
  }
  IOStatus FsyncWithDirOptions(const IOOptions& o, IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& d) override {
    std::shared_lock io(fs_->io_mu_);
    if (fs_->crashed()) return PowerCut();
    return FSDirectoryWrapper::FsyncWithDirOptions(o, dbg, d);
  }

 private:
  CrashFileSystem* fs_;
};

CrashFileSystem::CrashFileSystem(std::shared_ptr<rocksdb::FileSystem> base)
    : FileSystemWrapper(base) {}

CrashFileSystem::~CrashFileSystem() = default;

std::shared_ptr<rocksdb::Env> CrashFileSystem::MakeEnv(std::shared_ptr<CrashFileSystem> fs) {
  return std::shared_ptr<rocksdb::Env>(rocksdb::NewCompositeEnv(std::move(fs)));
}

IOStatus CrashFileSystem::PowerCut() {
  return IOStatus::IOError("power cut (test)");
}

void CrashFileSystem::Crash(std::uint64_t seed, bool torn) {
  std::unique_lock io(io_mu_);
  if (crashed()) return;
  std::lock_guard l(mu_);
  std::mt19937_64 rng(seed);
  for (auto& [path, t] : files_) {
    std::uint64_t len = std::min(t->synced, t->size);
    if (torn && t->size > len) len += rng() % (t->size - len + 1);
    // Never lengthen a file that something outside the wrapper already shortened.
    std::uint64_t actual = 0;
    IOStatus s = target()->GetFileSize(path, IOOptions(), &actual, nullptr);
    if (s.ok() && actual <= len) {
      t->cut_len = actual;
      continue;
    }
    t->cut_len = len;
    NoteErrorLocked(TruncatePath(target(), path, len), path);
  }
  ++generation_;
  crashed_.store(true, std::memory_order_release);
}

void CrashFileSystem::Restart() {
  std::unique_lock io(io_mu_);
  if (!crashed()) return;
  std::lock_guard l(mu_);
  for (auto& [path, t] : files_) t->path.clear();
  files_.clear();
  crash_status_ = Status::OK();
  crashed_.store(false, std::memory_order_release);
}

Status CrashFileSystem::crash_status() const {
  std::lock_guard l(mu_);
  return crash_status_;
}

std::uint64_t CrashFileSystem::unsynced_bytes() const {
  std::lock_guard l(mu_);
  std::uint64_t n = 0;
  for (const auto& [path, t] : files_) n += t->size - std::min(t->synced, t->size);
  return n;
}

std::unique_ptr<FSWritableFile> CrashFileSystem::Wrap(std::shared_ptr<Tracked> t,
                                                      std::unique_ptr<FSWritableFile> file) {
  return std::make_unique<File>(this, std::move(t), generation_, std::move(file));
}

std::shared_ptr<CrashFileSystem::Tracked> CrashFileSystem::ReplaceLocked(const std::string& path,
                                                                         std::uint64_t synced,
                                                                         std::uint64_t size) {
  ForgetLocked(path);
  auto t = std::make_shared<Tracked>();
  t->path = path;
  t->synced = synced;
  t->size = size;
  files_[path] = t;
  return t;
}

std::shared_ptr<CrashFileSystem::Tracked> CrashFileSystem::MoveLocked(const std::string& src,
                                                                      const std::string& dst) {
  if (src == dst) {
    auto it = files_.find(src);
    return it == files_.end() ? nullptr : it->second;
  }
  ForgetLocked(dst);
  auto it = files_.find(src);
  if (it == files_.end()) return nullptr;
  std::shared_ptr<Tracked> t = std::move(it->second);
  files_.erase(it);
  t->path = dst;
  files_[dst] = t;
  return t;
}

void CrashFileSystem::ForgetLocked(const std::string& path) {
  auto it = files_.find(path);
  if (it == files_.end()) return;
  // A writable file still open on the old inode must not trim whatever now has this name.
  it->second->path.clear();
  files_.erase(it);
}

void CrashFileSystem::NoteErrorLocked(const IOStatus& s, const std::string& path) {
  if (s.ok() || !crash_status_.ok()) return;
  crash_status_ = Status::IOError("crash_fs: truncating " + path + ": " + s.ToString());
}

IOStatus CrashFileSystem::NewWritableFile(const std::string& fname, const FileOptions& opts,
                                          std::unique_ptr<FSWritableFile>* result,
                                          IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  std::unique_ptr<FSWritableFile> file;
  IOStatus s = target()->NewWritableFile(fname, opts, &file, dbg);
  if (!s.ok()) return s;
  std::shared_ptr<Tracked> t;
  {
    std::lock_guard l(mu_);
    t = ReplaceLocked(fname, 0, 0);
  }
  std::unique_ptr<FSWritableFile> wrapped = Wrap(std::move(t), std::move(file));
  // Outside the lock: replacing a previous *result would run a File destructor, which locks.
  io.unlock();
  *result = std::move(wrapped);
  return s;
}

IOStatus CrashFileSystem::ReopenWritableFile(const std::string& fname, const FileOptions& opts,
                                             std::unique_ptr<FSWritableFile>* result,
                                             IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  // A file not known yet counts as durable up to its length at opening (it was written before
  // the wrapper could see it); a missing one is created empty.
  std::uint64_t size = 0;
  if (!target()->GetFileSize(fname, opts.io_options, &size, dbg).ok()) size = 0;
  std::unique_ptr<FSWritableFile> file;
  IOStatus s = target()->ReopenWritableFile(fname, opts, &file, dbg);
  if (!s.ok()) return s;
  std::shared_ptr<Tracked> t;
  {
    std::lock_guard l(mu_);
    auto it = files_.find(fname);
    t = it != files_.end() ? it->second : ReplaceLocked(fname, size, size);
  }
  std::unique_ptr<FSWritableFile> wrapped = Wrap(std::move(t), std::move(file));
  // Outside the lock: replacing a previous *result would run a File destructor, which locks.
  io.unlock();
  *result = std::move(wrapped);
  return s;
}

IOStatus CrashFileSystem::ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                            const FileOptions& opts,
                                            std::unique_ptr<FSWritableFile>* result,
                                            IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  std::uint64_t size = 0;
  if (!target()->GetFileSize(old_fname, opts.io_options, &size, dbg).ok()) size = 0;
  std::unique_ptr<FSWritableFile> file;
  IOStatus s = target()->ReuseWritableFile(fname, old_fname, opts, &file, dbg);
  if (!s.ok()) return s;
  std::shared_ptr<Tracked> t;
  {
    std::lock_guard l(mu_);
    t = MoveLocked(old_fname, fname);
    if (!t) t = ReplaceLocked(fname, size, size);
  }
  std::unique_ptr<FSWritableFile> wrapped = Wrap(std::move(t), std::move(file));
  // Outside the lock: replacing a previous *result would run a File destructor, which locks.
  io.unlock();
  *result = std::move(wrapped);
  return s;
}

IOStatus CrashFileSystem::NewRandomRWFile(const std::string& fname, const FileOptions& opts,
                                          std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                          IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  return target()->NewRandomRWFile(fname, opts, result, dbg);
}

IOStatus CrashFileSystem::NewDirectory(const std::string& name, const IOOptions& opts,
                                       std::unique_ptr<FSDirectory>* result, IODebugContext* dbg) {
  std::unique_ptr<FSDirectory> dir;
  IOStatus s = target()->NewDirectory(name, opts, &dir, dbg);
  if (!s.ok()) return s;
  *result = std::make_unique<Dir>(this, std::move(dir));
  return s;
}

IOStatus CrashFileSystem::NewLogger(const std::string& fname, const IOOptions& opts,
                                    std::shared_ptr<rocksdb::Logger>* result, IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  return target()->NewLogger(fname, opts, result, dbg);
}

IOStatus CrashFileSystem::DeleteFile(const std::string& fname, const IOOptions& opts,
                                     IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  IOStatus s = target()->DeleteFile(fname, opts, dbg);
  if (s.ok()) {
    std::lock_guard l(mu_);
    ForgetLocked(fname);
  }
  return s;
}

IOStatus CrashFileSystem::Truncate(const std::string& fname, size_t size, const IOOptions& opts,
                                   IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  IOStatus s = target()->Truncate(fname, size, opts, dbg);
  if (s.ok()) {
    std::lock_guard l(mu_);
    auto it = files_.find(fname);
    if (it != files_.end()) {
      it->second->size = size;
      it->second->synced = std::min<std::uint64_t>(it->second->synced, size);
    }
  }
  return s;
}

IOStatus CrashFileSystem::CreateDir(const std::string& name, const IOOptions& opts,
                                    IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  return target()->CreateDir(name, opts, dbg);
}

IOStatus CrashFileSystem::CreateDirIfMissing(const std::string& name, const IOOptions& opts,
                                             IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  return target()->CreateDirIfMissing(name, opts, dbg);
}

IOStatus CrashFileSystem::DeleteDir(const std::string& name, const IOOptions& opts,
                                    IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  return target()->DeleteDir(name, opts, dbg);
}

IOStatus CrashFileSystem::RenameFile(const std::string& src, const std::string& target_name,
                                     const IOOptions& opts, IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  IOStatus s = target()->RenameFile(src, target_name, opts, dbg);
  if (s.ok()) {
    std::lock_guard l(mu_);
    MoveLocked(src, target_name);
  }
  return s;
}

IOStatus CrashFileSystem::LinkFile(const std::string& src, const std::string& target_name,
                                   const IOOptions& opts, IODebugContext* dbg) {
  std::shared_lock io(io_mu_);
  if (crashed()) return PowerCut();
  return target()->LinkFile(src, target_name, opts, dbg);
}

}  // namespace ec::osd::store
