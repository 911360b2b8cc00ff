#include "recovery/read_cost.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ec::recovery {

Status CheckModel(const ReadCostModel& model) {
  for (const auto& [name, w] :
       {std::pair{"weight_net", model.weight_net}, std::pair{"weight_dev", model.weight_dev}}) {
    if (!std::isfinite(w) || w < 0) {
      return Status::Invalid(std::string("read cost model: ") + name + " " + std::to_string(w) +
                             " is not a finite number >= 0");
    }
  }
  if (model.device_block == 0) return Status::Invalid("read cost model: device block of 0 bytes");
  return Status::OK();
}

ReadCost PriceExtents(std::vector<Extent> extents, std::uint64_t block) {
  std::sort(extents.begin(), extents.end(),
            [](const Extent& a, const Extent& b) { return a.offset < b.offset; });
  ReadCost cost;
  std::uint64_t bytes_end = 0, block_end = 0;  // ends of what is already counted
  bool any = false;
  for (const Extent& e : extents) {
    if (e.length == 0) continue;
    const std::uint64_t end = e.offset + e.length;
    const std::uint64_t start = any ? std::max(e.offset, bytes_end) : e.offset;
    if (end > start) cost.net_bytes += end - start;
    const std::uint64_t b0 = e.offset / block * block;
    const std::uint64_t b1 = (end + block - 1) / block * block;
    const std::uint64_t from = any ? std::max(b0, block_end) : b0;
    if (b1 > from) cost.device_bytes += b1 - from;
    bytes_end = any ? std::max(bytes_end, end) : end;
    block_end = any ? std::max(block_end, b1) : b1;
    any = true;
  }
  return cost;
}

void AddHelperCost(const ReadCostModel& model, int id, const ReadCost& helper, ReadCost* sum) {
  if (!model.local.count(id)) sum->net_bytes += helper.net_bytes;
  sum->device_bytes += helper.device_bytes;
  sum->total = model.weight_net * static_cast<double>(sum->net_bytes) +
               model.weight_dev * static_cast<double>(sum->device_bytes);
}

ReadCost PriceHelper(const ReadCostModel& model, int id, std::vector<Extent> extents) {
  auto it = model.stored.find(id);
  if (it != model.stored.end()) extents = StoredParts(extents, it->second);
  return PriceExtents(std::move(extents), model.device_block);
}

ReadCost PriceReads(const ReadCostModel& model, const std::map<int, std::vector<Extent>>& reads) {
  ReadCost sum;
  for (const auto& [id, extents] : reads)
    AddHelperCost(model, id, PriceHelper(model, id, extents), &sum);
  return sum;
}

}  // namespace ec::recovery
