// ObjectStore::Apply: stages a transaction in memory and writes its new blocks to free space, then
// hands it to the commit pipeline, where a leader commits a whole group of transactions with one
// device flush and one synchronous RocksDB batch (group commit, see object_store.h).
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "common/codec.h"
#include "common/crc32c.h"
#include "osd/store/object_store.h"
#include "osd/store/onode.h"
#include "osd/store/rocks_util.h"

namespace ec::osd::store {
namespace {

constexpr std::uint64_t kMaxObjectSize = std::uint64_t{1} << 48;
constexpr std::size_t kMaxIovPerRequest = 256;
// Deferred records kept before a flush retires them.
constexpr std::size_t kMaxDeferredRecords = 64;
// Direct-write data that closes a commit group (see CommitQueued).
constexpr std::uint64_t kGroupDirectBytes = 2ull << 20;

Status CheckNames(const Transaction::Op& op, bool object_op) {
  if (op.coll.empty() || op.coll.size() > 255 || op.coll.find('\0') != std::string::npos) {
    return Status::Invalid("bad collection name (empty, longer than 255 bytes or with a NUL)");
  }
  if (object_op && (op.name.empty() || op.name.size() > 4096)) {
    return Status::Invalid("bad object name in collection " + op.coll +
                           " (empty or longer than 4096 bytes)");
  }
  if (op.type == Transaction::Op::Type::kRename || op.type == Transaction::Op::Type::kMoveBlocks) {
    if (op.key.empty() || op.key.size() > 4096) {
      return Status::Invalid("bad rename destination in collection " + op.coll +
                             " (empty or longer than 4096 bytes)");
    }
    if (op.key == op.name) {
      return Status::Invalid("rename of " + op.coll + "/" + op.name + " onto itself");
    }
  }
  return Status::OK();
}

}  // namespace

// A transaction between its preparation (blocks allocated and written) and its commit. Lives in
// the Apply call's frame; the leader of its group reads it and sets `result` and `done`.
struct ObjectStore::Prepared {
  Footprint footprint;
  // Metadata changes: key -> new value, or nullopt for a delete.
  std::vector<std::pair<std::string, std::optional<std::string>>> puts;
  std::vector<OnodeCache::Entry> onodes;  // the new Onodes of the objects it changes, for the cache
  std::vector<BlockRun> allocated;        // new blocks (reserved in alloc_)
  std::vector<BlockRun> freed;            // blocks the transaction stops referencing
  std::vector<IoRequest> writes;      // the device writes done, borrowing the TxBuilder's buffers
  std::vector<WrittenBlock> written;  // with a journal: each block written and its crc32c
  bool deferred = false;  // no journal, small: durable through a WAL record without a device flush
  bool write_at_commit = false;  // journal, small: `writes` not done yet, go with the record
  Status result;
  bool done = false;
  // ApplyAsync: called by the leader, without mu_, once the result is set (owns what it
  // borrows and deletes it).
  std::function<void()> finish;
};

class ObjectStore::TxBuilder {
 public:
  explicit TxBuilder(ObjectStore& store) : s_(store) {}

  Status Stage(const Transaction::Op& op);
  // Allocates and writes the new blocks (no flush) and fills `p` with what the commit needs.
  // On an error nothing stays reserved.
  Status Prepare(Prepared& p);

 private:
  struct Obj {
    std::string coll, name;
    std::optional<Onode> committed;  // as in the database before this transaction
    std::optional<Onode> current;    // after the ops staged so far; nullopt: absent
    // Logical block -> its new contents (4 KiB), in memory owned by `slabs`.
    std::map<std::uint64_t, std::byte*> staged;
    std::vector<AlignedBuffer> slabs;  // one per staging step: few allocations for big writes
  };

  Result<bool> CollectionExists(const std::string& coll);
  Result<Obj*> Get(const std::string& coll, const std::string& name);
  // Makes sure the listed logical blocks are staged, loading the mapped ones from the device (one
  // submission) and starting the others as zeros.
  Status StageBlocks(Obj& o, const std::vector<std::uint64_t>& lblocks, bool load_old);
  Status Write(Obj& o, std::uint64_t offset, const Buffer& data);
  Status Truncate(Obj& o, std::uint64_t size);
  Status Rename(const std::string& coll, const std::string& from, const std::string& to);
  Status MoveBlocks(const Transaction::Op& op);
  Status RemoveCollection(const std::string& coll);
  std::string Label(const Obj& o) const { return o.coll + "/" + o.name; }

