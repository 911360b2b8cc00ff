// ErasureCodeClay: Ceph's CLAY code (coupled-layer MSR code, ErasureCodeClay.cc), byte-identical
// to it, with sub-chunk repair and, beyond Ceph, partial repair and cost-based read planning.
//
//   chunk (C bytes) = q^t sub-chunks of S = C / q^t bytes; sub-chunk z is "plane" z.
//   | sub 0 | sub 1 | ... | sub q^t-1 |      the same plane z of all k+m chunks (plus nu virtual
//                                           zero chunks) forms one codeword of the per-plane code
//                                           after the pairwise "uncoupling" transform.
//   Lost chunk, full repair:  d helpers each send the q^(t-1) sub-chunks where the lost chunk is
//                             a dot: d*C/q bytes instead of k*C.
//   Lost chunk, partial:      a range of sub-chunks; helpers send only the planes it needs.
// Geometry and conventions: clay_layout.h. Algorithms: clay_engine.h.
//
// Profile (init; defaults written back into the profile):
//   k           data chunks, default 4; m coding chunks, default 2 ("k=K must be >= 2",
//               "m=M must be >= 1"; Ceph's "could not convert ..." for non-integers)
//   d           helpers per repair, default k+m-1; "value of d D must be within [ K,K+M-1]"
//   scalar_mds  jerasure (default) | isa | shec: the plugin of both sub-codes; anything else:
//               "scalar_mds X is not currently supported, use one of 'jerasure', 'isa', 'shec'"
//   technique   of the sub-codes; jerasure: reed_sol_van (default), reed_sol_r6_op, cauchy_orig,
//               cauchy_good, liber8tion; isa: reed_sol_van (default), cauchy; shec: single
//               (default), multiple. Otherwise "technique T is not currently supported, use one
//               of 'A', 'B', ..." (all EINVAL).
//   Beyond Ceph: k+m+nu > 254 and q^t > 2^20 are EINVAL with a message (Ceph: no message, or
//   overflow); a non-identity `mapping` is EINVAL (Ceph's clay ignores it and mislabels chunks).
//   The sub-codes are made by PluginRegistry::factory(scalar_mds, directory, ...) with
//   {plugin, technique, k=k+nu, m=m, w=8} (+ c=2 for shec) and {.., k=2, m=2, w=8}; their errors
//   are returned as they are (e.g. the registry's load failure for a missing libec_shec.so).
//
// Chunk size: roundup(stripe_width, q^t * k * A) / k with A = pft.get_chunk_size(1) (32 for
// reed_sol_van). Chunk buffers given to encode_chunks/decode_chunks must have a length that is a
// multiple of q^t (and of q^t * A for bit-matrix techniques), else EINVAL.
//
// Errors of the data path: EINVAL for any length, id or plan mismatch (nothing is written then),
// EIO when the chunks given cannot rebuild what is wanted. Never a crash on bad input.
//
// Thread safety: init() alone; afterwards every const method may run concurrently. Compiled
// programs are cached per erasure/repair pattern (locked LRU); scratch memory is per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ec/erasure_code.h"
#include "ec/lru_cache.h"
#include "plugins/clay/clay_engine.h"
#include "plugins/clay/clay_layout.h"
#include "plugins/clay/clay_scalar.h"

