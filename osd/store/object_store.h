// ObjectStore: objects in collections on one block device, metadata in RocksDB.
//
//   collection "pg.1"            object "shard.3"
//        |                            |  Onode (RocksDB): size, attrs, logical block ->
//        +-- objects by name          |  (device block, crc32c)
//                                     v
//   device: [superblock][ data blocks of 4 KiB ............................................. ]
//
// Write path (BlueStore's order): Apply stages the transaction's new blocks in memory (reading,
// and verifying, the old contents of partially written blocks) and writes them to newly allocated
// free blocks in one submission. The transaction then joins the commit queue. One caller at a
// time is the group's leader: it takes every transaction queued so far, flushes the device once
// (so all their data is durable), and commits one synchronous RocksDB WriteBatch holding every
// changed Onode of the whole group and the changed allocator bitmap segments. Each caller is
// acknowledged after that sync. While a group commits, the next transactions prepare and queue,
// so N concurrent writers share syncs instead of paying N x (flush + sync) (group commit). A group
// closes once it holds 2 MiB of flushed (non-deferred) data, so that large writers queued behind
// it write while it flushes instead of all waiting in one group. Only
// after the commit do the blocks that the group's transactions replaced become free for later
// transactions (and only once no read that might still use them is in progress). A crash before
// the commit leaves the old objects intact (the new blocks are still free space); after it, the
// new.
//
// Deferred writes: when a durable transaction's new blocks total at most
// StoreOptions::prefer_deferred_size bytes, their contents also travel inside the metadata batch
// (a RocksDB key per transaction), so the device flush is not needed before the commit and a
// small transaction costs one sync (the RocksDB WAL's). Its device write still happens before the
// commit (to newly allocated space, not yet durable); the record is deleted by a later group once
// a device flush has made the blocks durable (when a group flushes anyway, its deferred
// transactions write no record at all). At mount every remaining record is replayed: a block is
// rewritten only where the metadata still says that block holds exactly these bytes (same
// crc32c), so a record that outlived its blocks' reuse never overwrites newer data.
//
// Asynchronous commits (ApplyAsync): the transaction is staged and prepared on the caller's thread
// and queued; the store's commit thread ("store-commit") leads a group whenever transactions are
// queued and no Apply caller leads one, and calls each one's callback once its group is durable.
// A server thread can thus start many writes and hear about each when its group commits, instead
// of a thread blocking per write.
//
// Ordering: transactions that touch the same object (or the same collection, when one of them
// creates or removes it) never overlap: the later one waits until the earlier one is committed,
// so it sees its result. Transactions on different objects prepare and commit concurrently.
//
// Integrity: every block read is checked against its crc32c; a mismatch fails the read with
// Status::DataLoss naming the object and the byte offset of the block, and no bytes are returned.
// At mount the persisted allocator bitmap is compared with one rebuilt from all Onodes.
//
// Thread safety: all methods may be called concurrently (but not with the destructor). Reads run
// concurrently with each other and with Apply and never observe a half-applied transaction (a
// group is one atomic RocksDB batch). Fsck waits until no transaction is in flight and holds new
// ones back until it is done.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "ec/buffer.h"
#include "osd/store/allocator.h"
#include "osd/store/device.h"
#include "osd/store/journal.h"
#include "osd/store/onode.h"
#include "osd/store/onode_cache.h"
#include "osd/store/superblock.h"
#include "osd/store/transaction.h"

namespace rocksdb {
class DB;
class Env;
}  // namespace rocksdb

namespace ec::osd::store {

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
  // Mkfs only: size of the commit journal (journal.h), a ring on the device that makes each commit
  // durable with one device flush instead of a RocksDB WAL sync. Rounded down to 4 KiB blocks and
  // capped at 1/8 of the device; 0, or less than 64 KiB after the cap: no journal.
  std::uint64_t journal_size = 32ull << 20;
  // Largest transaction (in bytes of new 4 KiB blocks) treated as small; 0: none. With a journal,
  // a small transaction's data is written in the same submission as its group's commit record
  // (a big one's is written at once, while an earlier group may be flushing). Without a journal,
  // a small transaction is a deferred write through the RocksDB WAL (one RocksDB sync, no device
  // flush). Ceph: bluestore_prefer_deferred_size.
  std::uint64_t prefer_deferred_size = 64 * 1024;
  // Memory for the cache of decoded Onodes that spares reads (and Apply) a RocksDB lookup; 0
  // disables it. Ceph keeps a similar cache (bluestore_cache_meta_ratio).
  std::uint64_t onode_cache_bytes = 64ull << 20;
  // Use this device instead of opening device_path (tests pass a FaultDevice). Shared: the store
  // keeps it until it is destroyed.
  std::shared_ptr<BlockDevice> device;
  // The RocksDB environment for the metadata database (tests pass one whose files lose unsynced
  // writes at a simulated power cut, crash_fs.h); null: RocksDB's default. Shared: the store
  // keeps it until it is destroyed.
  std::shared_ptr<rocksdb::Env> db_env;
  // RocksDB's memtable size (write_buffer_size); 0: RocksDB's default (64 MiB). Tests make it
  // small so that WAL files roll over while they cut power.
  std::size_t db_write_buffer_size = 0;
};

