#include "osd/store/object_store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>

#include "common/codec.h"
#include "common/crc32c.h"
#include "common/thread_name.h"
#include "osd/store/onode.h"
#include "osd/store/rocks_util.h"

namespace ec::osd::store {
namespace {

Result<std::shared_ptr<BlockDevice>> OpenDevice(const StoreOptions& o, std::uint64_t create) {
  if (o.device) return o.device;
  DeviceOptions d;
  d.backend = o.backend;
  d.create_size = create;
  auto dev = OpenFileDevice(o.device_path, d);
  if (!dev.ok()) return dev.status();
  return std::shared_ptr<BlockDevice>(std::move(dev).value());
}

Result<AlignedBuffer> ReadBlock0(BlockDevice& dev) {
  AlignedBuffer buf(kBlockSize);
  IoRequest r{IoRequest::Op::kRead, 0, {iovec{buf.data(), kBlockSize}}};
  EC_RETURN_IF_ERROR(dev.Submit(std::span<IoRequest>(&r, 1)));
  return buf;
}

// The "S" key: uuid[16] | device size u64.
std::string EncodeIdentity(const Superblock& sb) {
  std::string v;
  Encoder w(v);
  w.Raw(std::as_bytes(std::span(sb.uuid)));
  w.U64(sb.device_size);
  return v;
}

std::string ObjectLabel(const std::string& coll, const std::string& name) {
  return coll + "/" + name;
}

constexpr std::uint64_t kMinJournalBlocks = 16;

Status ZeroBlocks(BlockDevice& dev, std::uint64_t first, std::uint64_t count) {
  constexpr std::uint64_t kChunk = 256;  // 1 MiB per write
  AlignedBuffer zeros(kChunk * kBlockSize);
  for (std::uint64_t b = first; b < first + count; b += kChunk) {
    std::uint64_t n = std::min(kChunk, first + count - b);
    IoRequest w{IoRequest::Op::kWrite, b * kBlockSize, {iovec{zeros.data(), n * kBlockSize}}};
    EC_RETURN_IF_ERROR(dev.Submit(std::span<IoRequest>(&w, 1)));
  }
  return Status::OK();
}

}  // namespace

ObjectStore::ObjectStore(std::shared_ptr<BlockDevice> device, std::unique_ptr<rocksdb::DB> db,
                         Superblock sb)
    : device_(std::move(device)),
      db_(std::move(db)),
      superblock_(sb),
      alloc_(sb.device_size / kBlockSize),
      committed_(sb.device_size / kBlockSize) {
  committer_ = std::thread([this] {
    NameCurrentThread("store-commit");
    CommitLoop();
  });
}

ObjectStore::~ObjectStore() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_committer_ = true;
  }
  commit_cv_.notify_all();
  committer_.join();
  // No call may be in progress (the contract). Best effort: records left behind are replayed
  // (harmlessly) at the next mount.
  if (!deferred_keys_.empty() && device_->Flush().ok()) (void)RetireDeferred(true);
  if (journal_ && durable_) (void)journal_->Checkpoint();
}

