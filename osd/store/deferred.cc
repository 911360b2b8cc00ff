// Deferred writes: replay of the records left by a crash, and retirement of records whose data a
// device flush has made durable (see object_store.h).
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstring>
#include <map>

#include "common/codec.h"
#include "common/crc32c.h"
#include "osd/store/object_store.h"
#include "osd/store/onode.h"
#include "osd/store/rocks_util.h"

namespace ec::osd::store {

Status ObjectStore::RetireDeferred(bool sync) {
  if (deferred_keys_.empty()) return Status::OK();
  rocksdb::WriteBatch batch;
  for (const std::string& k : deferred_keys_) batch.Delete(k);
  rocksdb::WriteOptions wo;
  wo.sync = sync;
  // A lost delete is harmless: replay rewrites only blocks that still hold these bytes.
  EC_RETURN_IF_ERROR(FromRocks(db_->Write(wo, &batch), "retire deferred writes"));
  deferred_keys_.clear();
  return Status::OK();
}

Status ObjectStore::ReplayDeferred() {
  std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, std::string>>> records;
  std::vector<std::string> keys;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  std::string prefix(1, keys::kDeferredPrefix);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    keys.push_back(it->key().ToString());
    Decoder in(std::string_view(it->value().data(), it->value().size()));
    std::uint32_t n = 0;
    if (!in.Count(&n, UINT32_MAX, 8 + kBlockSize, "block count") ||
        in.remaining() != static_cast<std::uint64_t>(n) * (8 + kBlockSize)) {
      return Status::DataLoss("corrupt deferred write record");
    }
    auto& blocks = records[keys.size() - 1];
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t db = 0;
      std::span<const std::byte> data;
      // The size was checked above: these reads cannot run out.
      if (!in.U64(&db, "device block") || !in.RawView(kBlockSize, &data, "block")) {
        return Status::DataLoss("corrupt deferred write record: " + in.status().message());
      }
      blocks.emplace_back(db, std::string(reinterpret_cast<const char*>(data.data()), data.size()));
    }
  }
  EC_RETURN_IF_ERROR(FromRocks(it->status(), "scan deferred writes"));
  if (keys.empty()) return Status::OK();

  // What the metadata says each of those device blocks must hold.
  std::map<std::uint64_t, std::uint32_t> want;
  for (const auto& [seq, blocks] : records) {
    for (const auto& [db, data] : blocks) want[db] = 0;
  }
  std::map<std::uint64_t, std::uint32_t> referenced;
  std::unique_ptr<rocksdb::Iterator> obj(db_->NewIterator(rocksdb::ReadOptions()));
  std::string oprefix(1, keys::kObjectPrefix);
  for (obj->Seek(oprefix); obj->Valid() && obj->key().starts_with(oprefix); obj->Next()) {
    auto onode = Onode::Decode(std::string_view(obj->value().data(), obj->value().size()));
    if (!onode.ok()) return onode.status();
    for (const auto& [lb, ref] : onode->blocks) {
      if (want.count(ref.device_block) != 0) referenced[ref.device_block] = ref.crc;
    }
  }
  EC_RETURN_IF_ERROR(FromRocks(obj->status(), "scan objects"));

  // Later records win: the last matching copy of a block is the one written.
  std::map<std::uint64_t, AlignedBuffer> writes;
  for (const auto& [seq, blocks] : records) {
    for (const auto& [db, data] : blocks) {
      auto ref = referenced.find(db);
      if (ref == referenced.end() || Crc32c(AsBytes(data.data(), data.size())) != ref->second) {
        continue;
      }
      AlignedBuffer buf(kBlockSize);
      std::memcpy(buf.data(), data.data(), kBlockSize);
      writes.insert_or_assign(db, std::move(buf));
    }
  }
  std::vector<IoRequest> reqs;
  for (auto& [db, buf] : writes) {
    reqs.push_back(
        IoRequest{IoRequest::Op::kWrite, db * kBlockSize, {iovec{buf.data(), kBlockSize}}});
  }
  if (!reqs.empty()) {
    EC_RETURN_IF_ERROR(device_->Submit(reqs));
    EC_RETURN_IF_ERROR(device_->Flush());
  }
  deferred_keys_ = std::move(keys);
  return RetireDeferred(true);
}

}  // namespace ec::osd::store