namespace ec {

// A way to obtain a sub-chunk range of one chunk, with what it reads (see plan_read).
struct ClayReadPlan {
  enum class Kind {
    kDirect,         // the chunk is available: read the range itself
    kDecode,         // Reed-Solomon style: k whole chunks, then decode()
    kRepair,         // full repair: d helpers x Z/q sub-chunks, then decode() or repair()
    kPartialRepair,  // only the planes the range needs, then repair()
  };
  Kind kind = Kind::kDirect;
  int chunk = -1;
  SubChunkRange want{0, 0};
  // chunk id -> ranges to read from it, ascending and merged (the contract of minimum_to_decode).
  SubChunkPlan reads;
  long long sub_chunks_read = 0;
  std::uint64_t bytes_read = 0;  // sub_chunks_read * chunk_size / q^t
  // Sum over chunks read of cost(chunk) * sub-chunks read from it: the plan's price in units of
  // "cost of a whole chunk / q^t". Plans are compared on it.
  std::uint64_t cost = 0;
  // The compiled repair, for kRepair and kPartialRepair (pass it to repair()).
  std::shared_ptr<const clay::RepairProgram> repair;
};

class ErasureCodeClay final : public ErasureCode {
 public:
  static constexpr const char* kDefaultK = "4";
  static constexpr const char* kDefaultM = "2";
  // Sub-chunk size from which layered programs write rebuilt dots in place (see clay_engine.h),
  // with the GFNI kernel (ISA-L's kernels: 1024).
  static constexpr std::size_t kDirectDotsMinSubChunk = 512;
  // Whether programs fold pair transforms into the per-plane solves (clay_engine.h): with the GFNI
  // kernel, faster at every sub-chunk size measured (ec-clay-bench, 32 B to 32 KiB); with ISA-L's
  // kernels 10-20% slower at 8 KiB sub-chunks in one run, so not there.
  static bool fold_pairs();

  // `directory` is where the scalar sub-code plugins are loaded from.
  explicit ErasureCodeClay(std::string directory);

  // See the file comment. On error the code is unusable.
  Status init(Profile& profile) override;

  unsigned get_chunk_size(unsigned stripe_width) const override;
  unsigned get_sub_chunk_count() const override { return layout_.sub_chunk_count(); }

  // Exactly Ceph's: when `want` is one chunk, not available, every other real chunk of its group
  // is available and |available| >= d, the repair plan (its group first, then ascending ids up to
  // d helpers, each with the ranges of clay::ClayLayout::repair_sub_chunks). Otherwise the base
  // plan: want itself if available, else the first k available chunks, whole (for a per-plane
  // code that is not MDS, the first k that decode: decodable_set).
  Result<SubChunkPlan> minimum_to_decode(const ShardSet& want,
                                         const ShardSet& available) const override;

  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const override;
  // Ceph's rule: when minimum_to_decode would plan a repair for (want, keys of chunks) and
  // chunk_size is larger than the buffers, the buffers are helper sub-chunks (exactly d of them,
  // each the concatenation of the planned ranges: Z/q * chunk_size/Z bytes) and the lost chunk
  // is repaired. Otherwise every buffer must be a whole chunk (chunk_size, when not 0) and the
  // layered decode runs. EINVAL on any length mismatch.
  Status decode(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded,
                std::size_t chunk_size) const override;
  Status decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                       const ChunkSpans& out) const override;

  // --- Beyond Ceph: partial repair and planning ------------------------------------------------
  //
  // A degraded read of bytes [off, off+len) of a missing chunk c (chunk size C, S = C / q^t):
  //   first = off / S, count = (off + len + S - 1) / S - first
  //   plan  = plan_read(c, {first, count}, cost per available chunk, C)
  //   read, from every chunk h of plan.reads, its ranges (all of them in one vectored request)
  //   kDirect:  the bytes are those of c itself
  //   kDecode:  decode({c}, k whole chunks, ..., C), then take the sub-chunks
  //   kRepair / kPartialRepair: repair(*plan.repair, {h -> the concatenated ranges}, C, out)
  //   and the wanted bytes are out[off - first*S, +len).
  // Recovery (rebuilding whole lost chunks) is the same with {0, q^t}; its reads are Ceph's.

  // Plans rebuilding sub-chunks [want.first, want.first+want.second) of `lost_chunk` from exactly
  // d helpers that include every other real chunk of its group. Each helper's reads are a subset
  // of the full-repair ranges; with want = (0, q^t) they are exactly Ceph's plan. The result is
  // cached and may be shared. Errors: EINVAL for bad ids, a bad helper set or range.
  // Whether a sub-chunk repair of `lost` from `helpers` can be planned: false when the per-plane
  // code (one that is not MDS, such as shec) cannot decode the pattern it needs.
  bool can_repair(int lost, const ShardSet& helpers) const;
  Result<std::shared_ptr<const clay::RepairProgram>> plan_repair(int lost_chunk, SubChunkRange want,
                                                                 const ShardSet& helpers) const;

