// The erasure-code interface: what every plugin (jerasure, isa, clay, ...) implements, with the
// semantics of Ceph's ErasureCodeInterface so that profiles, chunk sizes and chunk bytes match.
//
//   object   |<------------------------------ object bytes ------------------------------>|
//   stripes  |<--- stripe 0 (stripe_width) --->|<--- stripe 1 --->| ...      (cut by the caller)
//   one encode() call takes one stripe and pads it to k * chunk_size:
//   chunks   | chunk 0 | chunk 1 | ... | chunk k-1 | chunk k (parity) | ... | chunk k+m-1 |
//            data chunk i holds stripe bytes [i*C, (i+1)*C); parity is computed from them.
//   sub-chunks (CLAY): each chunk is q^t equal sub-chunks; sub-chunk z = bytes [z*S, (z+1)*S).
//   A shard (what one OSD stores) is chunk i of every stripe, concatenated.
//
// Chunk ids and data pieces: without a `mapping`, data piece i is chunk id i and parity j is chunk
// id k+j. With `mapping=` (e.g. "DD__DD__") data piece i is chunk id get_chunk_mapping()[i] and
// parity follows in the remaining positions. Every map below is keyed by chunk id.
//
// Errors: every method returns Status / Result with a positive errno (see common/status.h) and, for
// init, Ceph's message text. No method throws across this interface.
//
// Thread safety: init() must complete before any other call and must not run concurrently with
// anything. After init, all const methods may be called concurrently from many threads (plugins
// guard their internal caches themselves).
#pragma once

#include <cerrno>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "common/status.h"
#include "ec/buffer.h"
#include "ec/profile.h"

namespace ec {

using ShardSet = std::set<int>;
// (index of the first sub-chunk, number of sub-chunks)
using SubChunkRange = std::pair<int, int>;
// chunk id -> the sub-chunk ranges to read from it, in ascending order
using SubChunkPlan = std::map<int, std::vector<SubChunkRange>>;
// Owned chunks, keyed by chunk id.
using ChunkMap = std::map<int, Buffer>;
// Views of chunks owned by the caller, keyed by chunk id.
using ChunkSpans = std::map<int, std::span<std::byte>>;
using ConstChunkSpans = std::map<int, std::span<const std::byte>>;

class ErasureCodeInterface {
 public:
  virtual ~ErasureCodeInterface() = default;

  // Validates `profile`, fills in every default (written back into `profile`) and stores it.
  // Errors: EINVAL / ENOENT / ... with Ceph's message (e.g. "k=1 must be >= 2").
  virtual Status init(Profile& profile) = 0;
  // The profile as normalised by init(); init(get_profile()) gives the same code.
  virtual const Profile& get_profile() const = 0;

  // k+m (plus local parities for codes that have them).
  virtual unsigned get_chunk_count() const = 0;
  // k
  virtual unsigned get_data_chunk_count() const = 0;
  // get_chunk_count() - k
  virtual unsigned get_coding_chunk_count() const = 0;
  // 1 for scalar codes; q^t for CLAY.
  virtual unsigned get_sub_chunk_count() const = 0;
  // Size of each chunk when encoding `stripe_width` bytes: the smallest size that satisfies the
  // plugin's alignment with chunk_size * k >= stripe_width.
  virtual unsigned get_chunk_size(unsigned stripe_width) const = 0;
  // Data piece i -> chunk id; empty means the identity.
  virtual const std::vector<int>& get_chunk_mapping() const = 0;
  // The parity granularity g: for every window [a*g, (a+1)*g) of a chunk, the parity bytes in it
  // depend only on the data chunks' bytes in the same window. So data chunks that are zeros from
  // byte L on give parity that is zeros from L rounded up to g on, and a store may keep such
  // chunks cut there (Ceph's Fast EC "zero padding removal", osd/pg). 0 when parity bytes depend on
  // the whole chunk (CLAY's coupled planes): the whole chunk then. Ceph's
  // get_minimum_granularity() says 1 for jerasure's reed_sol_van whatever w; here it is w/8 (w=16
  // and w=32 multiply 2- and 4-byte words). Default: 0, always safe.
  virtual std::size_t get_minimum_granularity() const { return 0; }

