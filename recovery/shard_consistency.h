// CheckShards: do the shards of one object still form codewords, and if not, which shard is
// wrong? The in-process core of a deep scrub: the caller reads the shards (whole, every stripe),
// this compares them; it knows no store, no socket and no checksum.
//
// What is compared, stripe by stripe (chunk id -> bytes, C = layout.chunk_size()):
//
//   given shards   G = the keys of `shards` (any subset of 0..n-1, n = layout.chunk_count())
//   data           the k data pieces (layout.data_ids()): a given one as it is, a missing one
//                  rebuilt from G (StripeCodec::Decode)
//   parity         encoded from that data (StripeCodec::EncodeColumns)
//   consistent     every given parity id equals its encoded chunk byte for byte, in every stripe.
//                  Then G is the restriction of one codeword per stripe: a given data chunk is
//                  that codeword's data, a rebuilt one has nothing to be compared with.
//
// Localisation, when inconsistent: shard i is a candidate when the others (G \ {i}) rebuild a
// chunk i that makes every stripe consistent again, i.e. when G \ {i} is consistent. A single
// candidate is the culprit: located, bad = {i}. Only the inconsistent stripes are searched (in a
// consistent stripe every id is a candidate), and an id the others cannot rebuild (a code that is
// not MDS, e.g. shec or lrc, with an unlucky set) is no candidate: if the others do not determine
// chunk i, no value of chunk i can disagree with them.
//
// Why one candidate is the culprit: let d be the minimum distance of the code restricted to the
// positions in G (for an MDS code, |G| - k + 1). Suppose exactly one shard X is wrong. X is a
// candidate, since G \ {X} is intact. If another shard Y were one too, there would be codewords
// c_X and c_Y agreeing with G except at X and except at Y respectively; they would differ in at
// most the two positions X and Y, which is impossible for two distinct codewords when d > 2, and
// if c_X = c_Y then G itself would be consistent. So with d >= 3 (an MDS code with |G| >= k + 2,
// e.g. every shard of a code with m >= 2) a single wrong shard is always located, and with
// exactly k + 1 shards (one redundant shard, d = 2: every shard of the one parity relation is a
// candidate) localisation is impossible and never claimed. Beyond one wrong shard nothing is
// promised. Two wrong shards are never located when d >= 4, nor when their wrong bytes lie in
// different stripes (each stripe then needs its own culprit; the same holds for different byte
// offsets with a code that treats each byte offset on its own, such as Reed-Solomon over GF(2^8)).
// With d = 3, two errors in one stripe may lie one change away from another codeword, and then a
// third, intact shard is "located": the miscorrection of any decoder pushed beyond half its
// distance. So `located` is strong evidence for one bad shard, not proof; a caller that also has
// checksums should prefer them.
//
// Errors are reserved for bad arguments and broken codes; a set of shards the code cannot decode
// is an answer (checked = false), not an error.
// Thread safety: pure. The bytes of `shards` are borrowed for the call and never written; `code`
// is only used through its const methods, so one code object may serve many concurrent calls
// (see ec/stripe_codec.h). Memory: stripes are compared in batches of about 256 KiB of each shard
// (at least one stripe), so the scratch is about n x max(C, 256 KiB) whatever the shard size.
// Cost: one encode of every stripe (plus a decode of the missing data pieces); localisation
// decodes and encodes again only the inconsistent stripes, once per remaining candidate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"

namespace ec::recovery {

struct ShardCheck {
  // False when nothing could be compared: fewer than k + 1 shards given, or the code cannot
  // rebuild the missing data pieces from the given ones. The other fields are then default.
  bool checked = false;
  // Every given shard agrees with one codeword in every stripe (meaningful only when checked).
  bool consistent = false;
  // Inconsistent, and exactly one shard is a candidate (see above): bad = {that id}.
  bool located = false;
  // The located shard, or empty.
  std::vector<int> bad;
  // When inconsistent: the given parity ids that differ, in at least one stripe, from the parity
  // encoded in the first pass (a wrong data shard shows up as the parities that cover it), in
  // ascending order. A diagnostic, not a verdict: it names no data id.
  std::vector<int> mismatched;
};

// Checks `shards` (chunk id -> that shard's bytes, chunk-major: the chunk of stripe s at s * C)
// of `stripes` stripes against `code` laid out by `layout`. Returns the verdict above; with
// stripes == 0 and at least k + 1 shards, checked and consistent (nothing can disagree).
// Errors: EINVAL (checked before any byte is compared) when layout does not describe `code` (chunk
// counts differ), for an id outside [0, layout.chunk_count()) ("chunk id N is out of range") or a
// shard that is not exactly stripes * C bytes ("shard N has B bytes, expected E"); the codec's own
// error when encoding or decoding fails for any reason other than "cannot decode from this set"
// (EIO).
Result<ShardCheck> CheckShards(const ErasureCodeInterface& code, const StripeLayout& layout,
                               std::uint64_t stripes,
                               const std::map<int, std::span<const std::byte>>& shards);

}  // namespace ec::recovery
