// Which layers of an lrc code rebuild which chunks, and which chunks to read for that: pure
// functions over chunk ids (no bytes, no plugin), shared by minimum_to_decode and decode.
//
// A layer is a code over some of the chunks: `chunks` (its data positions first, then its
// parities) and `k`, the number of them that rebuild all the others (every layer is an MDS code:
// jerasure or isa). A layer "applies" when at least k of its chunks are known; it then rebuilds
// all of its other chunks. Layers are tried last to first (local layers before the global one,
// as Ceph does) and, unlike Ceph's single pass, again and again until nothing changes, so a chunk
// rebuilt by one layer helps any other (a local parity lost with two chunks of its group is
// rebuilt once the global layer has rebuilt them).
#pragma once

#include <map>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"

namespace ec::lrc {

struct LayerShape {
  std::vector<int> chunks;  // chunk ids: the layer's data positions, then its parities
  unsigned k = 0;           // how many of them rebuild the rest
};

// One step of a decode: `layer` rebuilds `rebuilt` from `inputs` (every chunk of the layer that is
// known at that point).
struct LayerStep {
  int layer = 0;
  ShardSet inputs;
  ShardSet rebuilt;
};

// The steps that rebuild every chunk of `targets` from the chunks of `known`, only those that
// are needed, in order. Errors: EIO "not enough chunks in {..} to read {..}" when the layers
// cannot rebuild them all.
Result<std::vector<LayerStep>> ScheduleDecode(const std::vector<LayerShape>& layers,
                                              const ShardSet& known, const ShardSet& targets);

// The chunks to read to obtain `want`, given `available` (chunk id -> cost of reading it):
// `want` itself when every wanted chunk is available; else the wanted chunks that are available
// plus, for each missing one in turn, its cheapest way: a lost chunk costs the k cheapest other
// chunks of one of its layers, each either read (its cost; nothing once chosen) or rebuilt the
// same way (so a global repair can feed a local one). On a tie the later layer wins, i.e. a local
// one: one lost chunk of a local group reads the l chunks of its group, not k.
// Whatever is returned, ScheduleDecode(layers, result, want) succeeds. Errors: EIO as
// ScheduleDecode when the available chunks cannot rebuild `want`.
Result<ShardSet> ChooseReads(const std::vector<LayerShape>& layers, const ShardSet& want,
                             const std::map<int, int>& available);

}  // namespace ec::lrc