  ObjectStore& s_;
  std::map<std::string, Obj> objs_;          // by object key
  std::map<std::string, bool> collections_;  // changed collections: exists afterwards?
  bool renamed_ = false;  // a rename was staged: committed blocks may have changed objects
};

Result<bool> ObjectStore::TxBuilder::CollectionExists(const std::string& coll) {
  auto it = collections_.find(coll);
  if (it != collections_.end()) return it->second;
  std::string v;
  rocksdb::Status rs = s_.db_->Get(rocksdb::ReadOptions(), keys::Collection(coll), &v);
  if (rs.IsNotFound()) return false;
  EC_RETURN_IF_ERROR(FromRocks(rs, "read collection " + coll));
  return true;
}

Result<ObjectStore::TxBuilder::Obj*> ObjectStore::TxBuilder::Get(const std::string& coll,
                                                                 const std::string& name) {
  auto exists = CollectionExists(coll);
  if (!exists.ok()) return exists.status();
  if (!*exists) return Status::NotFound("collection " + coll + " not found");
  std::string key = keys::Object(coll, name);
  auto it = objs_.find(key);
  if (it != objs_.end()) return &it->second;
  Obj o{coll, name, std::nullopt, std::nullopt, {}, {}};
  auto onode = s_.LoadOnode(coll, name);
  if (onode.ok()) {
    o.committed = **onode;
    o.current = **onode;
  } else if (onode.status().code() != ENOENT || onode.status().is_data_loss()) {
    return onode.status();
  }
  return &objs_.emplace(key, std::move(o)).first->second;
}

Status ObjectStore::TxBuilder::StageBlocks(Obj& o, const std::vector<std::uint64_t>& lblocks,
                                           bool load_old) {
  std::vector<std::uint64_t> to_read;
  for (std::uint64_t lb : lblocks) {
    if (o.staged.count(lb) != 0) continue;
    if (load_old && o.current->blocks.count(lb) != 0) {
      to_read.push_back(lb);
    } else {
      o.slabs.emplace_back(kBlockSize);  // zeros
      o.staged.emplace(lb, o.slabs.back().data());
    }
  }
  if (to_read.empty()) return Status::OK();
  auto bufs = s_.ReadBlocks(o.coll, o.name, *o.current, to_read);
  if (!bufs.ok()) return bufs.status();
  for (std::size_t i = 0; i < to_read.size(); ++i) {
    o.slabs.push_back(std::move((*bufs)[i]));
    o.staged.emplace(to_read[i], o.slabs.back().data());
  }
  return Status::OK();
}

Status ObjectStore::TxBuilder::Write(Obj& o, std::uint64_t offset, const Buffer& data) {
  std::uint64_t len = data.size();
  if (offset > kMaxObjectSize || len > kMaxObjectSize - offset) {
    return Status::Invalid("write to " + Label(o) + " ends past the largest object size 2^48");
  }
  if (!o.current) o.current = Onode{};
  if (len == 0) return Status::OK();
  std::uint64_t end = offset + len;
  std::uint64_t first = offset / kBlockSize, last = (end - 1) / kBlockSize;
  // Blocks only partly covered keep their other bytes: read them back (verified), or start from
  // zeros. Wholly covered blocks need no initial contents: the copy below fills them.
  std::vector<std::uint64_t> partial;
  if (offset % kBlockSize != 0 || end < (first + 1) * kBlockSize) partial.push_back(first);
  if (end % kBlockSize != 0 && last != first) partial.push_back(last);
  EC_RETURN_IF_ERROR(StageBlocks(o, partial, true));
  std::uint64_t missing = 0;
  for (std::uint64_t lb = first; lb <= last; ++lb) missing += o.staged.count(lb) == 0 ? 1 : 0;
  if (missing > 0) {
    o.slabs.emplace_back(missing * kBlockSize, AlignedBuffer::Uninitialized{});
    std::byte* next = o.slabs.back().data();
    for (std::uint64_t lb = first; lb <= last; ++lb) {
      if (o.staged.emplace(lb, next).second) next += kBlockSize;
    }
  }
  for (std::uint64_t lb = first; lb <= last; ++lb) {
    std::uint64_t bstart = std::max(offset, lb * kBlockSize);
    std::uint64_t bend = std::min(end, (lb + 1) * kBlockSize);
    std::memcpy(o.staged.at(lb) + (bstart - lb * kBlockSize), data.data() + (bstart - offset),
                bend - bstart);
  }
  o.current->size = std::max(o.current->size, end);
  return Status::OK();
}

Status ObjectStore::TxBuilder::Truncate(Obj& o, std::uint64_t size) {
  if (!o.current) return Status::NotFound("object " + Label(o) + " not found");
  if (size > kMaxObjectSize) {
    return Status::Invalid("truncate of " + Label(o) + " past the largest object size 2^48");
  }
  if (size < o.current->size) {
    std::uint64_t keep = (size + kBlockSize - 1) / kBlockSize;
    o.current->blocks.erase(o.current->blocks.lower_bound(keep), o.current->blocks.end());
    o.staged.erase(o.staged.lower_bound(keep), o.staged.end());
    if (size % kBlockSize != 0) {
      std::uint64_t lb = size / kBlockSize;
      if (o.staged.count(lb) != 0 || o.current->blocks.count(lb) != 0) {
        EC_RETURN_IF_ERROR(StageBlocks(o, {lb}, true));
        std::memset(o.staged.at(lb) + size % kBlockSize, 0, kBlockSize - size % kBlockSize);
      }
    }
  }
  o.current->size = size;
  return Status::OK();
}

Status ObjectStore::TxBuilder::Rename(const std::string& coll, const std::string& from,
                                      const std::string& to) {
  auto src_got = Get(coll, from);
  if (!src_got.ok()) return src_got.status();
  Obj& src = **src_got;
  if (!src.current) return Status::NotFound("object " + Label(src) + " not found");
  auto dst_got = Get(coll, to);  // objs_ is a map: `src` stays valid
  if (!dst_got.ok()) return dst_got.status();
  Obj& dst = **dst_got;
  // The Onode moves with its block map, so the committed blocks of `from` live on under `to`
  // (Prepare frees only blocks no current Onode references), and so do the staged blocks: the
  // slabs move as a whole, and the heap memory the staged pointers name stays where it is.
  // The old `to` is dropped; its committed blocks are freed by Prepare.
  renamed_ = true;
  dst.current = std::move(src.current);
  dst.staged = std::move(src.staged);
  dst.slabs = std::move(src.slabs);
  src.current.reset();
  src.staged.clear();
  src.slabs.clear();
  return Status::OK();
}

Status ObjectStore::TxBuilder::MoveBlocks(const Transaction::Op& op) {
  if (op.offset % kBlockSize != 0 || op.length % kBlockSize != 0 || op.offset > kMaxObjectSize ||
      op.length > kMaxObjectSize - op.offset) {
    return Status::Invalid("block move of " + op.coll + "/" + op.name +
                           " not of whole blocks below 2^48");
  }
  auto src_got = Get(op.coll, op.name);
  if (!src_got.ok()) return src_got.status();
  Obj& src = **src_got;
  if (!src.current) return Status::NotFound("object " + Label(src) + " not found");
  auto dst_got = Get(op.coll, op.key);  // objs_ is a map: `src` stays valid
  if (!dst_got.ok()) return dst_got.status();
  Obj& dst = **dst_got;
  if (!dst.current) dst.current = Onode{};
  // Blocks of `src` lie below its size (the Onode's invariant), so the moved ones end at
  // min(end, size), and `to` grows to that at least: no block of it lies wholly past its size.
  const std::uint64_t end = std::min(op.offset + op.length, src.current->size);
  if (end <= op.offset) return Status::OK();
  const std::uint64_t first = op.offset / kBlockSize;
  const std::uint64_t last = (end + kBlockSize - 1) / kBlockSize;  // exclusive
  // A block moves by reference: committed ones keep their device block (Prepare frees only
  // blocks no current Onode references, as after a rename), staged ones their buffer (owned by
  // `src`'s slabs, which live as long as this builder).
  renamed_ = true;
  for (std::uint64_t lb = first; lb < last; ++lb) {
    dst.current->blocks.erase(lb);
    dst.staged.erase(lb);
    if (auto st = src.staged.find(lb); st != src.staged.end()) {
      dst.staged[lb] = st->second;
      src.staged.erase(st);
      src.current->blocks.erase(lb);
    } else if (auto b = src.current->blocks.find(lb); b != src.current->blocks.end()) {
      dst.current->blocks[lb] = b->second;
      src.current->blocks.erase(b);
    }
  }
  dst.current->size = std::max(dst.current->size, end);
  return Status::OK();
}

Status ObjectStore::TxBuilder::RemoveCollection(const std::string& coll) {
  auto exists = CollectionExists(coll);
  if (!exists.ok()) return exists.status();
  if (!*exists) return Status::NotFound("collection " + coll + " not found");
  std::set<std::string> gone;  // objects this transaction removed
  for (const auto& [key, o] : objs_) {
    if (o.coll != coll) continue;
    if (o.current) return Status::Error(ENOTEMPTY, "collection " + coll + " is not empty");
    gone.insert(key);
  }
  std::string prefix = keys::ObjectPrefix(coll);
  std::unique_ptr<rocksdb::Iterator> it(s_.db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    if (gone.count(it->key().ToString()) == 0) {
      return Status::Error(ENOTEMPTY, "collection " + coll + " is not empty");
    }
  }
  EC_RETURN_IF_ERROR(FromRocks(it->status(), "list collection " + coll));
  collections_[coll] = false;
  return Status::OK();
}

Status ObjectStore::TxBuilder::Stage(const Transaction::Op& op) {
  using Type = Transaction::Op::Type;
  bool object_op = op.type != Type::kCreateCollection && op.type != Type::kRemoveCollection;
  EC_RETURN_IF_ERROR(CheckNames(op, object_op));
  if (op.type == Type::kCreateCollection) {
    auto exists = CollectionExists(op.coll);
    if (!exists.ok()) return exists.status();
    if (*exists) return Status::Error(EEXIST, "collection " + op.coll + " already exists");
    collections_[op.coll] = true;
    return Status::OK();
  }
  if (op.type == Type::kRemoveCollection) return RemoveCollection(op.coll);
  if (op.type == Type::kRename) return Rename(op.coll, op.name, op.key);
  if (op.type == Type::kMoveBlocks) return MoveBlocks(op);

  auto got = Get(op.coll, op.name);
  if (!got.ok()) return got.status();
  Obj& o = **got;
  switch (op.type) {
    case Type::kTouch:
      if (!o.current) o.current = Onode{};
      return Status::OK();
    case Type::kWrite:
      return Write(o, op.offset, op.data);
    case Type::kTruncate:
      return Truncate(o, op.offset);
    case Type::kRemove:
      if (!o.current) return Status::NotFound("object " + Label(o) + " not found");
      o.current.reset();
      o.staged.clear();
      return Status::OK();
    case Type::kSetAttr:
      if (!o.current) o.current = Onode{};
      o.current->attrs[op.key] = op.value;
      return Status::OK();
    case Type::kRemoveAttr:
      if (!o.current) return Status::NotFound("object " + Label(o) + " not found");
      if (o.current->attrs.erase(op.key) == 0) {
        return Status::Error(ENODATA, "object " + Label(o) + " has no attribute " + op.key);
      }
      return Status::OK();
    default:
      return Status::Invalid("unknown transaction op");
  }
}

Status ObjectStore::TxBuilder::Prepare(Prepared& p) {
  // 1. New data to free space, in one submission. It is made durable by the group's flush, or
  // through the WAL for a deferred transaction.
  std::uint64_t total = 0;
  for (auto& [key, o] : objs_) {
    if (o.current) total += o.staged.size();
  }
  if (total > 0) {
    std::lock_guard<std::mutex> lock(s_.mu_);
    auto runs = s_.alloc_.Allocate(total);
    (void)s_.alloc_.TakeDirtySegments();  // alloc_ is never persisted; committed_ is
    if (!runs.ok()) return runs.status();
    p.allocated = std::move(runs).value();
  }
  std::vector<IoRequest>& reqs = p.writes;
  std::size_t run = 0;
  std::uint64_t in_run = 0;
  for (auto& [key, o] : objs_) {
    if (!o.current) continue;
    for (auto& [lb, buf] : o.staged) {
      std::uint64_t db = p.allocated[run].block + in_run;
      if (++in_run == p.allocated[run].count) {
        ++run;
        in_run = 0;
      }
      o.current->blocks[lb] = BlockRef{db, Crc32c(std::span<const std::byte>(buf, kBlockSize))};
      if (s_.journal_) p.written.push_back(WrittenBlock{db, o.current->blocks[lb].crc});
      if (!reqs.empty() && reqs.back().offset + reqs.back().length() == db * kBlockSize &&
          reqs.back().iov.size() < kMaxIovPerRequest) {
        // Blocks adjacent on the device and in memory (one slab) make one iovec.
        iovec& v = reqs.back().iov.back();
        if (static_cast<std::byte*>(v.iov_base) + v.iov_len == buf) {
          v.iov_len += kBlockSize;
        } else {
          reqs.back().iov.push_back(iovec{buf, kBlockSize});
        }
      } else {
        reqs.push_back(IoRequest{IoRequest::Op::kWrite, db * kBlockSize, {iovec{buf, kBlockSize}}});
      }
    }
  }
  // With a journal, a small transaction's blocks go down with its group's record, in the same
  // submission (the two writes overlap instead of following each other); a big one writes now, so
  // that its data streams while an earlier group flushes.
  const bool small = !reqs.empty() && total * kBlockSize <= s_.prefer_deferred_size_;
  p.write_at_commit = s_.durable_ && s_.journal_ && small;
  if (!reqs.empty() && !p.write_at_commit) {
    Status st = s_.device_->Submit(reqs);
    if (!st.ok()) {
      // The blocks may hold part of the data: garbage in free space, as after a crash.
      std::lock_guard<std::mutex> lock(s_.mu_);
      for (const BlockRun& r : p.allocated) s_.alloc_.Release(r);
      (void)s_.alloc_.TakeDirtySegments();
      return st;
    }
  }
  p.deferred = s_.durable_ && !s_.journal_ && small;

  // 2. The metadata changes, committed later with the group's batch.
  for (const auto& [coll, exists] : collections_) {
    p.puts.emplace_back(keys::Collection(coll),
                        exists ? std::optional<std::string>(std::string()) : std::nullopt);
  }
  // Freed: the blocks a committed Onode of the transaction references and no current one does.
  // A block still at its place in its object is kept (the common case, one lookup); only a
  // rename moves committed blocks to another object, so only then is the whole transaction's
  // set of current blocks needed.
  std::set<std::uint64_t> kept;
  for (const auto& [key, o] : objs_) {
    if (o.current) {
      p.puts.emplace_back(key, o.current->Encode());
      p.onodes.emplace_back(key, std::make_shared<const Onode>(*o.current));
      if (renamed_) {
        for (const auto& [lb, ref] : o.current->blocks) kept.insert(ref.device_block);
      }
    } else if (o.committed) {
      p.puts.emplace_back(key, std::nullopt);
    }
  }
  for (const auto& [key, o] : objs_) {
    if (!o.committed) continue;
    for (const auto& [lb, ref] : o.committed->blocks) {
      if (o.current) {
        auto it = o.current->blocks.find(lb);
        if (it != o.current->blocks.end() && it->second.device_block == ref.device_block) continue;
      }
      if (renamed_ && kept.count(ref.device_block) != 0) continue;
      p.freed.push_back(BlockRun{ref.device_block, 1});
    }
  }
  return Status::OK();
}

namespace {

// The WAL record of a deferred transaction: u32 count | (u64 device block, 4096 bytes)*.
std::string DeferredRecord(const std::vector<IoRequest>& writes) {
  std::uint32_t n = 0;
  for (const IoRequest& r : writes) n += static_cast<std::uint32_t>(r.length() / kBlockSize);
  std::string record;
  record.reserve(4 + static_cast<std::size_t>(n) * (8 + kBlockSize));
  Encoder w(record);
  w.U32(n);
  for (const IoRequest& r : writes) {
    std::uint64_t db = r.offset / kBlockSize;
    for (const iovec& v : r.iov) {
      for (std::size_t off = 0; off < v.iov_len; off += kBlockSize) {
        w.U64(db);
        w.Raw(std::span<const std::byte>(static_cast<const std::byte*>(v.iov_base) + off,
                                         kBlockSize));
        ++db;
      }
    }
  }
  return record;
}

}  // namespace

void ObjectStore::CommitGroup(const std::vector<Prepared*>& group) {
  // With a journal, the record's flush makes the data and the metadata durable together (see
  // journal.h); the database write that follows needs no sync.
  const bool journaled = durable_ && journal_ != nullptr;
  // Without: one flush makes every transaction's data durable (and every earlier deferred write,
  // whose records can then go); a group of deferred transactions alone needs none.
  bool flush = false;
  if (durable_ && !journaled) {
    flush = deferred_keys_.size() >= kMaxDeferredRecords;
    for (const Prepared* p : group) flush = flush || (!p->writes.empty() && !p->deferred);
  }
  Status st;
  if (flush) st = device_->Flush();
  bool freed_any = false;
  bool wrote = false;
  bool journal_records = false;
  std::vector<std::string> new_records;
  if (st.ok()) {
    rocksdb::WriteBatch batch;
    for (const Prepared* p : group) {
      for (const auto& [key, value] : p->puts) {
        if (value) {
          batch.Put(key, *value);
        } else {
          batch.Delete(key);
        }
      }
      // committed_ follows the metadata exactly. Neither call can fail: alloc_ reserved the new
      // blocks (so they are free here) and the freed ones belong to objects this transaction
      // owned exclusively.
      for (const BlockRun& r : p->allocated) (void)committed_.MarkUsed(r);
      for (const BlockRun& r : p->freed) committed_.Release(r);
      freed_any = freed_any || !p->freed.empty();
      if (p->deferred && !flush) {
        new_records.push_back(keys::Deferred(deferred_seq_++));
        batch.Put(new_records.back(), DeferredRecord(p->writes));
      }
    }
    if (flush) {
      for (const std::string& k : deferred_keys_) batch.Delete(k);
    }
    for (std::uint64_t seg : committed_.TakeDirtySegments()) {
      batch.Put(keys::AllocSegment(seg), committed_.EncodeSegment(seg));
    }
    rocksdb::WriteOptions wo;
    wo.sync = durable_ && !journaled;
    if (journaled) {
      std::vector<WrittenBlock> written;
      std::vector<IoRequest> writes;
      for (const Prepared* p : group) {
        written.insert(written.end(), p->written.begin(), p->written.end());
        if (p->write_at_commit) writes.insert(writes.end(), p->writes.begin(), p->writes.end());
      }
      st = journal_->Commit(batch, written, writes);
      if (st.code() == EFBIG) {
        // Too big for the ring: the data, a flush and a synchronous RocksDB write instead, which
        // carries the journal's checkpoint (replay must not apply older records over it).
        st = writes.empty() ? Status::OK() : device_->Submit(writes);
        if (st.ok()) st = device_->Flush();
        if (st.ok()) st = journal_->AddCheckpoint(batch);
        flush = true;
        wo.sync = true;
      } else if (st.ok()) {
        journal_records = true;
      }
    }
    if (st.ok()) {
      st = FromRocks(db_->Write(wo, &batch), "commit transaction metadata");
      wrote = true;
      if (st.ok() && wo.sync && journaled) journal_->MarkDatabaseDurable();
    }
    if (st.ok()) {
      // Before anyone learns of the commit: no cached Onode may stay older than the database.
      std::vector<std::string> removed;
      std::vector<OnodeCache::Entry> updated;
      for (const Prepared* p : group) {
        for (const auto& [key, value] : p->puts) {
          if (!value) removed.push_back(key);
        }
        updated.insert(updated.end(), p->onodes.begin(), p->onodes.end());
      }
      onodes_->Commit(removed, updated);
      if (flush) deferred_keys_.clear();
      deferred_keys_.insert(deferred_keys_.end(), new_records.begin(), new_records.end());
    } else {
      for (const Prepared* p : group) {
        for (const BlockRun& r : p->allocated) committed_.Release(r);
        for (const BlockRun& r : p->freed) (void)committed_.MarkUsed(r);
      }
      // The segments now match the database again; rewriting them later is harmless.
    }
  }
  // Reads that loaded the old metadata may still be reading the freed blocks: let them finish
  // before anybody can allocate those blocks.
  if (st.ok() && freed_any) WaitForReaders();
  std::lock_guard<std::mutex> lock(mu_);
  if (wrote) ++stats_.groups;
  if (flush || journal_records) ++stats_.device_flushes;
  if (journal_) {
    stats_.journal_records = journal_->stats().records;
    stats_.wal_syncs = journal_->stats().wal_syncs;
  }
  for (Prepared* p : group) p->result = st;
  if (!st.ok() && failed_.ok()) {
    // The group's record or WAL entry may have reached stable storage anyway; its blocks go back
    // to the allocator below, and a later transaction reusing them could end up sharing them with
    // this group once a remount finds it committed.
    failed_ = Status::Error(EIO, "an earlier commit failed (" + st.message() +
                                     "); the store takes no transactions until it is remounted");
  }
}

void ObjectStore::LeadGroup(std::unique_lock<std::mutex>& lock) {
  // Lead one group: what is queued, oldest first, closed once it holds kGroupDirectBytes of direct
  // (flushed) data. Without the cap, D concurrent big writers all wait in one group while the
  // device flushes and nobody writes; with it, the writers of the next group write while this
  // group flushes.
  committing_ = true;
  std::vector<Prepared*> group;
  std::uint64_t direct = 0;
  while (!queue_.empty() && (group.empty() || direct < kGroupDirectBytes)) {
    Prepared* q = queue_.front();
    queue_.pop_front();
    if (!q->deferred) {
      for (const IoRequest& r : q->writes) direct += r.length();
    }
    group.push_back(q);
  }
  lock.unlock();
  CommitGroup(group);
  lock.lock();
  std::vector<Prepared*> finished_async;
  for (Prepared* g : group) {
    const std::vector<BlockRun>& back = g->result.ok() ? g->freed : g->allocated;
    for (const BlockRun& r : back) alloc_.Release(r);
    if (g->result.ok()) {
      ++stats_.transactions;
      if (g->deferred) ++stats_.deferred;
    }
    Unreserve(g->footprint);
    --in_flight_;
    if (g->finish) {
      finished_async.push_back(g);
    } else {
      g->done = true;  // the caller may return (and destroy *g) once we release the lock
    }
  }
  (void)alloc_.TakeDirtySegments();
  committing_ = false;
  cv_.notify_all();
  // The commit thread only when it has work: what queued meanwhile (a waiting Apply may lead it
  // first), or its stop.
  if (!queue_.empty() || stop_committer_) commit_cv_.notify_one();
  if (!finished_async.empty()) {
    // Their callbacks run here, outside the lock (they only hand their results on).
    lock.unlock();
    for (Prepared* g : finished_async) {
      // Moved out first: the callback frees *g.
      std::function<void()> finish = std::move(g->finish);
      finish();
    }
    lock.lock();
  }
}

Status ObjectStore::CommitQueued(Prepared& p) {
  std::unique_lock<std::mutex> lock(mu_);
  queue_.push_back(&p);
  while (!p.done) {
    if (committing_) {
      cv_.wait(lock);
      continue;
    }
    LeadGroup(lock);
  }
  return p.result;
}

void ObjectStore::CommitLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    // Stopping: only once everything ApplyAsync queued has completed.
    commit_cv_.wait(lock, [&] {
      return (!committing_ && !queue_.empty()) || (stop_committer_ && in_flight_ == 0);
    });
    if (!committing_ && !queue_.empty()) {
      LeadGroup(lock);
      continue;
    }
    return;
  }
}

