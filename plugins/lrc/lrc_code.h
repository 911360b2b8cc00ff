// ErasureCodeLrc: Ceph's locally repairable code (ErasureCodeLrc.cc), byte-identical to it: layers
// of ordinary codes (jerasure or isa, made through the plugin registry) over subsets of the chunks.
//
//   k=4 m=2 l=3:  chunk   0  1  2  3  4  5  6  7
//                 mapping D  D  _  _  D  D  _  _     data pieces 0,1,2,3 are chunks 0,1,4,5
//                 layer 0 D  D  c  _  D  D  c  _     global: RS(4,2) over 0,1,4,5 -> 2,6
//                 layer 1 D  D  D  c  _  _  _  _     local group 0: RS(3,1) over 0,1,2 -> 3
//                 layer 2 _  _  _  _  D  D  D  c     local group 1: RS(3,1) over 4,5,6 -> 7
//   Encode runs the layers first to last. One lost chunk of a group is rebuilt from the l other
//   chunks of its group (3 reads instead of k = 4); more losses use the global layer.
//
// Profile: see lrc_profile.h (k/m/l, or mapping + layers, crush-steps, crush-locality) with Ceph's
// checks, messages and error numbers, in Ceph's order, then:
//   - every layer's profile gets plugin=jerasure, technique=reed_sol_van, k=#D, m=#c unless set,
//     and its code is made with PluginRegistry::factory(plugin, directory, ...); its errors are
//     returned as they are;
//   - kMapping "the 'mapping' profile is missing from {profile}"; the chunk count is the length
//     of `mapping` and k its number of 'D';
//   - kLayersCount "layers parameter has 0 which is less than the minimum of one. LAYERS";
//   - kMappingSize when a layer's chunk map is not as long as `mapping`;
//   - with k/m/l, the generated `mapping` and `layers` are removed from the profile again, and
//     crush-root, crush-failure-domain and crush-device-class get the base defaults; an explicit
//     profile keeps k=-1 m=-1 l=-1 as Ceph writes them.
// Beyond Ceph (profiles Ceph accepts and then encodes or decodes wrongly), each EINVAL with a
// message: a layer plugin other than jerasure or isa (layers must be MDS codes without
// sub-chunks), a layer profile whose k or m differ from its D and c counts, a mapping without a
// 'D', a layer that computes a data chunk or a chunk another layer computes, and a layer that
// reads a chunk a later layer computes.
//
// Chunk size: the first layer's get_chunk_size(stripe_width) (jerasure k=4: 1184 for 4651).
// minimum_to_decode / _with_cost: lrc_plan.h's ChooseReads (one loss of a local group reads the
// l chunks of its group; costs are honoured). decode: lrc_plan.h's ScheduleDecode, then each
// needed layer's decode_chunks. Errors: EINVAL for ids or buffer lengths (check_buffers), EIO when
// the chunks cannot rebuild what is wanted, and a layer code's own errors.
//
// Thread safety: init() alone; afterwards every const method may run concurrently (the layer
// codes are themselves safe so).
#pragma once

#include <string>
#include <vector>

#include "ec/erasure_code.h"
#include "plugins/lrc/lrc_plan.h"
#include "plugins/lrc/lrc_profile.h"

namespace ec {

class ErasureCodeLrc final : public ErasureCode {
 public:
  struct Layer {
    std::string chunks_map;
    std::vector<int> data;    // chunk ids marked 'D'
    std::vector<int> coding;  // chunk ids marked 'c'
    Profile profile;          // as normalised by the layer's code
    ErasureCodeInterfaceRef code;
  };

  // `directory` is where the layers' plugins are loaded from.
  explicit ErasureCodeLrc(std::string directory);

  // See the file comment. On error the code is unusable.
  Status init(Profile& profile) override;

  unsigned get_chunk_size(unsigned stripe_width) const override;
  // The least common multiple of the layers' granularities (0 if one of them is 0).
  std::size_t get_minimum_granularity() const override;

  Result<SubChunkPlan> minimum_to_decode(const ShardSet& want,
                                         const ShardSet& available) const override;

  // `in`: data chunks by id (absent ones are zeros; parity ids are ignored). `out`: parity
  // buffers; a parity id absent from `out` is computed into scratch (later layers may read it)
  // and dropped. A data id in `out` is EINVAL.
  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const override;
  Status decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                       const ChunkSpans& out) const override;

  const std::vector<Layer>& layers() const { return layers_; }
  // The CRUSH steps of the rule an lrc pool would use (generated, or from crush-steps).
  const std::vector<lrc::RuleStep>& rule_steps() const { return rule_steps_; }

 protected:
  // The cheapest reads through the layers (lrc::ChooseReads: a lost chunk of a local group is
  // rebuilt from its group when that costs no more than through the global layer); EIO when the
  // available chunks cannot rebuild `want`.
  Result<ShardSet> cheapest_to_decode(const ShardSet& want,
                                      const std::map<int, int>& available) const override;

 private:
  Status init_layers(const std::vector<lrc::LayerSpec>& specs, std::vector<Layer>* layers) const;
  Status check_layers(const std::string& mapping, const std::vector<Layer>& layers) const;

  std::string directory_;
  std::vector<Layer> layers_;
  std::vector<lrc::LayerShape> shapes_;
  std::vector<lrc::RuleStep> rule_steps_;
};

}  // namespace ec