// A byte range of an object.
struct Extent {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

// One object's extents, for ReadMany.
struct ReadRequest {
  std::string coll;
  std::string name;
  std::vector<Extent> extents;
};

// What ReadWithAttr returns: the extents, the object's size and one attribute, all of the same
// committed version of the object.
struct ObjectRead {
  std::vector<Buffer> extents;      // one per extent, exactly as Read returns them
  std::uint64_t size = 0;           // the object's size
  std::optional<std::string> attr;  // the asked attribute; nullopt when the object has none
};

// Where one 4 KiB logical block of an object is on the device (ObjectStore::Locate).
struct BlockLocation {
  std::uint64_t offset = 0;         // the block's first byte in the object
  std::uint64_t device_offset = 0;  // its first byte on the device (file offset of a device file)
  std::uint32_t crc = 0;            // the crc32c the store checks its 4096 bytes against
};

struct ObjectInfo {
  std::uint64_t size = 0;
  std::uint64_t allocated_bytes = 0;  // bytes of device blocks holding the object's data
};

// Counters of the commit pipeline, for tests and benchmarks (monotonic since Open).
struct CommitStats {
  std::uint64_t transactions = 0;     // transactions committed (Apply returned OK)
  std::uint64_t groups = 0;           // RocksDB commit batches written
  std::uint64_t device_flushes = 0;   // device flushes issued by commits (journal records included)
  std::uint64_t deferred = 0;         // transactions whose data went through the RocksDB WAL
  std::uint64_t journal_records = 0;  // groups made durable by a journal record
  std::uint64_t wal_syncs = 0;        // RocksDB WAL syncs the journal needed to reuse its ring
  std::uint64_t journal_replayed = 0;  // journal records applied at mount (Open)
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
  // StoreOptions::durable is false); on an error none is visible, now or after a crash. Concurrent
  // calls are committed in groups (with a journal: one record and one device flush per group;
  // without: a device flush and a RocksDB sync); a call
  // returns once its group is committed. A transaction that fails (bad op, ENOSPC, a failed device
  // write) fails alone, before it joins a group, and leaves nothing behind. A failed device flush
  // or RocksDB commit fails every transaction of that group, and then whether the group is found
  // committed after a remount is not known (all of each transaction or none of it, like a write
  // whose reply was lost); the store takes no more transactions (EIO) until it is remounted, so
  // that nothing is built on blocks such a group may own. Errors: those listed in Transaction,
  // EINVAL for a bad name or an offset past 2^48, ENOSPC when the device is full, DataLoss when a
  // block that must be read back (partial block write, truncate) fails its checksum, device and
  // RocksDB errors, EIO after a failed commit (above).
  Status Apply(const Transaction& t);

  // Apply without waiting for the commit: `done` receives exactly what Apply would return, once.
  // It runs on the thread that commits the transaction's group (the store's commit thread, or a
  // caller of Apply leading that group), or on the calling thread before ApplyAsync returns for a
  // transaction refused before it is queued; it must not block for long (it holds up the
  // group's other completions) and must not call Apply or ApplyAsync (on the commit thread, a
  // transaction that waits for a queued one would wait for itself). The caller blocks only while
  // the transaction waits for a conflicting one to commit (as Apply does) and while the new blocks
  // of a transaction too large to go with the commit record are written. `t` may be destroyed once
  // ApplyAsync returns. Everything ApplyAsync queued has completed before the destructor returns.
  void ApplyAsync(const Transaction& t, std::function<void(Status)> done);