Status ObjectStore::Mkfs(const StoreOptions& options) {
  auto dev = OpenDevice(options, options.device_size);
  if (!dev.ok()) return dev.status();
  BlockDevice& device = **dev;
  auto block0 = ReadBlock0(device);
  if (!block0.ok()) return block0.status();
  if (!options.force) {
    auto old = Superblock::Decode(block0->span());
    if (old.ok()) {
      return Status::Error(EEXIST, "device already holds ecstore store " + old->UuidString() +
                                       " (use force to overwrite)");
    }
    const auto& b = block0->span();
    if (std::any_of(b.begin(), b.end(), [](std::byte x) { return x != std::byte{0}; })) {
      return Status::Error(EEXIST, "device holds foreign data at block 0 (use force to overwrite)");
    }
  }
  rocksdb::Options dbo;
  if (options.db_env) dbo.env = options.db_env.get();
  if (options.db_write_buffer_size != 0) dbo.write_buffer_size = options.db_write_buffer_size;
  dbo.create_if_missing = true;
  dbo.error_if_exists = !options.force;
  if (options.force) {
    EC_RETURN_IF_ERROR(FromRocks(rocksdb::DestroyDB(options.db_path, dbo), "destroy database"));
  }
  rocksdb::DB* raw = nullptr;
  rocksdb::Status rs = rocksdb::DB::Open(dbo, options.db_path, &raw);
  if (rs.IsInvalidArgument() && !options.force) {
    return Status::Error(EEXIST, "metadata database " + options.db_path +
                                     " already exists (use force to overwrite): " + rs.ToString());
  }
  EC_RETURN_IF_ERROR(FromRocks(rs, "create metadata database " + options.db_path));
  std::unique_ptr<rocksdb::DB> db(raw);

  Superblock sb = Superblock::Generate(device.size());
  std::uint64_t journal_blocks = std::min(options.journal_size, sb.device_size / 8) / kBlockSize;
  if (journal_blocks >= kMinJournalBlocks) {
    sb.journal_block = 1;
    sb.journal_blocks = journal_blocks;
    // Lay the ring out: rewriting blocks in place is what makes its flushes cheap (no filesystem
    // metadata changes under a device file), and no stale record may look valid.
    EC_RETURN_IF_ERROR(ZeroBlocks(device, sb.journal_block, sb.journal_blocks));
  }
  Allocator alloc = EmptyAllocator(sb);
  rocksdb::WriteBatch batch;
  batch.Put(std::string(keys::kIdentity), EncodeIdentity(sb));
  for (std::uint64_t s = 0; s < alloc.num_segments(); ++s) {
    batch.Put(keys::AllocSegment(s), alloc.EncodeSegment(s));
  }
  rocksdb::WriteOptions wo;
  wo.sync = true;
  EC_RETURN_IF_ERROR(FromRocks(db->Write(wo, &batch), "write metadata"));
  // The superblock goes last: a device is only claimed once its database is complete.
  sb.Encode(block0->span());
  IoRequest w{IoRequest::Op::kWrite, 0, {iovec{block0->data(), kBlockSize}}};
  EC_RETURN_IF_ERROR(device.Submit(std::span<IoRequest>(&w, 1)));
  return device.Flush();
}

Result<std::unique_ptr<ObjectStore>> ObjectStore::Open(const StoreOptions& options) {
  auto dev = OpenDevice(options, 0);
  if (!dev.ok()) return dev.status();
  auto block0 = ReadBlock0(**dev);
  if (!block0.ok()) return block0.status();
  auto sb = Superblock::Decode(block0->span());
  if (!sb.ok()) return sb.status().WithPrefix("device " + options.device_path);
  if ((*dev)->size() < sb->device_size) {
    return Status::Error(ENOSPC, "device is " + std::to_string((*dev)->size()) +
                                     " bytes but the store was made on " +
                                     std::to_string(sb->device_size));
  }
  struct stat st {};
  if (::stat(options.db_path.c_str(), &st) != 0) {
    return Status::NotFound("metadata database " + options.db_path + " does not exist");
  }
  rocksdb::Options dbo;
  if (options.db_env) dbo.env = options.db_env.get();
  if (options.db_write_buffer_size != 0) dbo.write_buffer_size = options.db_write_buffer_size;
  dbo.create_if_missing = false;
  rocksdb::DB* raw = nullptr;
  EC_RETURN_IF_ERROR(FromRocks(rocksdb::DB::Open(dbo, options.db_path, &raw),
                               "open metadata database " + options.db_path));
  std::unique_ptr<rocksdb::DB> db(raw);
  std::string ident;
  EC_RETURN_IF_ERROR(
      FromRocks(db->Get(rocksdb::ReadOptions(), std::string(keys::kIdentity), &ident),
                "read store identity"));
  if (ident != EncodeIdentity(*sb)) {
    return Status::Invalid("foreign device: device holds store " + sb->UuidString() +
                           ", which is not the store of metadata database " + options.db_path);
  }
  std::unique_ptr<ObjectStore> store(new ObjectStore(*dev, std::move(db), *sb));
  store->db_env_ = options.db_env;
  store->durable_ = options.durable;
  store->onodes_ = std::make_unique<OnodeCache>(options.onode_cache_bytes);
  store->prefer_deferred_size_ = options.prefer_deferred_size;
  if (sb->journal_blocks > 0) {
    store->journal_ = std::make_unique<Journal>(*store->device_, *store->db_, *sb);
    EC_RETURN_IF_ERROR(store->journal_->Replay());
    store->stats_.journal_replayed = store->journal_->stats().replayed;
  }
  EC_RETURN_IF_ERROR(store->ReplayDeferred());
  auto persisted = store->LoadAllocator();
  if (!persisted.ok()) return persisted.status();
  auto rebuilt = store->RebuildAllocator(nullptr, nullptr);
  if (!rebuilt.ok()) return rebuilt.status();
  auto diff = Allocator::Diff(*persisted, *rebuilt, 1);
  if (!diff.empty()) {
    return Status::Error(EUCLEAN,
                         "allocator state does not match the object metadata at device "
                         "block " +
                             std::to_string(diff[0].block) + " (run fsck)");
  }
  store->committed_ = std::move(persisted).value();
  (void)store->committed_.TakeDirtySegments();
  store->alloc_ = store->committed_;
  return store;
}