bool ObjectStore::Conflicts(const Footprint& f) const {
  for (const std::string& k : f.objects) {
    if (busy_objects_.count(k) != 0) return true;
  }
  for (const std::string& c : f.colls) {
    if (owned_colls_.count(c) != 0) return true;
  }
  for (const std::string& c : f.coll_owners) {
    if (owned_colls_.count(c) != 0 || busy_colls_.count(c) != 0) return true;
  }
  return false;
}

void ObjectStore::Reserve(const Footprint& f) {
  busy_objects_.insert(f.objects.begin(), f.objects.end());
  for (const std::string& c : f.colls) ++busy_colls_[c];
  owned_colls_.insert(f.coll_owners.begin(), f.coll_owners.end());
}

void ObjectStore::Unreserve(const Footprint& f) {
  for (const std::string& k : f.objects) busy_objects_.erase(k);
  for (const std::string& c : f.colls) {
    auto it = busy_colls_.find(c);
    if (--it->second == 0) busy_colls_.erase(it);
  }
  for (const std::string& c : f.coll_owners) owned_colls_.erase(c);
}

// What Apply and ApplyAsync build before queueing: the footprint reserved, the builder staged and
// prepared (new blocks written unless they go with the commit record).
struct ObjectStore::Staged {
  Prepared p;
  std::unique_ptr<TxBuilder> tx;  // `p.writes` borrow its buffers until the commit
};

