// ObjectStore::Fsck: metadata against allocator, and (deep) every block against its crc32c.
#include <rocksdb/db.h>

#include <algorithm>
#include <mutex>

#include "osd/store/object_store.h"
#include "osd/store/onode.h"
#include "osd/store/rocks_util.h"

namespace ec::osd::store {
namespace {

constexpr std::size_t kMaxReportedRuns = 100;
constexpr std::size_t kDeepBatchBlocks = 256;

std::string RunText(const BlockRun& r) {
  return "[" + std::to_string(r.block) + ", +" + std::to_string(r.count) + ")";
}

}  // namespace

Result<FsckReport> ObjectStore::Fsck(bool deep) {
  // Runs alone: waits for the transactions in flight and holds new ones back (quiesce_), so that
  // the metadata, the persisted bitmap and the in-memory ones describe the same state.
  std::unique_lock<std::mutex> lock(mu_);
  ++quiesce_;
  cv_.wait(lock, [&] { return in_flight_ == 0; });
  struct Resume {
    ObjectStore* s;
    ~Resume() {
      --s->quiesce_;
      s->cv_.notify_all();
    }
  } resume{this};
  FsckReport report;
  auto rebuilt = RebuildAllocator(&report.errors, &report.objects);
  if (!rebuilt.ok()) return rebuilt.status();
  report.blocks_referenced = rebuilt->num_blocks() - rebuilt->free_blocks() - 1;
  auto persisted = LoadAllocator();
  if (!persisted.ok()) return persisted.status();

  for (const BlockRun& r : Allocator::Diff(*persisted, *rebuilt, kMaxReportedRuns)) {
    if (persisted->IsUsed(r.block)) {
      report.errors.push_back("device blocks " + RunText(r) +
                              " marked used but referenced by no object (leaked)");
    } else {
      report.errors.push_back("device blocks " + RunText(r) +
                              " referenced by an object but marked free");
    }
  }
  for (const BlockRun& r : Allocator::Diff(committed_, *persisted, kMaxReportedRuns)) {
    report.errors.push_back("in-memory allocator differs from the persisted one at device blocks " +
                            RunText(r));
  }
  for (const BlockRun& r : Allocator::Diff(alloc_, committed_, kMaxReportedRuns)) {
    report.errors.push_back("blocks " + RunText(r) +
                            " reserved or freed in memory with no transaction in flight");
  }
  if (!deep) return report;

  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  std::string prefix(1, keys::kObjectPrefix);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    std::string key = it->key().ToString().substr(1);
    std::size_t nul = key.find('\0');
    std::string coll = key.substr(0, nul), name = key.substr(nul + 1);
    auto onode = Onode::Decode(std::string_view(it->value().data(), it->value().size()));
    if (!onode.ok()) continue;  // already reported by the rebuild
    std::vector<std::uint64_t> lblocks;
    for (const auto& [lb, ref] : onode->blocks) {
      if (ref.device_block == 0 || ref.device_block >= alloc_.num_blocks()) continue;
      lblocks.push_back(lb);
    }
    // In batches; a bad block is re-checked alone so that every bad block gets named.
    for (std::size_t i = 0; i < lblocks.size(); i += kDeepBatchBlocks) {
      std::size_t n = std::min(kDeepBatchBlocks, lblocks.size() - i);
      std::span<const std::uint64_t> part(lblocks.data() + i, n);
      auto bufs = ReadBlocks(coll, name, *onode, part);
      if (bufs.ok()) {
        report.blocks_checked += n;
        continue;
      }
      if (!bufs.status().is_data_loss()) return bufs.status();
      for (std::uint64_t lb : part) {
        auto one = ReadBlocks(coll, name, *onode, std::span<const std::uint64_t>(&lb, 1));
        ++report.blocks_checked;
        if (one.ok()) continue;
        if (!one.status().is_data_loss()) return one.status();
        report.errors.push_back(one.status().message());
      }
    }
  }
  EC_RETURN_IF_ERROR(FromRocks(it->status(), "scan objects"));
  return report;
}

}  // namespace ec::osd::store