  // Which chunks (and which sub-chunks of each) to read in order to obtain `want`, given the
  // chunks in `available`. If want is a subset of available, the answer is want itself.
  // Errors: EIO when `available` cannot rebuild `want`; EINVAL for chunk ids out of range.
  virtual Result<SubChunkPlan> minimum_to_decode(const ShardSet& want,
                                                 const ShardSet& available) const = 0;
  // Like minimum_to_decode but chooses, among sufficient sets, one of least total cost
  // (`available` maps chunk id -> cost of reading it). Errors as minimum_to_decode.
  virtual Result<ShardSet> minimum_to_decode_with_cost(
      const ShardSet& want, const std::map<int, int>& available) const = 0;

  // Encodes one stripe: pads `in` with zeros to k * get_chunk_size(in.size()) and returns in
  // `encoded` the chunks whose ids are in `want` (each get_chunk_size() bytes, 64-byte aligned,
  // sharing one allocation). Errors: EINVAL for ids out of range.
  virtual Status encode(const ShardSet& want, std::span<const std::byte> in,
                        ChunkMap* encoded) const = 0;
  // Computes parity in place. `in` holds data chunks by chunk id (a data chunk that is absent is
  // taken as zeros); `out` must hold a buffer for every coding chunk id. All buffers have the same
  // length, which must be a valid chunk size for this code (see get_chunk_size); the caller owns
  // them. Errors: EINVAL on a length or id mismatch.
  virtual Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const = 0;

  // Rebuilds the chunks in `want` from `chunks`. Chunks present in `chunks` are returned shared
  // (no copy); missing ones are rebuilt into new buffers. `decoded` may receive more chunks than
  // wanted. `chunk_size` is the full chunk size; codes with sub-chunks (CLAY) accept helpers that
  // carry only the sub-chunks minimum_to_decode asked for, in range order, and use chunk_size to
  // tell. Errors: EIO when the chunks are not enough; EINVAL when lengths disagree.
  virtual Status decode(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded,
                        std::size_t chunk_size) const = 0;
  // Rebuilds, from the chunks in `in`, every chunk that has a buffer in `out` (which must cover
  // want - in). All buffers have the same length. Errors as decode.
  virtual Status decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                               const ChunkSpans& out) const = 0;
  // Decodes (if needed) and concatenates the data chunks in `want` (all data chunks when `want` is
  // empty), in data-piece order: the stripe as it was given to encode, with its padding.
  virtual Status decode_concat(const ShardSet& want, const ChunkMap& chunks, Buffer* out) const = 0;

  // --- Beyond Ceph: sub-chunk repair of part of one chunk (the repair engine's partial repair) ---
  // Codes with sub-chunk repair (CLAY) rebuild sub-chunks [want.first, want.first + want.second)
  // of one lost chunk from part of what minimum_to_decode plans for the whole chunk.
  //
  // The sub-chunks to read from each of `helpers` (the set minimum_to_decode_with_cost({lost},
  // ...) chose) to rebuild sub-chunks `want` of `lost`: chunk id -> ranges, ascending and merged;
  // every helper is a key, with no ranges when it contributes nothing. With want = all
  // sub-chunks it equals minimum_to_decode({lost}, helpers). Errors: EOPNOTSUPP when the code
  // has no sub-chunk repair from `helpers` (every scalar code; CLAY when `helpers` is not a repair
  // set): read whole chunks through minimum_to_decode instead; EINVAL for bad ids or range.
  virtual Result<SubChunkPlan> minimum_to_repair(int lost, SubChunkRange want,
                                                 const ShardSet& helpers) const {
    (void)lost, (void)want, (void)helpers;
    return Status::Error(EOPNOTSUPP, "this code has no sub-chunk repair");
  }
  // Rebuilds sub-chunks `want` of `lost` into `out` (want.second * chunk_size /
  // get_sub_chunk_count() bytes). `helper_data` has one entry per key of minimum_to_repair(lost,
  // want, helpers): the concatenation of the sub-chunks it lists for that helper (empty when it
  // lists none). `chunk_size` is the full chunk size. The caller owns every buffer; they must not
  // overlap. Errors: EOPNOTSUPP as minimum_to_repair; EINVAL on any size or helper mismatch
  // (`out` untouched).
  virtual Status repair_sub_chunks(int lost, SubChunkRange want, const ConstChunkSpans& helper_data,
                                   std::size_t chunk_size, std::span<std::byte> out) const {
    (void)lost, (void)want, (void)helper_data, (void)chunk_size, (void)out;
    return Status::Error(EOPNOTSUPP, "this code has no sub-chunk repair");
  }
};

using ErasureCodeInterfaceRef = std::shared_ptr<ErasureCodeInterface>;

}  // namespace ec
