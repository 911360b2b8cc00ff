// ObjectStore: objects in collections on one block device, metadata in RocksDB.
//
//   collection "pg.1"            object "shard.3"
//        |                            |  Onode (RocksDB): size, attrs, logical block ->
//        +-- objects by name          |  (device block, crc32c)
//                                     v
//   device: [superblock][ data blocks of 4 KiB ............................................. ]
//
// Write path (BlueStore's order): Apply stages the transaction's new blocks in memory (reading,
// and verifying, the old contents of partially written blocks), writes them to newly allocated
// free blocks in one submission, flushes the device, then commits one synchronous RocksDB
// WriteBatch holding every changed Onode and the changed allocator bitmap segments. Only then do
// the blocks that the transaction replaced become free for later transactions. A crash before the
// commit leaves the old objects intact (the new blocks are still free space); after it, the new.
//
// Deferred writes: when a durable transaction's new blocks total at most
// StoreOptions::prefer_deferred_size bytes, their contents travel inside the metadata batch (a
// RocksDB key per transaction) instead of being flushed to the device first, so the transaction
// costs one sync. Right after the commit the blocks are written to the device (still to newly
// allocated space); the record is deleted once a later device flush has made them durable. At
// mount every remaining record is replayed: a block is rewritten only where the metadata still
// says that block holds exactly these bytes (same crc32c), so a record that outlived its blocks'
// reuse never overwrites newer data.
//
// Integrity: every block read is checked against its crc32c; a mismatch fails the read with
// Status::DataLoss naming the object and the byte offset of the block, and no bytes are returned.
// At mount the persisted allocator bitmap is compared with one rebuilt from all Onodes.
//
// Thread safety: all methods may be called concurrently. One reader-writer lock: Apply and Fsck
// run alone, reads run concurrently with each other and never observe a half-applied
// transaction. There is no group commit yet: concurrent Apply calls each pay their own syncs.
#pragma once

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "ec/buffer.h"
#include "ec/status.h"
#include "osd/store/allocator.h"
#include "osd/store/device.h"
#include "osd/store/onode.h"
#include "osd/store/superblock.h"
#include "osd/store/transaction.h"

namespace rocksdb {
class DB;
}

namespace ec::store {

struct StoreOptions {
  // The data device: a block device or a regular file. Ignored when `device` is set.
  std::string device_path;
  // Directory of the RocksDB metadata database.
  std::string db_path;
  // Mkfs only: size of the device file to create when device_path does not exist (0: the file
  // must exist).
  std::uint64_t device_size = 0;
  IoBackend backend = IoBackend::kUring;
  // Mkfs only: overwrite a device or database that already holds a store or other data.
  bool force = false;
  // When false, Apply neither flushes the device nor syncs RocksDB: an acknowledged transaction
  // may be lost in a crash (never half-applied: the commit still follows the data write). For
  // benchmarks that measure the cost of durability; the default is durable.
  bool durable = true;
  // Largest transaction (in bytes of new 4 KiB blocks) whose data is committed through the
  // RocksDB WAL as a deferred write; 0 disables deferred writes. Ceph:
  // bluestore_prefer_deferred_size.
  std::uint64_t prefer_deferred_size = 64 * 1024;
  // Use this device instead of opening device_path (tests pass a FaultDevice). Shared: the store
  // keeps it until it is destroyed.
  std::shared_ptr<BlockDevice> device;
};

// A byte range of an object.
struct Extent {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

struct ObjectInfo {
  std::uint64_t size = 0;
  std::uint64_t allocated_bytes = 0;  // bytes of device blocks holding the object's data
};

struct FsckReport {
  std::vector<std::string> errors;  // one line per problem, naming object and offset or block
  std::uint64_t objects = 0;
  std::uint64_t blocks_referenced = 0;
  std::uint64_t blocks_checked = 0;  // deep fsck: blocks whose crc32c was verified
  bool ok() const { return errors.empty(); }
};

class ObjectStore {
 public:
  // Creates an empty store: writes the superblock to block 0 and a new metadata database.
  // Errors: those of OpenFileDevice (missing device, too small, ...); EEXIST when the device
  // already holds an ecstore superblock, or block 0 holds other data (a foreign device), or the
  // database exists, unless options.force; EIO/other errnos from the device or RocksDB.
  static Status Mkfs(const StoreOptions& options);