Status ObjectStore::Stage(const Transaction& t, Staged& s) {
  Prepared& p = s.p;
  for (const Transaction::Op& op : t.ops()) {
    using Type = Transaction::Op::Type;
    if (op.type == Type::kCreateCollection || op.type == Type::kRemoveCollection) {
      p.footprint.coll_owners.insert(op.coll);
    } else {
      p.footprint.objects.insert(keys::Object(op.coll, op.name));
      if (op.type == Type::kRename || op.type == Type::kMoveBlocks) {
        p.footprint.objects.insert(keys::Object(op.coll, op.key));
      }
      p.footprint.colls.insert(op.coll);
    }
  }
  {
    // A transaction waits for every earlier one it conflicts with to commit, and then sees its
    // result; non-conflicting ones go ahead together.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return quiesce_ == 0 && !Conflicts(p.footprint); });
    if (!failed_.ok()) return failed_;
    Reserve(p.footprint);
    ++in_flight_;
  }
  s.tx = std::make_unique<TxBuilder>(*this);
  Status st;
  for (const Transaction::Op& op : t.ops()) {
    st = s.tx->Stage(op);
    if (!st.ok()) break;
  }
  if (st.ok()) st = s.tx->Prepare(p);
  if (!st.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    Unreserve(p.footprint);
    --in_flight_;
    cv_.notify_all();
  }
  return st;
}

