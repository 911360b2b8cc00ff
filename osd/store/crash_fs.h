// CrashFileSystem: a RocksDB FileSystem wrapper for tests that models a power cut, the database's
// counterpart of FaultDevice. RocksDB's writes reach the wrapped file system at once, but a byte
// is durable only once a successful Sync/Fsync of its file covered it. Crash() plays the cut at
// the moment it is called: every tracked file is truncated on the real file system back to the
// size of its last successful sync (or, when torn, to a seeded random length between that and its
// current size), and from then on the wrapper refuses everything that could change the disk (the
// cut uses FileSystem::Truncate of the wrapped file system, or truncate(2) where that is not
// supported, as in RocksDB 7.8's POSIX one).
//
// What it models:
//   - Files RocksDB creates (NewWritableFile), reopens (ReopenWritableFile) or recycles
//     (ReuseWritableFile) through the wrapper are tracked by path. Synced size: 0 for a new file;
//     for a reopened or reused file not already tracked, its size when opened. Append (both),
//     PositionedAppend (both) and Truncate move the current size; Sync and Fsync make the size seen
//     when they started durable; RangeSync (sync_file_range) does not count, it is no barrier.
//   - RenameFile moves the tracking with the file (RocksDB syncs CURRENT and MANIFEST temp files
//     before renaming them); DeleteFile forgets it.
//   - After Crash() every write, flush, sync (files and directories), file or directory creation,
//     rename, link, truncate and delete fails with IOError("power cut (test)"), so nothing RocksDB
//     does after the cut, including while the DB is being closed, reaches the disk. A writable
//     file still open at the cut is closed when RocksDB closes or drops it, and then truncated
//     again to its post-cut length (a POSIX close trims preallocation with ftruncate, which would
//     otherwise grow the file back). Reads, LockFile and UnlockFile keep working, so the DB can
//     be closed and the files inspected.
// What it does not model:
//   - Directory entries: every file that existed at the cut survives, an unsynced new file as an
//     empty or shortened file, and renames and deletes are durable at once.
//   - Overwrites inside the synced length (only recycled WALs do that; off by default) are kept,
//     as are bytes written through NewRandomRWFile, hard links and the info log (NewLogger),
//     which are not tracked (creating them fails after the cut; an info log open at the cut
//     keeps logging).
//   - Reordering: a torn file keeps a prefix of what was written after its last sync, never a
//     hole; files are cut independently. RocksDB's default WAL recovery (kPointInTimeRecovery)
//     copes with a torn WAL tail by replaying the complete records before it and stopping there.
//     But RocksDB 7.8 takes an older WAL that lost its tail exactly at a record boundary for a
//     complete one and replays the next WAL after it: unsynced batches recovered with a gap.
//     Torn cuts produce that when a random length falls on a boundary and two WALs are alive
//     (crash_fs_test.cc, WalGap*, shows it deterministically).
//
// Use: MakeEnv(fs) gives an Env to put in rocksdb::Options::env; the Env (and the file system it
// shares) must outlive every DB opened with it. Crash(), delete the DB, Restart(), then reopen
// (through the same Env or a plain one). Restart() requires that every file opened before the cut
// has been closed or dropped, i.e. that the DB using it is deleted.
//
// Thread safety: all methods may be called from any thread (RocksDB calls from its background
// threads). Crash() waits for writes and syncs in flight, so each one happens wholly before the
// cut (and counts only if it completed) or fails.
#pragma once

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "common/status.h"

namespace ec::osd::store {

class CrashFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit CrashFileSystem(
      std::shared_ptr<rocksdb::FileSystem> base = rocksdb::FileSystem::Default());
  ~CrashFileSystem() override;

  static const char* kClassName() { return "CrashFileSystem"; }
  const char* Name() const override { return kClassName(); }

  // An Env that does its file I/O through `fs` (and uses the default Env for threads and clock).
  // The Env shares `fs`; it must outlive every DB whose options point at it.
  static std::shared_ptr<rocksdb::Env> MakeEnv(std::shared_ptr<CrashFileSystem> fs);

  // The power cut, now (see the file comment). torn=false: each tracked file goes back to its
  // synced size; torn=true: to a length drawn uniformly in [synced, current] from `seed`. A
  // second Crash() before Restart() does nothing. Truncation errors are kept in crash_status().
  void Crash(std::uint64_t seed, bool torn);
  bool crashed() const { return crashed_.load(std::memory_order_acquire); }
  // Power is back: operations work again, the tracking is forgotten (the files now are what
  // survived and count as durable). Does nothing when not crashed.
  void Restart();
  // The first error met while truncating files for the cut (at Crash() or when a file open at the
  // cut is closed); OK if none. Reset by Restart().
  Status crash_status() const;
  // Sum over tracked files of (current size - synced size): what a cut would take now.
  std::uint64_t unsynced_bytes() const;

  // File system operations (rocksdb::FileSystem contract).
  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& opts,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomRWFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& opts,
                                 std::unique_ptr<rocksdb::FSDirectory>* result,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewLogger(const std::string& fname, const rocksdb::IOOptions& opts,
                              std::shared_ptr<rocksdb::Logger>* result,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& fname, const rocksdb::IOOptions& opts,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Truncate(const std::string& fname, size_t size, const rocksdb::IOOptions& opts,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDir(const std::string& name, const rocksdb::IOOptions& opts,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& name, const rocksdb::IOOptions& opts,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteDir(const std::string& name, const rocksdb::IOOptions& opts,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& target,
                               const rocksdb::IOOptions& opts,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& target,
                             const rocksdb::IOOptions& opts, rocksdb::IODebugContext* dbg) override;

 private:
  struct Tracked;  // durability state of one file, shared by the map and its open wrappers
  class File;      // the writable-file wrapper
  class Dir;       // the directory wrapper (fsync fails after the cut)

  // IOError("power cut (test)").
  static rocksdb::IOStatus PowerCut();
  // Wraps `file` so that it reports to `t`. Requires io_mu_ (shared).
  std::unique_ptr<rocksdb::FSWritableFile> Wrap(std::shared_ptr<Tracked> t,
                                                std::unique_ptr<rocksdb::FSWritableFile> file);
  // The helpers below require mu_. Replace: tracks `path` afresh with the given sizes.
  std::shared_ptr<Tracked> ReplaceLocked(const std::string& path, std::uint64_t synced,
                                         std::uint64_t size);
  // Move: the tracking of `src` (if any) now belongs to `dst`; what `dst` had is forgotten.
  // Returns the moved state or null.
  std::shared_ptr<Tracked> MoveLocked(const std::string& src, const std::string& dst);
  void ForgetLocked(const std::string& path);
  void NoteErrorLocked(const rocksdb::IOStatus& s, const std::string& path);

  // Lock order: io_mu_, then mu_. Every operation that changes the disk holds io_mu_ shared from
  // its crashed_ check to the end of its tracking update; Crash() and Restart() hold it exclusive.
  // So crashed_ and generation_, written only under the exclusive lock, are stable under a shared
  // one.
  mutable std::shared_mutex io_mu_;
  mutable std::mutex mu_;
  std::atomic<bool> crashed_{false};
  std::uint64_t generation_ = 0;  // bumped at each cut: files opened before it stay dead
  std::map<std::string, std::shared_ptr<Tracked>> files_;  // guarded by mu_
  Status crash_status_;                                    // guarded by mu_
};

}  // namespace ec::osd::store