  // Reads the extents of one object, all device reads in one submission, each 4 KiB block at most
  // once however many extents touch it. Returns one buffer per extent, in order; an extent
  // reaching past the object's size is cut at the size (a shorter or empty buffer). Errors: ENOENT
  // for a missing object; DataLoss "crc32c mismatch in object C/N at offset X" (no bytes);
  // device errors.
  Result<std::vector<Buffer>> Read(const std::string& coll, const std::string& name,
                                   std::span<const Extent> extents);

  // Read, plus the object's size and the attribute `attr`, from one lookup of the object's
  // metadata (a shard read needs all three; three calls would look the object up three times and
  // could see three versions). `extents` may be empty: then nothing is read from the device.
  // Errors: those of Read; a missing attribute is not an error (ObjectRead::attr is empty).
  Result<ObjectRead> ReadWithAttr(const std::string& coll, const std::string& name,
                                  std::span<const Extent> extents, const std::string& attr);

  // Reads many objects at once: the device reads of every request go down together (one io_uring
  // submission per 128 device requests), so that one thread keeps many reads in flight as fio does
  // with its queue depth. Returns one result per request, in order, each exactly what Read would
  // return for it: a missing object or a checksum mismatch fails only its own request; a device
  // error fails every request whose blocks were in the failed submission.
  std::vector<Result<std::vector<Buffer>>> ReadMany(std::span<const ReadRequest> requests);

  // Errors: ENOENT for a missing object (GetAttr: ENODATA for a missing attribute).
  Result<ObjectInfo> Stat(const std::string& coll, const std::string& name);
  Result<std::string> GetAttr(const std::string& coll, const std::string& name,
                              const std::string& key);
  // Object names of a collection in byte order. Errors: ENOENT for a missing collection.
  Result<std::vector<std::string>> List(const std::string& coll);
  // One page of that list: the names strictly greater than `after` (in byte order; "" starts at
  // the beginning), at most `max` of them. The next page starts after the last name returned; a
  // page shorter than `max` is the last. Errors: ENOENT for a missing collection; EINVAL for
  // max == 0.
  Result<std::vector<std::string>> List(const std::string& coll, const std::string& after,
                                        std::size_t max);
  Result<std::vector<std::string>> ListCollections();
  // Where the object's data blocks are on the device, in object order (holes have none): for
  // offline tools (`ec-osd --locate`) and the tests that damage one block on purpose. A block
  // another transaction rewrites moves (writes go to new blocks). Errors: ENOENT for a missing
  // object; DataLoss for corrupt metadata.
  Result<std::vector<BlockLocation>> Locate(const std::string& coll, const std::string& name);

  // Checks the metadata against the allocator: every referenced block in range, referenced once
  // and marked used; every used block referenced (no leak); Onodes decodable. With deep, also reads
  // every block and verifies its crc32c, naming each bad block's object and offset. Problems are
  // reported in FsckReport::errors; the Status is an error only when fsck itself cannot run.
  Result<FsckReport> Fsck(bool deep);

  // Free space: blocks neither used by committed objects nor reserved by transactions in flight.
  std::uint64_t free_bytes() const;
  std::uint64_t device_bytes() const;
  CommitStats commit_stats() const;
  const Superblock& superblock() const { return superblock_; }

 private:
  class TxBuilder;
  struct Prepared;
  // What a transaction touches, for ordering conflicting transactions.
  struct Footprint {
    std::set<std::string> objects;      // object keys
    std::set<std::string> colls;        // collections holding objects it touches
    std::set<std::string> coll_owners;  // collections it creates or removes
  };
  ObjectStore(std::shared_ptr<BlockDevice> device, std::unique_ptr<rocksdb::DB> db, Superblock sb);

