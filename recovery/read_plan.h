// ReadPlan: turns a decode plan (chunk id -> sub-chunk ranges, from minimum_to_decode) into the
// byte extents to read from each shard for a run of stripes, adjacent extents merged.
//
// A shard is chunk i of every stripe, concatenated: chunk of stripe s starts at s * chunk_size,
// and sub-chunk z of it at s * chunk_size + z * sub_chunk_size. What a helper contributes to one
// stripe is its ranges' bytes concatenated in range order (the form decode() takes). Extents are
// produced in file order and merging only joins byte-adjacent extents, so reading the extents one
// after the other into one buffer lays the helper's data out densely: stripe s's contribution
// starts at s * HelperBytesPerStripe().
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"

namespace ec::recovery {

struct Extent {
  std::uint64_t offset = 0;  // in the shard file
  std::uint64_t length = 0;
  bool operator==(const Extent&) const = default;
};

// The parts of `extents` (in order, empty ones left out) that lie below `stored`: what a shard
// that stores `stored` bytes (Fast EC, StripeLayout::stored_size) is asked for; its bytes past
// that are zeros that nobody reads (recovery/stored_shard_source.h) or prices (read_cost.h).
std::vector<Extent> StoredParts(const std::vector<Extent>& extents, std::uint64_t stored);

struct ShardRead {
  int shard = 0;
  std::vector<Extent> extents;         // merged, in file order
  std::uint64_t bytes_per_stripe = 0;  // what decode() receives from this shard per stripe
};

// Checks `plan` against the code's geometry: every range inside [0, sub_chunk_count), ascending,
// not overlapping, non-empty. A plugin's plan is checked before anything is read with it.
// Errors: EINVAL "plan for shard N has a bad range (first,count)".
Status CheckPlan(const SubChunkPlan& plan, unsigned sub_chunk_count);

// Checks `plan` (CheckPlan) and builds the reads for stripes [first_stripe, first_stripe +
// stripes). Errors: CheckPlan's, EINVAL for a chunk size that is not a multiple of
// sub_chunk_count.
Result<std::vector<ShardRead>> PlanShardReads(const SubChunkPlan& plan, std::uint64_t chunk_size,
                                              unsigned sub_chunk_count, std::uint64_t first_stripe,
                                              std::uint64_t stripes);

// Appends one extent, joined to the last one of `extents` when byte-adjacent; empty ones are
// dropped.
void AppendExtent(std::vector<Extent>& extents, Extent e);
// `extents` sorted by offset with overlapping and adjacent ones joined (the union).
std::vector<Extent> MergeExtents(std::vector<Extent> extents);
// Copies the bytes of `wanted` (each inside the union `merged`, MergeExtents' form) from `raw`
// (the bytes of `merged` back to back) to `out`, back to back in the order of `wanted`.
// Precondition: every wanted extent lies inside `merged`.
void GatherExtents(const std::vector<Extent>& merged, const std::byte* raw,
                   const std::vector<Extent>& wanted, std::byte* out);
// Appends the extents of `ranges` (one shard's ranges from a checked plan) for stripes
// [first_stripe, first_stripe + stripes), in file order, merged as AppendExtent does: the
// building block of PlanShardReads, for callers that combine several plans in one request.
void AppendRangeExtents(std::vector<Extent>& extents, const std::vector<SubChunkRange>& ranges,
                        std::uint64_t chunk_size, std::uint64_t sub_chunk_size,
                        std::uint64_t first_stripe, std::uint64_t stripes);

}  // namespace ec::recovery
