#include "osd/store/journal.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "osd/store/aligned_buffer.h"
#include "osd/store/checksum.h"
#include "osd/store/rocks_util.h"

namespace ec::store {
namespace {

constexpr char kMagic[8] = {'E', 'C', 'J', 'R', 'N', 'L', '\0', '\1'};
constexpr std::size_t kHeaderSize = 48;
constexpr std::size_t kHeaderCrcOffset = 44;
constexpr std::size_t kBlockEntrySize = 12;  // device block u64, crc u32

std::uint64_t BlocksFor(std::uint64_t bytes) {
  return (bytes + kBlockSize - 1) / kBlockSize;
}

std::string EncodePos(std::uint64_t seq, std::uint64_t next) {
  std::string v(16, '\0');
  std::memcpy(v.data(), &seq, 8);
  std::memcpy(v.data() + 8, &next, 8);
  return v;
}

}  // namespace

Journal::Journal(BlockDevice& device, rocksdb::DB& db, const Superblock& sb)
    : device_(device),
      db_(db),
      sb_(sb),
      ring_first_(sb.journal_block),
      ring_blocks_(sb.journal_blocks) {}

Status Journal::AddCheckpoint(rocksdb::WriteBatch& batch) const {
  return FromRocks(batch.Put(std::string(kPosKey), EncodePos(next_seq_ - 1, head_)),
                   "journal checkpoint");
}

Status Journal::Checkpoint() {
  rocksdb::WriteBatch batch;
  EC_RETURN_IF_ERROR(AddCheckpoint(batch));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  EC_RETURN_IF_ERROR(FromRocks(db_.Write(wo, &batch), "write journal checkpoint"));
  ++stats_.wal_syncs;
  unsynced_blocks_ = 0;
  return Status::OK();
}

Status Journal::Commit(const rocksdb::WriteBatch& batch, std::span<const WrittenBlock> data,
                       std::span<const IoRequest> writes) {
  std::uint64_t body = data.size() * kBlockEntrySize + batch.GetDataSize();
  std::uint64_t blocks = BlocksFor(kHeaderSize + body);
  if (blocks > max_record_blocks() || body > UINT32_MAX) {
    return Status::Error(
        EFBIG, "commit record of " + std::to_string(blocks) + " blocks exceeds half the journal");
  }
  std::uint64_t at = head_;
  std::uint64_t skipped = 0;
  if (at + blocks > ring_blocks_) {
    skipped = ring_blocks_ - at;
    at = 0;
  }
  if (unsynced_blocks_ + skipped + blocks > ring_blocks_) {
    // The record would overwrite records whose batches RocksDB may hold only in its page cache.
    EC_RETURN_IF_ERROR(Checkpoint());
  }

  const rocksdb::Slice rep(batch.Data());
  AlignedBuffer buf(blocks * kBlockSize);  // zeros: the padding
  auto* p = reinterpret_cast<unsigned char*>(buf.data());
  std::uint32_t batch_bytes = static_cast<std::uint32_t>(rep.size());
  std::uint32_t nblocks = static_cast<std::uint32_t>(data.size());
  unsigned char* q = p + kHeaderSize;
  for (const WrittenBlock& b : data) {
    std::memcpy(q, &b.device_block, 8);
    std::memcpy(q + 8, &b.crc, 4);
    q += kBlockEntrySize;
  }
  std::memcpy(q, rep.data(), rep.size());
  std::uint32_t body_crc = Crc32c(std::span<const std::byte>(
      buf.data() + kHeaderSize, data.size() * kBlockEntrySize + rep.size()));
  std::memcpy(p, kMagic, 8);
  std::memcpy(p + 8, sb_.uuid.data(), 16);
  std::memcpy(p + 24, &next_seq_, 8);
  std::memcpy(p + 32, &batch_bytes, 4);
  std::memcpy(p + 36, &nblocks, 4);
  std::memcpy(p + 40, &body_crc, 4);
  std::uint32_t header_crc = Crc32c(std::span<const std::byte>(buf.data(), kHeaderCrcOffset));
  std::memcpy(p + kHeaderCrcOffset, &header_crc, 4);

  std::vector<IoRequest> reqs(writes.begin(), writes.end());
  reqs.push_back(IoRequest{
      IoRequest::Op::kWrite, (ring_first_ + at) * kBlockSize, {iovec{buf.data(), buf.size()}}});
  EC_RETURN_IF_ERROR(device_.Submit(reqs));
  EC_RETURN_IF_ERROR(device_.Flush());
  head_ = at + blocks;
  ++next_seq_;
  unsynced_blocks_ += skipped + blocks;
  ++stats_.records;
  return Status::OK();
}

Result<bool> Journal::ReadRecord(std::uint64_t at, std::uint64_t seq, Found& out) {
  if (at >= ring_blocks_) return false;
  AlignedBuffer first(kBlockSize);
  IoRequest r{
      IoRequest::Op::kRead, (ring_first_ + at) * kBlockSize, {iovec{first.data(), kBlockSize}}};
  EC_RETURN_IF_ERROR(device_.Submit(std::span<IoRequest>(&r, 1)));
  const auto* p = reinterpret_cast<const unsigned char*>(first.data());
  std::uint32_t header_crc = 0;
  std::memcpy(&header_crc, p + kHeaderCrcOffset, 4);
  if (std::memcmp(p, kMagic, 8) != 0 || std::memcmp(p + 8, sb_.uuid.data(), 16) != 0 ||
      header_crc != Crc32c(std::span<const std::byte>(first.data(), kHeaderCrcOffset))) {
    return false;
  }
  std::uint64_t rseq = 0;
  std::uint32_t batch_bytes = 0, nblocks = 0, body_crc = 0;
  std::memcpy(&rseq, p + 24, 8);
  std::memcpy(&batch_bytes, p + 32, 4);
  std::memcpy(&nblocks, p + 36, 4);
  std::memcpy(&body_crc, p + 40, 4);
  if (rseq != seq) return false;
  // Lengths come from the device: bounded by the ring before anything is allocated for them.
  std::uint64_t body = std::uint64_t{nblocks} * kBlockEntrySize + batch_bytes;
  std::uint64_t blocks = BlocksFor(kHeaderSize + body);
  if (blocks > ring_blocks_ - at) return false;

  AlignedBuffer rec(blocks * kBlockSize);
  std::memcpy(rec.data(), first.data(), kBlockSize);
  if (blocks > 1) {
    IoRequest rest{IoRequest::Op::kRead,
                   (ring_first_ + at + 1) * kBlockSize,
                   {iovec{rec.data() + kBlockSize, (blocks - 1) * kBlockSize}}};
    EC_RETURN_IF_ERROR(device_.Submit(std::span<IoRequest>(&rest, 1)));
  }
  if (body_crc != Crc32c(std::span<const std::byte>(rec.data() + kHeaderSize, body))) return false;

  const auto* q = reinterpret_cast<const unsigned char*>(rec.data()) + kHeaderSize;
  const std::uint64_t device_blocks = sb_.device_size / kBlockSize;
  out.data.resize(nblocks);
  for (std::uint32_t i = 0; i < nblocks; ++i) {
    std::memcpy(&out.data[i].device_block, q + std::size_t{i} * kBlockEntrySize, 8);
    std::memcpy(&out.data[i].crc, q + std::size_t{i} * kBlockEntrySize + 8, 4);
    if (out.data[i].device_block == 0 || out.data[i].device_block >= device_blocks) {
      return Status::DataLoss("journal record " + std::to_string(seq) + " names device block " +
                              std::to_string(out.data[i].device_block) + " outside the device");
    }
  }
  out.batch.assign(reinterpret_cast<const char*>(q) + std::uint64_t{nblocks} * kBlockEntrySize,
                   batch_bytes);
  out.blocks = blocks;
  return true;
}

Result<bool> Journal::DataPresent(std::span<const WrittenBlock> data) {
  constexpr std::size_t kChunk = 256;  // blocks read per submission
  for (std::size_t i = 0; i < data.size(); i += kChunk) {
    std::size_t n = std::min(kChunk, data.size() - i);
    AlignedBuffer buf(n * kBlockSize);
    std::vector<IoRequest> reads;
    for (std::size_t j = 0; j < n; ++j) {
      reads.push_back(IoRequest{IoRequest::Op::kRead,
                                data[i + j].device_block * kBlockSize,
                                {iovec{buf.data() + j * kBlockSize, kBlockSize}}});
    }
    EC_RETURN_IF_ERROR(device_.Submit(reads));
    for (std::size_t j = 0; j < n; ++j) {
      if (Crc32c(std::span<const std::byte>(buf.data() + j * kBlockSize, kBlockSize)) !=
          data[i + j].crc) {
        return false;
      }
    }
  }
  return true;
}

Status Journal::Replay() {
  if (ring_blocks_ == 0) return Status::OK();
  std::string v;
  rocksdb::Status rs = db_.Get(rocksdb::ReadOptions(), std::string(kPosKey), &v);
  std::uint64_t seq = 0, at = 0;
  if (!rs.IsNotFound()) {
    EC_RETURN_IF_ERROR(FromRocks(rs, "read journal checkpoint"));
    if (v.size() != 16) return Status::DataLoss("corrupt journal checkpoint in metadata");
    std::memcpy(&seq, v.data(), 8);
    std::memcpy(&at, v.data() + 8, 8);
    if (at > ring_blocks_) return Status::DataLoss("journal checkpoint outside the journal");
  }
  // The chain of records after the checkpoint: at most a ring's worth, kept in memory.
  std::vector<Found> chain;
  for (;;) {
    Found f;
    auto found = ReadRecord(at, seq + chain.size() + 1, f);
    if (!found.ok()) return found.status();
    if (!*found && at != 0) {
      // The writer starts a record at block 0 when it does not fit before the ring's end.
      found = ReadRecord(0, seq + chain.size() + 1, f);
      if (!found.ok()) return found.status();
      if (*found) at = 0;
    }
    if (!*found) break;
    f.start = at;
    at += f.blocks;
    chain.push_back(std::move(f));
    if (chain.size() > ring_blocks_) return Status::DataLoss("journal records loop");
  }
  if (!chain.empty()) {
    auto present = DataPresent(chain.back().data);
    if (!present.ok()) return present.status();
    if (!*present) {
      // Torn commit: the last record reached the device without its data. Not acknowledged; the
      // next record takes its sequence number and its place.
      at = chain.back().start;
      chain.pop_back();
    }
  }
  for (Found& f : chain) {
    rocksdb::WriteBatch batch(std::move(f.batch));
    EC_RETURN_IF_ERROR(
        FromRocks(db_.Write(rocksdb::WriteOptions(), &batch), "replay journal record"));
    ++stats_.replayed;
  }
  // What RocksDB recovered may have come from its WAL in the page cache (after a process crash):
  // make all of it durable, with the new checkpoint, before the ring is reused.
  rocksdb::FlushOptions fo;
  fo.wait = true;
  EC_RETURN_IF_ERROR(FromRocks(db_.Flush(fo), "flush metadata after journal replay"));
  head_ = at;
  next_seq_ = seq + chain.size() + 1;
  return Checkpoint();
}

}  // namespace ec::store