  // Reads the listed logical blocks of an Onode (all mapped) in one submission, verifies them and
  // returns them in the order given.
  Result<std::vector<AlignedBuffer>> ReadBlocks(const std::string& coll, const std::string& name,
                                                const Onode& onode,
                                                std::span<const std::uint64_t> lblocks);
  // The committed Onode (through the cache). Errors: ENOENT, DataLoss, RocksDB errors.
  Result<std::shared_ptr<const Onode>> LoadOnode(const std::string& coll, const std::string& name);
  // A read of one request: the Onode, the distinct blocks needed and their buffers.
  struct ReadPlan;
  Status PlanRead(const std::string& coll, const std::string& name, std::span<const Extent> extents,
                  ReadPlan& plan, std::vector<IoRequest>& reqs);
  Result<std::vector<Buffer>> FinishRead(const std::string& coll, const std::string& name,
                                         std::span<const Extent> extents, ReadPlan& plan);
  // A bitmap with block 0 and the journal's ring used.
  static Allocator EmptyAllocator(const Superblock& sb);
  // Rebuilds a bitmap from every Onode; problems go to `errors` (may be null to stop at the first).
  Result<Allocator> RebuildAllocator(std::vector<std::string>* errors, std::uint64_t* objects);
  Result<Allocator> LoadAllocator();
  // Deferred writes (deferred.cc). Replays and deletes every record at mount.
  Status ReplayDeferred();
  // After a device flush: deletes the records whose blocks that flush made durable.
  Status RetireDeferred(bool sync);

  // Commit pipeline (tx_apply.cc). Under mu_: whether `f` overlaps a transaction in flight, and
  // the bookkeeping of the transactions in flight.
  bool Conflicts(const Footprint& f) const;
  void Reserve(const Footprint& f);
  void Unreserve(const Footprint& f);
  // Reserves t's footprint (after the conflicting transactions in flight) and stages and
  // prepares it into `s`; on an error nothing stays reserved.
  struct Staged;
  Status Stage(const Transaction& t, Staged& s);
  // Queues a prepared transaction and returns its commit result (leading groups as needed).
  Status CommitQueued(Prepared& p);
  // Under mu_ (released meanwhile), with no group committing: commits what is queued as one group
  // and completes its transactions (ApplyAsync's callbacks run without mu_).
  void LeadGroup(std::unique_lock<std::mutex>& lock);
  // The commit thread: leads a group whenever transactions are queued and nobody leads.
  void CommitLoop();
  // The leader's work for one group: flush, one RocksDB batch, then the grace period for reads.
  // Sets each transaction's result. Runs without mu_, one leader at a time.
  void CommitGroup(const std::vector<Prepared*>& group);
  // Reads register here so that blocks freed by a commit are reused only after every read that
  // may have loaded the old metadata is over (a grace period, as in RCU).
  std::uint64_t EnterRead();
  void ExitRead(std::uint64_t epoch);
  void WaitForReaders();
  class ReadGuard;

  std::shared_ptr<BlockDevice> device_;
  std::shared_ptr<rocksdb::Env> db_env_;  // declared before db_: outlives it
  std::unique_ptr<rocksdb::DB> db_;
  Superblock superblock_;
  bool durable_ = true;
  std::uint64_t prefer_deferred_size_ = 0;
  std::unique_ptr<OnodeCache> onodes_;
  std::unique_ptr<Journal> journal_;  // null: no journal on this device; used by the leader only

  // Guarded by mu_.
  mutable std::mutex mu_;
  std::condition_variable cv_;         // conflicts cleared, group committed, pipeline idle
  std::condition_variable commit_cv_;  // the commit thread: transactions queued, or its stop
  Allocator alloc_;  // blocks used by committed objects or reserved by transactions
  std::set<std::string> busy_objects_;
  std::map<std::string, int> busy_colls_;  // collection -> transactions in flight touching it
  std::set<std::string> owned_colls_;      // collections being created or removed
  std::deque<Prepared*> queue_;            // prepared, waiting for a leader
  bool committing_ = false;                // a leader is at work
  std::size_t in_flight_ = 0;              // transactions between reservation and result
  int quiesce_ = 0;                        // Fsck calls waiting: admit no new transactions
  Status failed_;                          // a group's commit failed: refuse transactions
  bool stop_committer_ = false;            // the destructor: the commit thread drains and ends
  CommitStats stats_;

  // Owned by the leader of the moment (and by Open, the destructor and Fsck when nothing is in
  // flight).
  Allocator committed_;  // exactly the persisted bitmap
  std::uint64_t deferred_seq_ = 0;
  std::vector<std::string> deferred_keys_;  // records whose blocks are written but not flushed

  // Read grace periods: readers count themselves in the current epoch's slot.
  std::mutex read_mu_;
  std::condition_variable read_cv_;
  std::uint64_t read_epoch_ = 0;
  std::uint64_t readers_[2] = {0, 0};

  std::thread committer_;  // CommitLoop; started by the constructor, joined by the destructor
};

}  // namespace ec::osd::store
