// ObjectStore::Apply: stages a transaction in memory, writes its new blocks to free space, makes
// them durable, then commits the metadata in one synchronous RocksDB batch (see object_store.h).
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "osd/store/checksum.h"
#include "osd/store/object_store.h"
#include "osd/store/onode.h"
#include "osd/store/rocks_util.h"

namespace ec::store {
namespace {

constexpr std::uint64_t kMaxObjectSize = std::uint64_t{1} << 48;
constexpr std::size_t kMaxIovPerRequest = 256;
// Deferred records kept before a flush retires them.
constexpr std::size_t kMaxDeferredRecords = 64;

Status CheckNames(const Transaction::Op& op, bool object_op) {
  if (op.coll.empty() || op.coll.size() > 255 || op.coll.find('\0') != std::string::npos) {
    return Status::Invalid("bad collection name (empty, longer than 255 bytes or with a NUL)");
  }
  if (object_op && (op.name.empty() || op.name.size() > 4096)) {
    return Status::Invalid("bad object name in collection " + op.coll +
                           " (empty or longer than 4096 bytes)");
  }
  return Status::OK();
}

}  // namespace

class ObjectStore::TxBuilder {
 public:
  explicit TxBuilder(ObjectStore& store) : s_(store) {}

  Status Stage(const Transaction::Op& op);
  Status Commit();

 private:
  struct Obj {
    std::string coll, name;
    std::optional<Onode> committed;                 // as in the database before this transaction
    std::optional<Onode> current;                   // after the ops staged so far; nullopt: absent
    std::map<std::uint64_t, AlignedBuffer> staged;  // logical block -> new contents
  };

  Result<bool> CollectionExists(const std::string& coll);
  Result<Obj*> Get(const std::string& coll, const std::string& name);
  // Makes sure the listed logical blocks are staged, loading the mapped ones from the device (one
  // submission) and starting the others as zeros.
  Status StageBlocks(Obj& o, const std::vector<std::uint64_t>& lblocks, bool load_old);
  Status Write(Obj& o, std::uint64_t offset, const Buffer& data);
  Status Truncate(Obj& o, std::uint64_t size);
  Status RemoveCollection(const std::string& coll);
  std::string Label(const Obj& o) const { return o.coll + "/" + o.name; }

  ObjectStore& s_;
  std::map<std::string, Obj> objs_;          // by object key
  std::map<std::string, bool> collections_;  // changed collections: exists afterwards?
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
  Obj o{coll, name, std::nullopt, std::nullopt, {}};
  auto onode = s_.LoadOnode(coll, name);
  if (onode.ok()) {
    o.committed = *onode;
    o.current = std::move(onode).value();
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
      o.staged.emplace(lb, AlignedBuffer(kBlockSize));
    }
  }
  if (to_read.empty()) return Status::OK();
  auto bufs = s_.ReadBlocks(o.coll, o.name, *o.current, to_read);
  if (!bufs.ok()) return bufs.status();
  for (std::size_t i = 0; i < to_read.size(); ++i) {
    o.staged.emplace(to_read[i], std::move((*bufs)[i]));
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
  // Blocks only partly covered keep their other bytes: read them back (verified).
  std::vector<std::uint64_t> partial;
  if (offset % kBlockSize != 0 || end < (first + 1) * kBlockSize) partial.push_back(first);
  if (end % kBlockSize != 0 && last != first) partial.push_back(last);
  EC_RETURN_IF_ERROR(StageBlocks(o, partial, true));
  std::vector<std::uint64_t> whole;
  for (std::uint64_t lb = first; lb <= last; ++lb) whole.push_back(lb);
  EC_RETURN_IF_ERROR(StageBlocks(o, whole, false));
  for (std::uint64_t lb = first; lb <= last; ++lb) {
    std::uint64_t bstart = std::max(offset, lb * kBlockSize);
    std::uint64_t bend = std::min(end, (lb + 1) * kBlockSize);
    std::memcpy(o.staged.at(lb).data() + (bstart - lb * kBlockSize),
                data.data() + (bstart - offset), bend - bstart);
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
        AlignedBuffer& b = o.staged.at(lb);
        std::memset(b.data() + size % kBlockSize, 0, kBlockSize - size % kBlockSize);
      }
    }
  }
  o.current->size = size;
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

