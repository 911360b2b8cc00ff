// What `ec-rados bench` measures and prints, without a cluster: the per-second progress row, the
// summary (rados bench's lines plus latency percentiles and, for reads, degraded reads), its JSON
// form, and the deterministic object content that reads are checked against. Pure functions and
// plain data; thread safety: none needed (no shared state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace ec::tools::rados {

// rados's MB: 2^20 bytes.
inline constexpr double kMiB = 1024.0 * 1024.0;

// kRewrite is ecstore's own (rados bench has no overwrite mode): see bench.h.
enum class BenchMode { kWrite, kSeq, kRand, kRewrite };

// "write", "seq", "rand", "rewrite".
const char* BenchModeName(BenchMode mode);

// Everything the summary is computed from. Bandwidths are in MB/s with rados's MB (2^20 bytes).
struct BenchResult {
  BenchMode mode = BenchMode::kWrite;
  double seconds = 0;                        // total time run: start to the last completion
  std::uint64_t ops = 0;                     // writes or reads completed
  std::uint64_t op_size = 0;                 // bytes of one write or read
  std::uint64_t object_size = 0;             // bytes of one object
  int concurrency = 0;                       // operations in flight (-t)
  std::string object_prefix;                 // write only: the objects' name prefix
  std::vector<double> latencies;             // seconds, one per completed op (any order)
  std::vector<double> bandwidth_per_second;  // MB/s of each whole second of the run
  std::vector<double> iops_per_second;       // ops completed in each whole second
  // Reads only.
  std::uint64_t mismatches = 0;  // objects read back with the wrong size or content
  std::uint64_t degraded_reads = 0;
  std::uint64_t degraded_network_bytes = 0;  // sum over the degraded reads
  std::uint64_t degraded_device_bytes = 0;   // sum over the degraded reads
  std::vector<double> degraded_latencies;    // seconds, of the degraded reads only (any order)
  std::uint64_t direct_reads = 0;            // answered by a shard's OSD without the primary
};

struct Summary {
  double total_time = 0;
  std::uint64_t ops = 0;
  std::uint64_t op_size = 0;
  std::uint64_t object_size = 0;
  double bandwidth = 0, stddev_bandwidth = 0, max_bandwidth = 0, min_bandwidth = 0;
  double average_iops = 0, stddev_iops = 0, max_iops = 0, min_iops = 0;
  double average_latency = 0, stddev_latency = 0, max_latency = 0, min_latency = 0;
  double p50_latency = 0, p99_latency = 0;
};

// The summary of a run. With no whole second sampled (a run under 1 s) the per-second figures are
// those of the run as a whole; with no op, everything is 0.
Summary Summarize(const BenchResult& r);

// The value at quantile q (0..1) of `values` by the nearest-rank method; 0 when empty.
double Percentile(std::vector<double> values, double q);
// Sample standard deviation (n - 1); 0 with fewer than two values.
double StdDev(std::span<const double> values);

// rados bench's summary lines ("Total time run:", "Bandwidth (MB/sec):", ...), then
// "Latency p50(s):", "Latency p99(s):" and, for reads, the mismatch and degraded-read lines (with
// the degraded reads' own p50 and p99: in a run where one OSD is down most reads are not degraded,
// so the overall percentiles say little about the degraded ones).
std::string FormatSummaryText(const BenchResult& r);
// The same as one JSON object, with `rados bench --format json`'s keys for what rados reports
// (Ceph's obj_bencher.cc; its units: bandwidth in MB/s of 2^20 bytes, latency in seconds):
//   write: concurrent_ios, object_size, op_size, object_prefix, total_time_run,
//          total_writes_made, write_size, bandwidth, stddev_bandwidth, max_bandwidth,
//          min_bandwidth, average_iops, stddev_iops, max_iops, min_iops, average_latency,
//          stddev_latency, max_latency, min_latency
//   seq, rand: the same with total_reads_made and read_size (rados's read summary has no
//          bandwidth deviation and extremes nor latency deviation; ours has them, named as
//          in its write summary)
// and ecstore's own keys for what rados lacks: mode, latency_p50_s, latency_p99_s and, for reads,
// mismatches, degraded_reads, degraded_read_network_bytes, degraded_read_network_bytes_per_read,
// degraded_read_device_bytes, degraded_latency_p50_s, degraded_latency_p99_s. Values are JSON
// numbers (rados's formatter quotes them as strings; float() reads both) and average_iops keeps
// its fraction (rados truncates it).
nlohmann::json SummaryJson(const BenchResult& r);

// One line of `ec-rados bench --latency-log`: the op's start as Unix time in seconds (6 decimals),
// its latency in seconds (6 decimals), and "1" for a degraded read else "0", space-separated,
// ending in a newline: "1764050000.123456 0.000231 0\n".
std::string FormatLatencyLogLine(double start_unix_seconds, double latency_seconds, bool degraded);

// The progress table's header line and one row of it, as rados prints them.
// last_latency < 0 prints "-" (nothing has completed yet).
struct ProgressRow {
  int second = 0;
  std::uint64_t in_flight = 0, started = 0, finished = 0;
  double avg_bandwidth = 0, cur_bandwidth = 0;
  double last_latency = -1, avg_latency = 0;
};
std::string ProgressHeader();
std::string FormatProgressRow(const ProgressRow& row);

// The bytes of benchmark object number `n` of `size` bytes: a pseudo-random stream seeded by n
// and size, so that every object differs and a reader can check what it got.
void FillObjectContent(std::uint64_t n, std::span<std::byte> out);
// True when `data` is exactly object n's content of `size` bytes.
bool CheckObjectContent(std::uint64_t n, std::uint64_t size, std::span<const std::byte> data);
// True when `data` is exactly bytes [offset, offset + data.size()) of object n's content of `size`
// bytes (the range within the object). Costs the range only: the stream is seekable.
bool CheckObjectRange(std::uint64_t n, std::uint64_t size, std::uint64_t offset,
                      std::span<const std::byte> data);

}  // namespace ec::tools::rados
