// `ec-rados bench`: rados bench against a pool through the client library.
//
//   write  CONCURRENCY threads each keep one write_full in flight, of objects
//          <prefix>_object<N> (N = 0, 1, ...) of block_size bytes whose content is derived from N
//          (bench_report.h), for `seconds` or until max_objects are written (when not 0). With
//          --no-cleanup, the metadata object (run_name, default benchmark_last_metadata) then
//          records the prefix, the number of objects and their size so that seq and rand can read
//          them. With cleanup (rados's default) the objects are removed at the end and the
//          metadata object is not written: one a run kept with --no-cleanup wrote stays valid
//          (unless that run had this run's prefix, i.e. the same run name: its objects were
//          overwritten, so they and the metadata are removed too). <prefix> is
//          benchmark_data_<host>_<pid>, or the run name when there is one.
//   seq    reads the objects in order, whole, until all are read or `seconds` have passed.
//   rand   reads objects picked at random, whole, for `seconds`; with read_size (ecstore's own
//          --read-size), read_size bytes at a random read_size-aligned offset of each (it must
//          divide the objects' size): small reads inside objects, which a clean PG serves by a
//          direct read from the shard holding them (cluster/client/rados.h).
//   rewrite (ecstore's own: rados bench has none) overwrites block_size bytes at a random
//          block-aligned offset of objects picked at random, for `seconds`: small writes inside
//          existing objects (the objects a write --no-cleanup run left, of their size; block_size
//          must divide it). Each overwrite writes the bytes the object already holds there (its
//          pattern), so that seq and rand still check every byte afterwards.
// Every read is checked against the content its writer derived from N; a wrong size or byte is a
// mismatch, counted (and the first few named on `err`), never fatal to the run.
//
// Ending early: when `options.stop` is set (e.g. by a SIGINT/SIGTERM handler), no new op starts
// and the run ends as if its time were up (the summary covers what completed). With
// `options.latency_log`, each completed op is one line there (FormatLatencyLogLine), so that a
// caller can cut the run into time windows (before / during recovery).
// Errors: the first failed write, read or remove stops the run and is returned ("writing OBJ:
// (5) Input/output error: ..."); a read run without metadata is ENOENT ("no benchmark data ...");
// metadata that does not parse is EINVAL. Thread safety: one call at a time per IoCtx is not
// required (the client library is thread-safe); the call blocks until its threads are done.
#pragma once

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "cluster/client/rados.h"
#include "common/status.h"
#include "tools/ec_rados/bench_report.h"

namespace ec::tools::rados {

inline constexpr const char* kDefaultRunName = "benchmark_last_metadata";
inline constexpr std::uint64_t kDefaultBlockSize = 4 << 20;
inline constexpr int kDefaultConcurrency = 16;

struct BenchOptions {
  int seconds = 10;
  BenchMode mode = BenchMode::kWrite;
  std::uint64_t block_size = kDefaultBlockSize;  // write and rewrite; reads use the written size
  int concurrency = kDefaultConcurrency;
  bool cleanup = true;            // write only
  std::uint64_t max_objects = 0;  // write only: stop after this many objects (0: no limit)
  std::uint64_t read_size = 0;    // rand only: bytes per read (0: whole objects)
  std::string run_name;           // the metadata object; empty: benchmark_last_metadata
  bool progress = true;           // print the preamble and the per-second table on `out`
  // Write only: the object name prefix; empty: benchmark_data_<hostname>_<pid>, or with a
  // run_name, <run_name>.
  std::string object_prefix;
  // Not owned; may be null. Read (never written) by the run's threads.
  const std::atomic<bool>* stop = nullptr;
  // Not owned; may be null. One line per completed op, written under the run's lock and flushed.
  std::ostream* latency_log = nullptr;
};

// The benchmark's objects as the metadata object records them.
struct BenchMetadata {
  std::string prefix;
  std::uint64_t num_objects = 0;
  std::uint64_t object_size = 0;
};

// Runs one benchmark. The progress table and the cleanup lines go to `out` (when
// options.progress), mismatch details to `err`. The summary is the caller's to print.
Result<BenchResult> RunBench(cluster::client::IoCtx& io, const BenchOptions& options,
                             std::ostream& out, std::ostream& err);

// `rados cleanup`: removes every object of every write run under `run_name` (empty: the default,
// benchmark_last_metadata) that the pool holds, not only the last run's: the objects IsBenchObject
// recognises and those of the prefix the metadata object names, found by listing the pool (an
// earlier run's objects outlive its metadata when a later run with the same name replaced it);
// then the metadata object. `concurrency` removes in flight. Returns how many objects were
// removed (0, and no error, when there is nothing: as rados). Errors: the listing's; the first
// failed remove; a metadata object that cannot be read (other than missing or not parsing).
Result<std::uint64_t> CleanupBench(cluster::client::IoCtx& io, const std::string& run_name,
                                   int concurrency);

// Whether `name` is an object of a write run under `run_name`: "<run_name>_object<N>"; for the
// default run name (empty or benchmark_last_metadata) "benchmark_data_<host>_<pid>_object<N>" of
// any host and process (they all share the default metadata object). rados's own cleanup limits
// the default to this host's objects.
bool IsBenchObject(std::string_view name, const std::string& run_name);

// The name of object n of a run.
std::string BenchObjectName(const std::string& prefix, std::uint64_t n);
// Metadata to and from its stored bytes (JSON). Parse errors: EINVAL naming what is wrong.
std::string EncodeBenchMetadata(const BenchMetadata& m);
Result<BenchMetadata> DecodeBenchMetadata(std::string_view bytes);

}  // namespace ec::tools::rados
