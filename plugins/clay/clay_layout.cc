#include "plugins/clay/clay_layout.h"

#include <algorithm>

namespace ec::clay {

Result<ClayLayout> ClayLayout::Make(int k, int m, int d) {
  if (k < 1 || m < 1) {
    return Status::Invalid("clay needs k >= 1 and m >= 1, got k=" + std::to_string(k) +
                           " m=" + std::to_string(m));
  }
  if (d < k || d > k + m - 1) {
    return Status::Invalid("value of d " + std::to_string(d) + " must be within [ " +
                           std::to_string(k) + "," + std::to_string(k + m - 1) + "]");
  }
  ClayLayout l;
  l.k_ = k;
  l.m_ = m;
  l.d_ = d;
  l.q_ = d - k + 1;
  l.nu_ = (k + m) % l.q_ ? l.q_ - (k + m) % l.q_ : 0;
  if (k + m + l.nu_ > kMaxNodes) {
    return Status::Invalid("k+m+nu=" + std::to_string(k + m + l.nu_) + " (k=" + std::to_string(k) +
                           " m=" + std::to_string(m) + " plus nu=" + std::to_string(l.nu_) +
                           " virtual chunks so that q=d-k+1=" + std::to_string(l.q_) +
                           " divides it) must be less than or equal to " +
                           std::to_string(kMaxNodes));
  }
  l.t_ = (k + m + l.nu_) / l.q_;
  std::int64_t z = 1;
  for (int y = 0; y < l.t_; ++y) {
    z *= l.q_;
    if (z > kMaxSubChunks) {
      return Status::Invalid(
          "k=" + std::to_string(k) + " m=" + std::to_string(m) + " d=" + std::to_string(d) +
          " needs q^t=" + std::to_string(l.q_) + "^" + std::to_string(l.t_) +
          " sub-chunks per chunk, more than the supported " + std::to_string(kMaxSubChunks));
    }
  }
  l.z_ = static_cast<int>(z);
  l.weights_.assign(l.t_, 1);
  for (int y = l.t_ - 2; y >= 0; --y) l.weights_[y] = l.weights_[y + 1] * l.q_;
  return l;
}

std::vector<SubChunkRange> ClayLayout::repair_sub_chunks(int lost_node) const {
  const int y = y_of(lost_node);
  const int x = x_of(lost_node);
  const int seq = weights_[y];
  const int num = z_ / (seq * q_);
  std::vector<SubChunkRange> ranges;
  ranges.reserve(num);
  for (int j = 0; j < num; ++j) ranges.emplace_back(x * seq + j * q_ * seq, seq);
  return ranges;
}

std::vector<int> ClayLayout::group_peers(int lost_chunk) const {
  std::vector<int> peers;
  const int lost_node = node_of_chunk(lost_chunk);
  const int base = y_of(lost_node) * q_;
  for (int x = 0; x < q_; ++x) {
    int chunk = chunk_of_node(base + x);
    if (chunk >= 0 && chunk != lost_chunk) peers.push_back(chunk);
  }
  return peers;
}

bool ClayLayout::is_repair(const ShardSet& want, const ShardSet& available) const {
  if (std::includes(available.begin(), available.end(), want.begin(), want.end())) return false;
  if (want.size() != 1) return false;
  const int lost = *want.begin();
  if (lost < 0 || lost >= k_ + m_) return false;
  for (int peer : group_peers(lost))
    if (!available.count(peer)) return false;
  return available.size() >= static_cast<std::size_t>(d_);
}

SubChunkPlan ClayLayout::minimum_to_repair(int lost_chunk, const ShardSet& available) const {
  const std::vector<SubChunkRange> ranges = repair_sub_chunks(node_of_chunk(lost_chunk));
  SubChunkPlan plan;
  for (int peer : group_peers(lost_chunk)) plan[peer] = ranges;
  for (int id : available) {
    if (plan.size() >= static_cast<std::size_t>(d_)) break;
    if (id != lost_chunk && !plan.count(id)) plan[id] = ranges;
  }
  return plan;
}

std::vector<SubChunkRange> PlanesToRanges(const std::vector<int>& sorted_planes) {
  std::vector<SubChunkRange> ranges;
  for (int z : sorted_planes) {
    if (!ranges.empty() && ranges.back().first + ranges.back().second == z)
      ++ranges.back().second;
    else
      ranges.emplace_back(z, 1);
  }
  return ranges;
}

int CountSubChunks(const std::vector<SubChunkRange>& ranges) {
  int n = 0;
  for (const auto& r : ranges) n += r.second;
  return n;
}

}  // namespace ec::clay
