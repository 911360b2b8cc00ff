#include "osd/store/journal.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/codec.h"
#include "common/crc32c.h"
#include "osd/store/aligned_buffer.h"
#include "osd/store/rocks_util.h"

namespace ec::osd::store {
namespace {

constexpr char kMagic[8] = {'E', 'C', 'J', 'R', 'N', 'L', '\0', '\1'};
constexpr std::size_t kHeaderSize = 48;
constexpr std::size_t kHeaderCrcOffset = 44;
constexpr std::size_t kBlockEntrySize = 12;  // device block u64, crc u32

std::uint64_t BlocksFor(std::uint64_t bytes) {
  return (bytes + kBlockSize - 1) / kBlockSize;
}

std::string EncodePos(std::uint64_t seq, std::uint64_t next) {
  std::string v;
  Encoder w(v);
  w.U64(seq);
  w.U64(next);
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
  const std::span<std::byte> record = buf.span();
  Encoder body_out(record.subspan(kHeaderSize, body));
  for (const WrittenBlock& b : data) {
    body_out.U64(b.device_block);
    body_out.U32(b.crc);
  }
  body_out.Raw(std::string_view(rep.data(), rep.size()));
  Encoder header(record.first(kHeaderSize));
  header.Raw(std::string_view(kMagic, sizeof(kMagic)));
  header.Raw(std::as_bytes(std::span(sb_.uuid)));
  header.U64(next_seq_);
  header.U32(static_cast<std::uint32_t>(rep.size()));
  header.U32(static_cast<std::uint32_t>(data.size()));
  header.U32(Crc32c(record.subspan(kHeaderSize, body)));
  header.U32(Crc32c(record.first(kHeaderCrcOffset)));

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
  Decoder header(first.span().first(kHeaderSize));
  std::span<const std::byte> magic, uuid;
  std::uint64_t rseq = 0;
  std::uint32_t batch_bytes = 0, nblocks = 0, body_crc = 0, header_crc = 0;
  // kHeaderSize bytes of a whole block: these reads cannot run out.
  header.RawView(sizeof(kMagic), &magic, "magic") &&
      header.RawView(sb_.uuid.size(), &uuid, "uuid") && header.U64(&rseq, "seq") &&
      header.U32(&batch_bytes, "batch bytes") && header.U32(&nblocks, "data blocks") &&
      header.U32(&body_crc, "body crc") && header.U32(&header_crc, "header crc");
  if (!header.ok()) return header.status().WithPrefix("journal record");
  if (std::memcmp(magic.data(), kMagic, sizeof(kMagic)) != 0 ||
      std::memcmp(uuid.data(), sb_.uuid.data(), sb_.uuid.size()) != 0 ||
      header_crc != Crc32c(first.span().first(kHeaderCrcOffset))) {
    return false;
  }
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
  const std::span<const std::byte> body_bytes = rec.span().subspan(kHeaderSize, body);
  if (body_crc != Crc32c(body_bytes)) return false;

  Decoder in(body_bytes);
  const std::uint64_t device_blocks = sb_.device_size / kBlockSize;
  out.data.resize(nblocks);
  for (WrittenBlock& b : out.data) {
    // `body` was sized from these counts: the reads cannot run out.
    if (!in.U64(&b.device_block, "data block") || !in.U32(&b.crc, "data block crc")) {
      return in.status().WithPrefix("journal record " + std::to_string(seq));
    }
    if (b.device_block == 0 || b.device_block >= device_blocks) {
      return Status::DataLoss("journal record " + std::to_string(seq) + " names device block " +
                              std::to_string(b.device_block) + " outside the device");
    }
  }
  std::span<const std::byte> batch;
  if (!in.RawView(batch_bytes, &batch, "batch")) {
    return in.status().WithPrefix("journal record " + std::to_string(seq));
  }
  out.batch.assign(reinterpret_cast<const char*>(batch.data()), batch.size());
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
    Decoder pos(v);
    if (!pos.U64(&seq, "seq") || !pos.U64(&at, "next block") || !pos.AtEnd()) {
      return Status::DataLoss("corrupt journal checkpoint in metadata");
    }
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

}  // namespace ec::osd::store