Allocator ObjectStore::EmptyAllocator(const Superblock& sb) {
  Allocator a(sb.device_size / kBlockSize);
  if (sb.journal_blocks > 0) (void)a.MarkUsed(BlockRun{sb.journal_block, sb.journal_blocks});
  return a;
}

Result<Allocator> ObjectStore::LoadAllocator() {
  Allocator a(superblock_.device_size / kBlockSize);
  for (std::uint64_t s = 0; s < a.num_segments(); ++s) {
    std::string v;
    EC_RETURN_IF_ERROR(FromRocks(db_->Get(rocksdb::ReadOptions(), keys::AllocSegment(s), &v),
                                 "read allocator segment " + std::to_string(s)));
    EC_RETURN_IF_ERROR(a.DecodeSegment(s, v));
  }
  return a;
}

Result<Allocator> ObjectStore::RebuildAllocator(std::vector<std::string>* errors,
                                                std::uint64_t* objects) {
  Allocator a = EmptyAllocator(superblock_);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  std::string prefix(1, keys::kObjectPrefix);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    std::string key = it->key().ToString().substr(1);
    std::replace(key.begin(), key.end(), '\0', '/');
    if (objects) ++*objects;
    auto onode = Onode::Decode(std::string_view(it->value().data(), it->value().size()));
    if (!onode.ok()) {
      if (!errors) return onode.status().WithPrefix("object " + key);
      errors->push_back("object " + key + ": " + onode.status().message());
      continue;
    }
    for (const BlockRun& r : onode->DeviceRuns()) {
      if (a.MarkUsed(r)) continue;
      std::string msg = "object " + key + ": device blocks [" + std::to_string(r.block) + ", +" +
                        std::to_string(r.count) + ") out of range or referenced twice";
      if (!errors) return Status::DataLoss(msg);
      errors->push_back(msg);
    }
  }
  EC_RETURN_IF_ERROR(FromRocks(it->status(), "scan objects"));
  return a;
}

Result<std::shared_ptr<const Onode>> ObjectStore::LoadOnode(const std::string& coll,
                                                            const std::string& name) {
  std::string key = keys::Object(coll, name);
  std::uint64_t gen = 0;
  if (auto hit = onodes_->Lookup(key, &gen)) return hit;
  std::string v;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key, &v);
  if (s.IsNotFound()) return Status::NotFound("object " + ObjectLabel(coll, name) + " not found");
  EC_RETURN_IF_ERROR(FromRocks(s, "read object " + ObjectLabel(coll, name)));
  auto o = Onode::Decode(v);
  if (!o.ok()) return o.status().WithPrefix("object " + ObjectLabel(coll, name));
  auto onode = std::make_shared<const Onode>(std::move(o).value());
  onodes_->Insert(key, onode, gen);
  return onode;
}

