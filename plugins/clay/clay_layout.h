// ClayLayout: the geometry of a CLAY code, with the node, plane and pair conventions of Ceph's
// ErasureCodeClay (ceph-ec-reference.md §3.1), so that bytes and read plans match Ceph's.
//
//   q = d-k+1          nodes per group ("x" in [0,q))
//   nu                 virtual all-zero nodes added so that q divides k+m+nu (shortening)
//   t = (k+m+nu)/q     groups ("y" in [0,t)); node = y*q + x, n = q*t nodes
//   Z = q^t            sub-chunks per chunk; sub-chunk z of a chunk is "plane" z
//
//   chunk i < k  -> node i          nodes k .. k+nu-1 are virtual (always zero)
//   chunk i >= k -> node i+nu       MDS data nodes 0..k+nu-1, MDS parity nodes k+nu..n-1
//
// Plane z has base-q digits z_vec[0..t-1], most significant first: digit(z, y) has weight
// q^(t-1-y). In plane z, node (x,y) is a "dot" when digit(z,y) == x (its coupled and uncoupled
// values are equal); otherwise it is paired with node (digit(z,y), y) in plane
// z + (x - digit(z,y)) * q^(t-1-y). Of a pair, "A" is the node with the larger x.
//
// Thread safety: a ClayLayout is an immutable value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"

namespace ec::clay {

class ClayLayout {
 public:
  // Largest k+m+nu Ceph accepts.
  static constexpr int kMaxNodes = 254;
  // Largest q^t we accept. Ceph computes it in an int and overflows silently; beyond ~2^20 the
  // chunk alignment q^t*k*32 no longer fits the 32-bit chunk sizes of the interface anyway.
  static constexpr std::int64_t kMaxSubChunks = std::int64_t{1} << 20;

  ClayLayout() = default;

  // Checks k >= 1, m >= 1, k <= d <= k+m-1 ("value of d D must be within [ K,K+M-1]"),
  // k+m+nu <= 254 and q^t <= kMaxSubChunks. Errors: EINVAL with a message saying which.
  static Result<ClayLayout> Make(int k, int m, int d);

  int k() const { return k_; }
  int m() const { return m_; }
  int d() const { return d_; }
  int q() const { return q_; }
  int t() const { return t_; }
  int nu() const { return nu_; }
  int nodes() const { return q_ * t_; }
  int sub_chunk_count() const { return z_; }

  int node_of_chunk(int chunk) const { return chunk < k_ ? chunk : chunk + nu_; }
  // -1 for a virtual node.
  int chunk_of_node(int node) const {
    return node < k_ ? node : (node < k_ + nu_ ? -1 : node - nu_);
  }
  bool is_virtual(int node) const { return node >= k_ && node < k_ + nu_; }
  int x_of(int node) const { return node % q_; }
  int y_of(int node) const { return node / q_; }
  // q^(t-1-y): the weight of digit y in a plane number.
  int weight(int y) const { return weights_[y]; }
  int digit(int z, int y) const { return (z / weights_[y]) % q_; }
  // z with digit y replaced by v.
  int with_digit(int z, int y, int v) const { return z + (v - digit(z, y)) * weights_[y]; }
  bool is_dot(int node, int z) const { return digit(z, y_of(node)) == x_of(node); }
  // The node paired with (node, z): the dot of node's group in plane z (node itself if a dot).
  int partner_node(int node, int z) const { return y_of(node) * q_ + digit(z, y_of(node)); }
  // The plane of the paired vertex: z with node's digit set to node's x.
  int partner_plane(int node, int z) const { return with_digit(z, y_of(node), x_of(node)); }

  // Ceph's get_repair_subchunks: the planes in which `lost_node` is a dot, as ranges
  // (x*q^(t-1-y) + j*q^(t-y), q^(t-1-y)) for j = 0 .. q^y-1. Z/q sub-chunks in all.
  std::vector<SubChunkRange> repair_sub_chunks(int lost_node) const;

  // Ceph's is_repair: `want` is one chunk, not available, every other real chunk of its group is
  // available, and at least d chunks are available.
  bool is_repair(const ShardSet& want, const ShardSet& available) const;

  // Ceph's minimum_to_repair: the other real chunks of the lost chunk's group, then available
  // chunks in ascending id order until d helpers; every helper gets repair_sub_chunks(lost).
  // Precondition: is_repair({lost_chunk}, available).
  SubChunkPlan minimum_to_repair(int lost_chunk, const ShardSet& available) const;

  // The real chunk ids in `lost_chunk`'s group other than itself.
  std::vector<int> group_peers(int lost_chunk) const;

 private:
  int k_ = 0, m_ = 0, d_ = 0, q_ = 1, t_ = 0, nu_ = 0, z_ = 1;
  std::vector<int> weights_;
};

// Sorted plane numbers -> ascending (first, count) runs.
std::vector<SubChunkRange> PlanesToRanges(const std::vector<int>& sorted_planes);
// The number of sub-chunks a list of ranges covers.
int CountSubChunks(const std::vector<SubChunkRange>& ranges);

}  // namespace ec::clay
