// Baselines: the libraries under the plugins, called directly on the same arena layout and data
// as the plugin benchmarks of the same (k, m, chunk, set). Same byte accounting as
// code_benchmarks.h (encode: k x chunk; decode: bytes rebuilt; bytes_read / read_rate counters).
//
// ISA-L (names BM_RawIsa...):
//   BM_RawIsaEncode/k:K/m:M/chunk:C/set:S
//       gf_gen_rs_matrix + ec_init_tables once, then ec_encode_data per stripe. Reports
//       plugin_bytes_identical = 1 when the isa plugin's reed_sol_van parity of stripe 0 is the
//       same bytes (0 if not, -1 if the plugin is not loaded).
//   BM_RawIsaDecode/tables:per_call|cached/k:K/m:M/erasures:E/chunk:C/set:S
//       rebuilds data chunks 0 (and 1) from the first k surviving chunks: gf_invert_matrix of the
//       surviving rows, decode rows for the lost chunks, ec_init_tables, ec_encode_data.
//       per_call builds the tables on every call; cached builds them once.
// jerasure (names BM_RawJerasure...), w=8:
//   BM_RawJerasureMatrixEncode/technique:reed_sol_van|reed_sol_r6_op/k/m/chunk/set
//       jerasure_matrix_encode with reed_sol_vandermonde_coding_matrix / reed_sol_r6_coding_matrix;
//       reports plugin_bytes_identical against the jerasure plugin's parity.
//   BM_RawJerasureScheduleEncode/technique:cauchy_orig|cauchy_good/packetsize:P/k/m/chunk/set
//       jerasure_schedule_encode with the smart schedule of the Cauchy bit-matrix (Ceph's path).
//       Both encode baselines report plugin_bytes_identical against the jerasure plugin.
//   BM_RawJerasureMatrixDecode/technique:reed_sol_van/k/m/erasures:E/chunk/set
//       jerasure_matrix_decode (row_k_ones = 1, as Ceph calls it).
//   BM_RawJerasureScheduleDecodeLazy/technique:.../packetsize:P/k/m/erasures:E/chunk/set
//       jerasure_schedule_decode_lazy (smart = 1): inverts and schedules on every call, as Ceph.
// All decode baselines rebuild the lost chunks in place and are checked once against the
// original bytes before timing.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "bench/ec_bench/bench_cases.h"
#include "bench/ec_bench/bench_memory.h"

namespace ecbench {

void RegisterRawIsaBenchmarks(const Geometry& g, std::size_t chunk, WorkingSet set,
                              const std::string& plugin_dir);
void RegisterRawJerasureBenchmarks(const Geometry& g, std::size_t chunk, WorkingSet set,
                                   const std::string& plugin_dir);

// Whether the plugin code for `profile` computes, from the data of stripe 0 of `layout` in
// Arena::Data(), the parity bytes that are in place there: 1 yes, 0 no, -1 the code is not
// available. Leaves Arena::Data() unchanged (uses Arena::Scratch()).
double PluginParityMatches(const ec::Profile& profile, const Layout& layout, int k,
                           const std::string& plugin_dir);

// Checks a baseline decode once: wipes chunks `lost` of stripe 0 of `layout` in Arena::Data(),
// runs `rebuild` (which must rebuild them in place) and compares them with the originals.
// On a mismatch the originals are put back and *error says which chunk differed.
bool CheckRebuild(const Layout& layout, const std::vector<int>& lost,
                  const std::function<void()>& rebuild, std::string* error);

// Name parts: "/k:K/m:M" and "/chunk:C/set:S".
inline std::string KMPart(const Geometry& g) {
  return "/k:" + std::to_string(g.k) + "/m:" + std::to_string(g.m);
}
inline std::string ChunkSetPart(std::size_t chunk, WorkingSet set) {
  return "/chunk:" + std::to_string(chunk) + "/set:" + WorkingSetName(set);
}

}  // namespace ecbench
