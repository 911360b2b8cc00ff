// What ec-bench measures: the table of codes, geometries and chunk sizes, and the codes built
// from it through the plugin registry (the plugins are loaded by name, as a daemon loads them).
//
// A CodeCase is one code (plugin, technique, k, m, and d or packetsize where they apply) at one
// chunk size. Its benchmark names carry every parameter as a /name:value part, e.g.
//   BM_Encode/plugin:isa/technique:reed_sol_van/k:8/m:3/chunk:65536/set:warm
//   BM_Encode/plugin:jerasure/technique:cauchy_good/packetsize:128/k:4/m:2/chunk:4096/set:cold
//   BM_Repair/plugin:clay/scalar_mds:jerasure/technique:reed_sol_van/k:4/m:2/d:5/lost:0/...
//   BM_Repair/plugin:lrc/k:4/m:2/l:3/lost:0/...  (l = (k+m)/gcd(k,m): as many local groups as
//   k and m allow; a lost chunk is rebuilt from the l others of its group)
//   BM_Repair/plugin:shec/technique:multiple/k:6/m:3/c:2/lost:0/...
// so that --benchmark_filter selects a configuration.
//
// Chunk sizes: the table asks for 4 KiB, 64 KiB and 1 MiB chunks. Where that is not a valid chunk
// size of the code (get_chunk_size(k * C) != C: CLAY needs a multiple of q^t * 32 bytes, the
// w=7 bit-matrix codes a multiple of 7 * packetsize * 4), the case is measured at the size the
// plugin rounds it up to, and the name carries that size; a note says so once.
// Bit-matrix techniques get packetsize = min(2048, the largest power of two <= C / (4w)), the
// largest packet for which C is a valid chunk size (Ceph's default 2048 needs C >= 64 KiB).
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ec/erasure_code_interface.h"
#include "ec/profile.h"

namespace ecbench {

// shec's c (Ceph's default): each parity covers about 2k/m data chunks.
inline constexpr int kShecC = 2;

struct CodeSpec {
  std::string plugin;      // isa, jerasure, clay, lrc, shec
  std::string technique;   // the profile's technique (none for lrc)
  std::string scalar_mds;  // clay: the plugin of its per-plane code; empty otherwise
  int w = 0;               // bit-matrix techniques: the word size (packetsize depends on it)
};

struct Geometry {
  int k;
  int m;
};

// The codes of the table, in the order their benchmarks are registered.
const std::vector<CodeSpec>& CodeSpecs();
// k+m in {4+2, 6+3, 8+3, 10+4, 12+4}.
const std::vector<Geometry>& Geometries();
// 4 KiB, 64 KiB, 1 MiB.
const std::vector<std::size_t>& ChunkSizes();

struct CodeCase {
  CodeSpec spec;
  int k = 0;
  int m = 0;
  int d = 0;           // clay only
  int packetsize = 0;  // bit-matrix techniques only
  std::size_t chunk = 0;
  ec::Profile profile;  // as normalised by the plugin
  ec::ErasureCodeInterfaceRef code;
  // "plugin:isa/technique:reed_sol_van/k:8/m:3" (the name parts that identify the code).
  std::string name;
  // Identity of the parity bytes this code computes (its normalised profile).
  std::string parity_id;
};

// Builds the cases of the table for one geometry and one requested chunk size. Codes that cannot
// be built (plugin missing, profile refused) are left out and explained in *notes, as are cases
// measured at a rounded-up chunk size. Codes are created once per profile and shared.
std::vector<CodeCase> MakeCodeCases(const Geometry& g, std::size_t requested_chunk,
                                    const std::string& plugin_dir, std::vector<std::string>* notes);

// The code the registry builds for `profile` (cached; nullptr and *error set when it cannot).
ec::ErasureCodeInterfaceRef CodeFor(const ec::Profile& profile, const std::string& plugin_dir,
                                    std::string* error);

// True when chunk id `id` of `c` holds data: the first k ids of the code's chunk mapping (lrc's
// mapping=DD__DD__ puts data in chunks 0, 1, 4, 5), ids 0..k-1 without one.
bool IsDataChunk(const CodeCase& c, int id);

// Packet size used for a bit-matrix code of word size w at chunk size `chunk`.
int PacketSizeFor(int w, std::size_t chunk);

}  // namespace ecbench