Result<std::vector<AlignedBuffer>> ObjectStore::ReadBlocks(const std::string& coll,
                                                           const std::string& name,
                                                           const Onode& onode,
                                                           std::span<const std::uint64_t> lblocks) {
  std::vector<AlignedBuffer> out;
  out.reserve(lblocks.size());
  std::vector<IoRequest> reqs;
  for (std::uint64_t lb : lblocks) {
    out.emplace_back(kBlockSize);
    std::uint64_t db = onode.blocks.at(lb).device_block;
    if (!reqs.empty()) {
      IoRequest& last = reqs.back();
      if (last.offset + last.length() == db * kBlockSize && last.iov.size() < 256) {
        last.iov.push_back(iovec{out.back().data(), kBlockSize});
        continue;
      }
    }
    reqs.push_back(
        IoRequest{IoRequest::Op::kRead, db * kBlockSize, {iovec{out.back().data(), kBlockSize}}});
  }
  if (!reqs.empty()) EC_RETURN_IF_ERROR(device_->Submit(reqs));
  for (std::size_t i = 0; i < lblocks.size(); ++i) {
    const BlockRef& ref = onode.blocks.at(lblocks[i]);
    if (Crc32c(out[i].span()) != ref.crc) {
      return Status::DataLoss("crc32c mismatch in object " + ObjectLabel(coll, name) +
                              " at offset " + std::to_string(lblocks[i] * kBlockSize) +
                              " (device block " + std::to_string(ref.device_block) + ")");
    }
  }
  return out;
}

struct ObjectStore::ReadPlan {
  std::shared_ptr<const Onode> onode;
  std::vector<std::uint64_t> need;  // distinct mapped logical blocks, in device order
  std::vector<AlignedBuffer> blocks;
};

Status ObjectStore::PlanRead(const std::string& coll, const std::string& name,
                             std::span<const Extent> extents, ReadPlan& plan,
                             std::vector<IoRequest>& reqs) {
  auto onode = LoadOnode(coll, name);
  if (!onode.ok()) return onode.status();
  plan.onode = std::move(onode).value();
  const Onode& o = *plan.onode;
  // The distinct mapped blocks under the extents, in device order for coalescing.
  std::vector<std::uint64_t>& need = plan.need;
  for (const Extent& e : extents) {
    if (e.offset >= o.size || e.length == 0) continue;
    std::uint64_t end = e.offset + std::min(e.length, o.size - e.offset);
    for (std::uint64_t lb = e.offset / kBlockSize; lb * kBlockSize < end; ++lb) {
      if (o.blocks.count(lb) != 0) need.push_back(lb);
    }
  }
  std::sort(need.begin(), need.end(), [&](std::uint64_t a, std::uint64_t b) {
    return o.blocks.at(a).device_block < o.blocks.at(b).device_block;
  });
  need.erase(std::unique(need.begin(), need.end()), need.end());
  plan.blocks.reserve(need.size());
  std::size_t first = reqs.size();
  for (std::uint64_t lb : need) {
    plan.blocks.emplace_back(kBlockSize, AlignedBuffer::Uninitialized{});  // the read fills it
    std::uint64_t db = o.blocks.at(lb).device_block;
    iovec v{plan.blocks.back().data(), kBlockSize};
    if (reqs.size() > first) {
      IoRequest& last = reqs.back();
      if (last.offset + last.length() == db * kBlockSize && last.iov.size() < 256) {
        last.iov.push_back(v);
        continue;
      }
    }
    reqs.push_back(IoRequest{IoRequest::Op::kRead, db * kBlockSize, {v}});
  }
  return Status::OK();
}