  // Opens a store made by Mkfs. Errors: ENOENT for a missing device or database; EINVAL "not an
  // ecstore device" for a device without our superblock; EINVAL "foreign device" when the device's
  // uuid differs from the database's; ENOSPC when the device shrank; EUCLEAN when the persisted
  // allocator disagrees with the objects' metadata; DataLoss for corrupt metadata.
  static Result<std::unique_ptr<ObjectStore>> Open(const StoreOptions& options);

  ~ObjectStore();
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // Applies every op of `t` atomically and durably: on OK every change is on stable storage (unless
  // StoreOptions::durable is false); on an error none is visible, now or after a crash. A deferred
  // transaction is acknowledged once committed: if the device write that follows the commit
  // fails, Apply still returns OK (the data is in the WAL and is replayed at the next mount) and
  // later reads or transactions report the device error. Errors:
  // those listed in Transaction, EINVAL for a bad name or an offset past 2^48, ENOSPC when the
  // device is full, DataLoss when a block that must be read back (partial block write, truncate)
  // fails its checksum, device and RocksDB errors (after which the store should be closed: the
  // device may have failed).
  Status Apply(const Transaction& t);

  // Reads the extents of one object, all device reads in one submission, each 4 KiB block at most
  // once however many extents touch it. Returns one buffer per extent, in order; an extent
  // reaching past the object's size is cut at the size (a shorter or empty buffer). Errors: ENOENT
  // for a missing object; DataLoss "crc32c mismatch in object C/N at offset X" (no bytes);
  // device errors.
  Result<std::vector<Buffer>> Read(const std::string& coll, const std::string& name,
                                   std::span<const Extent> extents);

  // Errors: ENOENT for a missing object (GetAttr: ENODATA for a missing attribute).
  Result<ObjectInfo> Stat(const std::string& coll, const std::string& name);
  Result<std::string> GetAttr(const std::string& coll, const std::string& name,
                              const std::string& key);
  // Object names of a collection in byte order. Errors: ENOENT for a missing collection.
  Result<std::vector<std::string>> List(const std::string& coll);
  Result<std::vector<std::string>> ListCollections();

  // Checks the metadata against the allocator: every referenced block in range, referenced once
  // and marked used; every used block referenced (no leak); Onodes decodable. With deep, also reads
  // every block and verifies its crc32c, naming each bad block's object and offset. Problems are
  // reported in FsckReport::errors; the Status is an error only when fsck itself cannot run.
  Result<FsckReport> Fsck(bool deep);

  std::uint64_t free_bytes() const;
  std::uint64_t device_bytes() const;
  const Superblock& superblock() const { return superblock_; }

 private:
  class TxBuilder;
  ObjectStore(std::shared_ptr<BlockDevice> device, std::unique_ptr<rocksdb::DB> db, Superblock sb);

  // Reads the listed logical blocks of an Onode (all mapped) in one submission, verifies them and
  // returns them in the order given.
  Result<std::vector<AlignedBuffer>> ReadBlocks(const std::string& coll, const std::string& name,
                                                const Onode& onode,
                                                std::span<const std::uint64_t> lblocks);
  Result<Onode> LoadOnode(const std::string& coll, const std::string& name);
  // Rebuilds a bitmap from every Onode; problems go to `errors` (may be null to stop at the first).
  Result<Allocator> RebuildAllocator(std::vector<std::string>* errors, std::uint64_t* objects);
  Result<Allocator> LoadAllocator();
  // Deferred writes (deferred.cc). Replays and deletes every record at mount.
  Status ReplayDeferred();
  // After a device flush: deletes the records whose blocks that flush made durable.
  Status RetireDeferred(bool sync);

  std::shared_ptr<BlockDevice> device_;
  std::unique_ptr<rocksdb::DB> db_;
  Superblock superblock_;
  bool durable_ = true;
  std::uint64_t prefer_deferred_size_ = 0;
  std::uint64_t deferred_seq_ = 0;
  std::vector<std::string> deferred_keys_;  // records written to the device but not yet flushed
  mutable std::shared_mutex mu_;            // unique: Apply; shared: reads
  Allocator alloc_;
};

}  // namespace ec::store
