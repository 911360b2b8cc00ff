// Journal: makes a commit group's metadata batch durable with one write and one flush of the data
// device, instead of a synchronous RocksDB write.
//
// Why: RocksDB's WAL is a file that grows with every commit, so each fdatasync of it also commits
// the filesystem's journal (~200 us on ext4 here, against ~50 us to flush a block rewritten in
// place), and RocksDB 7.8 will not recycle WAL files under point-in-time recovery. The journal is
// a ring of blocks on the data device itself, laid out at mkfs, rewritten in place forever.
//
// Protocol (one commit group; the caller is the only committer at a time):
//   1. The group's data blocks are written (not flushed) to free space, or handed to Commit.
//   2. Commit(): the record = the group's RocksDB batch and the device block and crc32c of every
//      data block the group wrote; one write at the ring's head (with the pending data writes, in
//      one submission), then one device flush, which makes data and record durable together.
//   3. The caller writes the batch to RocksDB without sync and acknowledges.
// RocksDB's WAL is synced only when the ring is about to overwrite records RocksDB may not yet hold
// durably: a synchronous write of the checkpoint key kPosKey = (the last record the database holds,
// the ring block after it). A synchronous write makes every earlier batch durable, in every WAL
// file; unsynced batches alone are not enough to trust, because after a power cut RocksDB 7.8 can
// recover a newer WAL's batches without an older WAL's lost tail (a gap; see crash_fs_test.cc).
//
// Replay() at mount therefore starts at the checkpoint and applies again, in order, every record
// after it that the ring still holds: their batches are whole values (Puts and Deletes), so
// applying a sequence again over any mix of its own batches ends in the state after the last one.
// A record counts only if its header, body crc, store uuid and sequence number match. The last
// record found must also find each data block it lists holding the listed crc32c: a crash during
// its flush can persist the record without its data, and such a record (never acknowledged) is
// dropped. Earlier records need no such check: the record after them proves their flush completed
// (and their blocks may since have been freed and reused).
//
// Record layout (starts on a ring block, padded with zeros to whole blocks):
//   0 magic "ECJRNL\0\1" | 8 uuid[16] | 24 seq u64 | 32 batch bytes u32 | 36 data blocks u32 |
//   40 crc32c of the body u32 | 44 crc32c of bytes [0, 44) u32 | 48 body:
//   data blocks x (device block u64, crc32c u32), then the RocksDB batch representation.
// A record that does not fit before the ring's end starts at ring block 0 instead.
//
// Thread safety: none; the store calls Commit from its single commit leader and Replay at mount.
// Ownership: borrows the device and the database, which must outlive it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "osd/store/device.h"
#include "osd/store/superblock.h"

namespace rocksdb {
class DB;
class WriteBatch;
}  // namespace rocksdb

namespace ec::osd::store {

// The device block and crc32c of a 4 KiB data block a commit wrote.
struct WrittenBlock {
  std::uint64_t device_block = 0;
  std::uint32_t crc = 0;
};

struct JournalStats {
  std::uint64_t records = 0;    // records written since Open
  std::uint64_t wal_syncs = 0;  // RocksDB WAL syncs done to free ring space
  std::uint64_t replayed = 0;   // records applied by Replay
};

class Journal {
 public:
  // The RocksDB key of the checkpoint (u64 seq of the last record the database holds durably, u64
  // ring block after it).
  static constexpr std::string_view kPosKey = "J";
  // Largest record Commit takes, in ring blocks: half the ring, so that a record always finds room
  // after one WAL sync.
  std::uint64_t max_record_blocks() const { return ring_blocks_ / 2; }

  Journal(BlockDevice& device, rocksdb::DB& db, const Superblock& sb);

  // Mount: applies again the records after the checkpoint, then makes the database durable and
  // writes a new checkpoint. Errors: device reads, RocksDB errors, DataLoss for a checkpoint that
  // is not 16 bytes or points outside the ring.
  Status Replay();

  // Step 2 of the protocol for `batch` (not changed). `writes`: data writes of the
  // group not done yet, submitted together with the record (their blocks must be among `data`).
  // OK: the record and the listed data are durable; the caller must then apply `batch` to RocksDB
  // (sync not needed). Errors: EFBIG when the record would exceed max_record_blocks() (nothing
  // written, `writes` included: commit another way, with a device flush and a synchronous RocksDB
  // write); device or RocksDB (WAL sync) errors, after which the group is not committed, the
  // position is unchanged, and the record may or may not be on the device (a later record with
  // its sequence number replaces it).
  Status Commit(const rocksdb::WriteBatch& batch, std::span<const WrittenBlock> data,
                std::span<const IoRequest> writes);

  // For a group committed without a record (EFBIG): puts the checkpoint in `batch`, which the
  // caller writes synchronously, then calls MarkDatabaseDurable(). Replay must not go back past it.
  Status AddCheckpoint(rocksdb::WriteBatch& batch) const;
  // The database is durable up to the last record (a synchronous write): all ring space is free.
  void MarkDatabaseDurable() { unsynced_blocks_ = 0; }
  // Writes the checkpoint synchronously: the WAL sync that frees the ring (also at a clean close,
  // so that the next mount has nothing to replay). Errors: RocksDB's.
  Status Checkpoint();

  const JournalStats& stats() const { return stats_; }

 private:
  // One record found by Replay.
  struct Found {
    std::string batch;               // its RocksDB batch representation
    std::vector<WrittenBlock> data;  // the data blocks it lists
    std::uint64_t blocks = 0;        // its length in ring blocks
    std::uint64_t start = 0;         // its first ring block
  };
  // Reads and checks the record at ring block `at` with sequence `seq` (header, uuid, lengths,
  // body crc; not its data blocks). False: no such record there.
  Result<bool> ReadRecord(std::uint64_t at, std::uint64_t seq, Found& out);
  // Whether every listed data block holds its crc32c.
  Result<bool> DataPresent(std::span<const WrittenBlock> data);

  BlockDevice& device_;
  rocksdb::DB& db_;
  Superblock sb_;
  std::uint64_t ring_first_;  // device block of ring block 0
  std::uint64_t ring_blocks_;
  std::uint64_t head_ = 0;      // ring block where the next record goes (before wrapping)
  std::uint64_t next_seq_ = 1;  // sequence number of the next record
  // Ring blocks from the oldest record RocksDB may not hold durably up to head_ (including a
  // skipped tail at a wrap). The next record may not overwrite them.
  std::uint64_t unsynced_blocks_ = 0;
  JournalStats stats_;
};

}  // namespace ec::osd::store