Result<std::vector<Buffer>> ObjectStore::FinishRead(const std::string& coll,
                                                    const std::string& name,
                                                    std::span<const Extent> extents,
                                                    ReadPlan& plan) {
  const Onode& o = *plan.onode;
  std::map<std::uint64_t, const AlignedBuffer*> by_lblock;
  for (std::size_t i = 0; i < plan.need.size(); ++i) {
    const BlockRef& ref = o.blocks.at(plan.need[i]);
    if (Crc32c(plan.blocks[i].span()) != ref.crc) {
      return Status::DataLoss("crc32c mismatch in object " + ObjectLabel(coll, name) +
                              " at offset " + std::to_string(plan.need[i] * kBlockSize) +
                              " (device block " + std::to_string(ref.device_block) + ")");
    }
    by_lblock[plan.need[i]] = &plan.blocks[i];
  }
  std::vector<Buffer> out;
  out.reserve(extents.size());
  for (const Extent& e : extents) {
    std::uint64_t start = std::min(e.offset, o.size);
    std::uint64_t len = std::min(e.length, o.size - start);
    Buffer buf = Buffer::Allocate(len, true);
    std::uint64_t pos = start;
    while (pos < start + len) {
      std::uint64_t lb = pos / kBlockSize;
      std::uint64_t in = pos % kBlockSize;
      std::uint64_t n = std::min(kBlockSize - in, start + len - pos);
      auto it = by_lblock.find(lb);
      if (it != by_lblock.end()) {
        std::memcpy(buf.data() + (pos - start), it->second->data() + in, n);
      }
      pos += n;
    }
    out.push_back(std::move(buf));
  }
  return out;
}

// Registered as a reader until the device reads are done, so that the blocks the Onodes name are
// not reused under us by a commit that frees them meanwhile.
class ObjectStore::ReadGuard {
 public:
  explicit ReadGuard(ObjectStore& s) : s_(s), epoch_(s.EnterRead()) {}
  ~ReadGuard() { s_.ExitRead(epoch_); }
  ReadGuard(const ReadGuard&) = delete;
  ReadGuard& operator=(const ReadGuard&) = delete;

 private:
  ObjectStore& s_;
  std::uint64_t epoch_;
};

Result<std::vector<Buffer>> ObjectStore::Read(const std::string& coll, const std::string& name,
                                              std::span<const Extent> extents) {
  ReadGuard guard(*this);
  ReadPlan plan;
  std::vector<IoRequest> reqs;
  EC_RETURN_IF_ERROR(PlanRead(coll, name, extents, plan, reqs));
  if (!reqs.empty()) EC_RETURN_IF_ERROR(device_->Submit(reqs));
  return FinishRead(coll, name, extents, plan);
}

Result<ObjectRead> ObjectStore::ReadWithAttr(const std::string& coll, const std::string& name,
                                             std::span<const Extent> extents,
                                             const std::string& attr) {
  ReadGuard guard(*this);
  ReadPlan plan;
  std::vector<IoRequest> reqs;
  EC_RETURN_IF_ERROR(PlanRead(coll, name, extents, plan, reqs));
  if (!reqs.empty()) EC_RETURN_IF_ERROR(device_->Submit(reqs));
  auto data = FinishRead(coll, name, extents, plan);
  if (!data.ok()) return data.status();
  ObjectRead out;
  out.extents = std::move(data).value();
  out.size = plan.onode->size;
  if (auto it = plan.onode->attrs.find(attr); it != plan.onode->attrs.end()) out.attr = it->second;
  return out;
}

std::vector<Result<std::vector<Buffer>>> ObjectStore::ReadMany(
    std::span<const ReadRequest> requests) {
  ReadGuard guard(*this);
  std::vector<ReadPlan> plans(requests.size());
  std::vector<Status> errors(requests.size());
  std::vector<IoRequest> reqs;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const ReadRequest& r = requests[i];
    errors[i] = PlanRead(r.coll, r.name, r.extents, plans[i], reqs);
  }
  Status io;
  if (!reqs.empty()) io = device_->Submit(reqs);
  std::vector<Result<std::vector<Buffer>>> out;
  out.reserve(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const ReadRequest& r = requests[i];
    if (!errors[i].ok()) {
      out.emplace_back(errors[i]);
    } else if (!io.ok() && !plans[i].need.empty()) {
      out.emplace_back(io);
    } else {
      out.push_back(FinishRead(r.coll, r.name, r.extents, plans[i]));
    }
  }
  return out;
}