  // Runs a plan from plan_repair() (or plan_read()). `helper_data[h]` must hold, for every helper
  // h of the plan and nothing else, the concatenation of the sub-chunks plan.reads[h] lists
  // (read_counts * S bytes, S = chunk_size / q^t). `out` receives want.second * S bytes: the
  // wanted sub-chunks of the lost chunk. The caller owns all buffers; they must not overlap.
  // Errors: EINVAL on any size or helper-set mismatch (out untouched).
  Status repair(const clay::RepairProgram& plan, const ConstChunkSpans& helper_data,
                std::size_t chunk_size, std::span<std::byte> out) const;

  // The cheapest way to read sub-chunks `want` of `chunk` given `available` (chunk id -> cost of
  // reading that whole chunk; `chunk` may be among them) and the chunk size (for bytes_read):
  // direct read, RS-style decode from the k cheapest chunks, full or partial repair from the
  // lost chunk's group plus the cheapest others. Ties go to fewer bytes, then to repair.
  // Errors: EINVAL for bad ids or range, EIO when nothing available can rebuild the chunk.
  Result<ClayReadPlan> plan_read(int chunk, SubChunkRange want, const std::map<int, int>& available,
                                 std::size_t chunk_size) const;

  // The interface's sub-chunk repair (partial repair for the repair engine): plan_repair() and
  // repair() behind the generic signatures. `helpers` must be a repair set (exactly d chunks,
  // including every other real chunk of lost's group), else EOPNOTSUPP; other errors as
  // plan_repair / repair.
  Result<SubChunkPlan> minimum_to_repair(int lost, SubChunkRange want,
                                         const ShardSet& helpers) const override;
  Status repair_sub_chunks(int lost, SubChunkRange want, const ConstChunkSpans& helper_data,
                           std::size_t chunk_size, std::span<std::byte> out) const override;

  const clay::ClayLayout& layout() const { return layout_; }
  // True when the sub-codes run on ISA-L (byte-wise GF(2^8) matrices).
  bool fast_path() const { return pair_.linear() && mds_.linear(); }

 protected:
  // minimum_to_decode_with_cost's choice (`available` maps chunk id -> cost of reading the whole
  // chunk). For one missing chunk it returns the d-helper repair set (the lost chunk's group plus
  // the cheapest others) when its cost, sum(cost)/q, is below that of the k cheapest chunks, else
  // those k chunks. Feeding the result to minimum_to_decode gives the matching sub-chunk plan.
  // Otherwise as the base class (the k cheapest that decode: decodable_set).
  Result<ShardSet> cheapest_to_decode(const ShardSet& want,
                                      const std::map<int, int>& available) const override;

 private:
  Status parse(Profile& profile, Profile* mds_profile, Profile* pft_profile);
  Status check_chunk_length(std::size_t length) const;
  // `chosen` (k chunks) when the layered decode can run from them, else the first k chunks of
  // `preference` (in its order) that it can; EIO when none can. Only a per-plane code that is
  // not MDS (scalar_mds=shec) has k chunks it cannot decode from.
  Result<ShardSet> decodable_set(const ShardSet& chosen, const std::vector<int>& preference) const;
  // The layered program for `erased` nodes, in the variant that suits sub-chunks of `sub` bytes.
  Result<std::shared_ptr<const clay::Program>> layered_program(const std::vector<int>& erased,
                                                               std::size_t sub) const;
  // Binds scratch to the unbound slots of `program` and runs it.
  Status run(const clay::Program& program, std::size_t sub_chunk_size, std::uint8_t** slots) const;

  // Compiled programs, per pattern. Replaced (not cleared) by init so that a second init never
  // serves programs of the previous geometry.
  struct Caches {
    LruCache<std::string, clay::Program> layered{256};
    LruCache<std::string, clay::RepairProgram> repair{256};
  };

  std::string directory_;
  clay::ClayLayout layout_;
  std::vector<int> parity_nodes_;
  ErasureCodeInterfaceRef mds_code_;
  ErasureCodeInterfaceRef pft_code_;
  clay::MdsCode mds_;
  clay::PairCode pair_;
  std::unique_ptr<Caches> caches_ = std::make_unique<Caches>();
};

}  // namespace ec