Status ObjectStore::TxBuilder::Commit() {
  Allocator& alloc = s_.alloc_;
  // 1. New data to free space, in one submission, then made durable.
  std::uint64_t total = 0;
  for (auto& [key, o] : objs_) {
    if (o.current) total += o.staged.size();
  }
  std::vector<BlockRun> allocated;
  if (total > 0) {
    auto runs = alloc.Allocate(total);
    if (!runs.ok()) return runs.status();
    allocated = std::move(runs).value();
  }
  std::vector<IoRequest> reqs;
  std::size_t run = 0;
  std::uint64_t in_run = 0;
  for (auto& [key, o] : objs_) {
    if (!o.current) continue;
    for (auto& [lb, buf] : o.staged) {
      std::uint64_t db = allocated[run].block + in_run;
      if (++in_run == allocated[run].count) {
        ++run;
        in_run = 0;
      }
      o.current->blocks[lb] = BlockRef{db, Crc32c(buf.span())};
      if (!reqs.empty() && reqs.back().offset + reqs.back().length() == db * kBlockSize &&
          reqs.back().iov.size() < kMaxIovPerRequest) {
        reqs.back().iov.push_back(iovec{buf.data(), kBlockSize});
      } else {
        reqs.push_back(
            IoRequest{IoRequest::Op::kWrite, db * kBlockSize, {iovec{buf.data(), kBlockSize}}});
      }
    }
  }
  auto undo_alloc = [&] {
    for (const BlockRun& r : allocated) alloc.Release(r);
  };
  // Small durable transactions carry their data in the metadata batch (one sync); the device
  // write follows the commit.
  bool deferred = s_.durable_ && !reqs.empty() && total * kBlockSize <= s_.prefer_deferred_size_;
  bool flushed = false;
  if (!reqs.empty() && !deferred) {
    Status st = s_.device_->Submit(reqs);
    if (st.ok() && s_.durable_) {
      st = s_.device_->Flush();
      flushed = st.ok();
    }
    if (!st.ok()) {
      undo_alloc();
      return st;
    }
  }

  // 2. One synchronous metadata batch points the objects at the new blocks.
  rocksdb::WriteBatch batch;
  for (const auto& [coll, exists] : collections_) {
    if (exists) {
      batch.Put(keys::Collection(coll), "");
    } else {
      batch.Delete(keys::Collection(coll));
    }
  }
  std::vector<BlockRun> freed;
  for (const auto& [key, o] : objs_) {
    if (o.current) {
      batch.Put(key, o.current->Encode());
    } else if (o.committed) {
      batch.Delete(key);
    }
    if (!o.committed) continue;
    for (const auto& [lb, ref] : o.committed->blocks) {
      if (o.current) {
        auto it = o.current->blocks.find(lb);
        if (it != o.current->blocks.end() && it->second.device_block == ref.device_block) continue;
      }
      freed.push_back(BlockRun{ref.device_block, 1});
    }
  }
  // Under the store's exclusive lock nobody allocates between here and the commit, so the freed
  // blocks can be cleared now and written as free in the same batch.
  for (const BlockRun& r : freed) alloc.Release(r);
  for (std::uint64_t seg : alloc.TakeDirtySegments()) {
    batch.Put(keys::AllocSegment(seg), alloc.EncodeSegment(seg));
  }
  std::string record_key;
  if (deferred) {
    std::string record;
    auto n = static_cast<std::uint32_t>(total);
    record.append(reinterpret_cast<const char*>(&n), 4);
    for (const IoRequest& r : reqs) {
      std::uint64_t db = r.offset / kBlockSize;
      for (const iovec& v : r.iov) {
        record.append(reinterpret_cast<const char*>(&db), 8);
        record.append(static_cast<const char*>(v.iov_base), kBlockSize);
        ++db;
      }
    }
    record_key = keys::Deferred(s_.deferred_seq_++);
    batch.Put(record_key, record);
  }
  // The flush above made every earlier deferred write durable: their records can go.
  std::vector<std::string> retired;
  if (flushed) {
    retired.swap(s_.deferred_keys_);
    for (const std::string& k : retired) batch.Delete(k);
  }
  rocksdb::WriteOptions wo;
  wo.sync = s_.durable_;
  Status st = FromRocks(s_.db_->Write(wo, &batch), "commit transaction metadata");
  if (!st.ok()) {
    for (const BlockRun& r : freed) alloc.MarkUsed(r);
    undo_alloc();
    s_.deferred_keys_.insert(s_.deferred_keys_.end(), retired.begin(), retired.end());
    return st;
  }
  if (deferred) {
    // Committed: from here on the transaction is acknowledged whatever the device does; a failed
    // write is repaired by the replay at the next mount.
    s_.deferred_keys_.push_back(record_key);
    if (s_.device_->Submit(reqs).ok() && s_.deferred_keys_.size() >= kMaxDeferredRecords &&
        s_.device_->Flush().ok()) {
      (void)s_.RetireDeferred(false);
    }
  }
  return Status::OK();
}

Status ObjectStore::Apply(const Transaction& t) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  TxBuilder tx(*this);
  for (const Transaction::Op& op : t.ops()) EC_RETURN_IF_ERROR(tx.Stage(op));
  return tx.Commit();
}

}  // namespace ec::store
