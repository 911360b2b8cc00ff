// Benchmarks of a plugin's code through the erasure-code interface, the way a daemon calls it.
//
//   BM_Encode  encode_chunks() on preallocated chunk buffers (no allocation, no copy).
//              Counts k x chunk data bytes per stripe.
//   BM_Decode  decode_chunks() rebuilding `erasures` lost data chunks (chunk ids 0, or 0 and 1)
//              from the first k surviving chunks, whole, into preallocated buffers (the lost
//              chunks' own places). Counts the bytes rebuilt, erasures x chunk.
//   BM_Repair  what recovery of one lost chunk (chunk 0) does: minimum_to_decode({0}, all others)
//              gives the sub-chunk plan; decode() gets exactly the planned sub-chunks of each
//              helper, concatenated in range order (gathered before timing, as a read would
//              deliver them), and chunk_size. For CLAY that is d helpers x sub_chunks/q; for the
//              scalar codes k whole chunks. Counts the bytes rebuilt (one chunk).
// Every benchmark also reports bytes_read (per operation) and read_rate (bytes read per second).
// Decode and repair results are checked once against the original bytes before timing; a
// mismatch stops the benchmark with an error instead of reporting a number.
#pragma once

#include "bench/ec_bench/bench_cases.h"
#include "bench/ec_bench/bench_memory.h"

namespace ecbench {

// Registers BM_Encode, BM_Decode (1 and, when m >= 2, 2 erasures) and BM_Repair for `c`.
void RegisterCodeBenchmarks(const CodeCase& c, WorkingSet set);

// Computes the parity of every stripe of `layout` in Arena::Data() with `c` unless the arena
// already holds it. Returns false (and sets *error) when the code refuses.
bool EnsureParity(const CodeCase& c, const Layout& layout, std::string* error);

}  // namespace ecbench