Result<ObjectInfo> ObjectStore::Stat(const std::string& coll, const std::string& name) {
  auto onode = LoadOnode(coll, name);
  if (!onode.ok()) return onode.status();
  return ObjectInfo{(*onode)->size, (*onode)->blocks.size() * kBlockSize};
}

Result<std::vector<BlockLocation>> ObjectStore::Locate(const std::string& coll,
                                                       const std::string& name) {
  auto onode = LoadOnode(coll, name);
  if (!onode.ok()) return onode.status();
  std::vector<BlockLocation> out;
  out.reserve((*onode)->blocks.size());
  for (const auto& [logical, ref] : (*onode)->blocks) {
    out.push_back(BlockLocation{logical * kBlockSize, ref.device_block * kBlockSize, ref.crc});
  }
  return out;
}

Result<std::string> ObjectStore::GetAttr(const std::string& coll, const std::string& name,
                                         const std::string& key) {
  auto onode = LoadOnode(coll, name);
  if (!onode.ok()) return onode.status();
  auto it = (*onode)->attrs.find(key);
  if (it == (*onode)->attrs.end()) {
    return Status::Error(ENODATA, "object " + ObjectLabel(coll, name) + " has no attribute " + key);
  }
  return it->second;
}

Result<std::vector<std::string>> ObjectStore::List(const std::string& coll) {
  return List(coll, std::string(), std::numeric_limits<std::size_t>::max());
}

Result<std::vector<std::string>> ObjectStore::List(const std::string& coll,
                                                   const std::string& after, std::size_t max) {
  if (max == 0) return Status::Invalid("list of collection " + coll + ": max must be positive");
  // One snapshot for the existence check and the scan: a page never mixes two commits.
  const rocksdb::Snapshot* snap = db_->GetSnapshot();
  struct Release {
    rocksdb::DB* db;
    const rocksdb::Snapshot* snap;
    ~Release() { db->ReleaseSnapshot(snap); }
  } release{db_.get(), snap};
  rocksdb::ReadOptions ro;
  ro.snapshot = snap;
  std::string v;
  rocksdb::Status s = db_->Get(ro, keys::Collection(coll), &v);
  if (s.IsNotFound()) return Status::NotFound("collection " + coll + " not found");
  EC_RETURN_IF_ERROR(FromRocks(s, "read collection " + coll));
  std::vector<std::string> names;
  std::string prefix = keys::ObjectPrefix(coll);
  std::string start = prefix + after;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro));
  it->Seek(start);
  // Object keys sort as their names do (same prefix), so "after" is a seek past one key.
  if (!after.empty() && it->Valid() && it->key() == start) it->Next();
  for (; it->Valid() && names.size() < max && it->key().starts_with(prefix); it->Next()) {
    names.emplace_back(it->key().data() + prefix.size(), it->key().size() - prefix.size());
  }
  EC_RETURN_IF_ERROR(FromRocks(it->status(), "list collection " + coll));
  return names;
}

Result<std::vector<std::string>> ObjectStore::ListCollections() {
  std::vector<std::string> names;
  std::string prefix(1, keys::kCollectionPrefix);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    names.emplace_back(it->key().data() + 1, it->key().size() - 1);
  }
  EC_RETURN_IF_ERROR(FromRocks(it->status(), "list collections"));
  return names;
}

std::uint64_t ObjectStore::free_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return alloc_.free_blocks() * kBlockSize;
}

CommitStats ObjectStore::commit_stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::uint64_t ObjectStore::device_bytes() const {
  return superblock_.device_size;
}

}  // namespace ec::osd::store