Status ObjectStore::Apply(const Transaction& t) {
  Staged s;
  EC_RETURN_IF_ERROR(Stage(t, s));
  return CommitQueued(s.p);
}

void ObjectStore::ApplyAsync(const Transaction& t, std::function<void(Status)> done) {
  auto s = std::make_unique<Staged>();
  if (Status st = Stage(t, *s); !st.ok()) return done(st);
  Staged* raw = s.release();
  raw->p.finish = [raw, done = std::move(done)]() mutable {
    std::function<void(Status)> callback = std::move(done);
    Status result = std::move(raw->p.result);
    delete raw;  // the builder's buffers go before the caller hears
    callback(std::move(result));
  };
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(&raw->p);
  // The commit thread leads it, unless a group is being committed: its leader wakes the thread
  // once done (or a waiting Apply leads it first).
  if (!committing_) commit_cv_.notify_one();
}

std::uint64_t ObjectStore::EnterRead() {
  std::lock_guard<std::mutex> lock(read_mu_);
  ++readers_[read_epoch_ & 1];
  return read_epoch_;
}

void ObjectStore::ExitRead(std::uint64_t epoch) {
  std::lock_guard<std::mutex> lock(read_mu_);
  if (--readers_[epoch & 1] == 0) read_cv_.notify_all();
}

void ObjectStore::WaitForReaders() {
  // Readers that arrive from now on use the other slot and load the new metadata. The slot being
  // drained cannot hold stragglers of two epochs ago: the previous wait drained them (one leader
  // at a time).
  std::unique_lock<std::mutex> lock(read_mu_);
  std::uint64_t old = read_epoch_++;
  read_cv_.wait(lock, [&] { return readers_[old & 1] == 0; });
}

}  // namespace ec::osd::store
