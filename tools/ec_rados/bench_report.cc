#include "tools/ec_rados/bench_report.h"

#include <cstdio>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace ec::tools::rados {
namespace {

constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ULL;

std::uint64_t SplitMix64(std::uint64_t* state) {
  std::uint64_t z = (*state += kGamma);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t Seed(std::uint64_t n, std::uint64_t size) {
  return n * 0x2545f4914f6cdd1dULL ^ (size + 0x632be59bd9b4e019ULL);
}

// rados prints its doubles with the stream's default (6 significant digits).
std::string Num(double v) {
  return fmt::format("{:g}", v);
}

std::string Line(const std::string& label, const std::string& value) {
  return fmt::format("{:<24}{}\n", label, value);
}

bool IsRead(BenchMode m) {
  return m == BenchMode::kSeq || m == BenchMode::kRand;
}

}  // namespace

const char* BenchModeName(BenchMode mode) {
  switch (mode) {
    case BenchMode::kWrite:
      return "write";
    case BenchMode::kSeq:
      return "seq";
    case BenchMode::kRand:
      return "rand";
    case BenchMode::kRewrite:
      return "rewrite";
  }
  return "?";
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // Nearest rank: the smallest value with at least q of the values at or below it.
  std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  rank = std::clamp<std::size_t>(rank, 1, values.size());
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank - 1),
                   values.end());
  return values[rank - 1];
}

double StdDev(std::span<const double> values) {
  if (values.size() < 2) return 0;
  const double mean =
      std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) sq += (v - mean) * (v - mean);
  return std::sqrt(sq / static_cast<double>(values.size() - 1));
}

Summary Summarize(const BenchResult& r) {
  Summary s;
  s.total_time = r.seconds;
  s.ops = r.ops;
  s.op_size = r.op_size;
  s.object_size = r.object_size;
  if (r.ops == 0 || r.seconds <= 0) return s;
  s.bandwidth = static_cast<double>(r.ops) * static_cast<double>(r.op_size) / kMiB / r.seconds;
  s.average_iops = static_cast<double>(r.ops) / r.seconds;
  std::vector<double> bw = r.bandwidth_per_second;
  std::vector<double> iops = r.iops_per_second;
  if (bw.empty()) bw.push_back(s.bandwidth);
  if (iops.empty()) iops.push_back(s.average_iops);
  s.stddev_bandwidth = StdDev(bw);
  s.max_bandwidth = *std::max_element(bw.begin(), bw.end());
  s.min_bandwidth = *std::min_element(bw.begin(), bw.end());
  s.stddev_iops = StdDev(iops);
  s.max_iops = *std::max_element(iops.begin(), iops.end());
  s.min_iops = *std::min_element(iops.begin(), iops.end());
  if (!r.latencies.empty()) {
    s.average_latency = std::accumulate(r.latencies.begin(), r.latencies.end(), 0.0) /
                        static_cast<double>(r.latencies.size());
    s.stddev_latency = StdDev(r.latencies);
    s.max_latency = *std::max_element(r.latencies.begin(), r.latencies.end());
    s.min_latency = *std::min_element(r.latencies.begin(), r.latencies.end());
    s.p50_latency = Percentile(r.latencies, 0.50);
    s.p99_latency = Percentile(r.latencies, 0.99);
  }
  return s;
}

std::string FormatSummaryText(const BenchResult& r) {
  const Summary s = Summarize(r);
  const bool read = IsRead(r.mode);
  std::string out;
  out += Line("Total time run:", Num(s.total_time));
  out += Line(read ? "Total reads made:" : "Total writes made:", std::to_string(s.ops));
  out += Line(read ? "Read size:" : "Write size:", std::to_string(s.op_size));
  out += Line("Object size:", std::to_string(s.object_size));
  out += Line("Bandwidth (MB/sec):", Num(s.bandwidth));
  out += Line("Stddev Bandwidth:", Num(s.stddev_bandwidth));
  out += Line("Max bandwidth (MB/sec):", Num(s.max_bandwidth));
  out += Line("Min bandwidth (MB/sec):", Num(s.min_bandwidth));
  // rados prints the IOPS figures as whole numbers.
  out += Line("Average IOPS:", std::to_string(static_cast<std::int64_t>(s.average_iops)));
  out += Line("Stddev IOPS:", Num(s.stddev_iops));
  out += Line("Max IOPS:", std::to_string(static_cast<std::int64_t>(s.max_iops)));
  out += Line("Min IOPS:", std::to_string(static_cast<std::int64_t>(s.min_iops)));
  out += Line("Average Latency(s):", Num(s.average_latency));
  out += Line("Stddev Latency(s):", Num(s.stddev_latency));
  out += Line("Max latency(s):", Num(s.max_latency));
  out += Line("Min latency(s):", Num(s.min_latency));
  out += Line("Latency p50(s):", Num(s.p50_latency));
  out += Line("Latency p99(s):", Num(s.p99_latency));
  if (read) {
    out += Line("Mismatches:", std::to_string(r.mismatches));
    out += Line("Direct reads:", std::to_string(r.direct_reads));
    out += Line("Degraded reads:", std::to_string(r.degraded_reads));
    const double per = r.degraded_reads == 0 ? 0
                                             : static_cast<double>(r.degraded_network_bytes) /
                                                   static_cast<double>(r.degraded_reads);
    out += fmt::format("Degraded read network bytes: {} ({} per degraded read)\n",
                       r.degraded_network_bytes, Num(per));
    if (!r.degraded_latencies.empty()) {
      out += Line("Degraded lat p50(s):", Num(Percentile(r.degraded_latencies, 0.5)));
      out += Line("Degraded lat p99(s):", Num(Percentile(r.degraded_latencies, 0.99)));
    }
  }
  return out;
}

nlohmann::json SummaryJson(const BenchResult& r) {
  const Summary s = Summarize(r);
  const bool read = IsRead(r.mode);
  nlohmann::json j;
  j["mode"] = BenchModeName(r.mode);
  if (!read) {
    // What rados prints before a write run.
    j["concurrent_ios"] = r.concurrency;
    j["op_size"] = s.op_size;
    j["object_prefix"] = r.object_prefix;
  }
  j["total_time_run"] = s.total_time;
  j[read ? "total_reads_made" : "total_writes_made"] = s.ops;
  j[read ? "read_size" : "write_size"] = s.op_size;
  j["object_size"] = s.object_size;
  j["bandwidth"] = s.bandwidth;
  j["stddev_bandwidth"] = s.stddev_bandwidth;
  j["max_bandwidth"] = s.max_bandwidth;
  j["min_bandwidth"] = s.min_bandwidth;
  j["average_iops"] = s.average_iops;
  j["stddev_iops"] = s.stddev_iops;
  j["max_iops"] = s.max_iops;
  j["min_iops"] = s.min_iops;
  j["average_latency"] = s.average_latency;
  j["stddev_latency"] = s.stddev_latency;
  j["max_latency"] = s.max_latency;
  j["min_latency"] = s.min_latency;
  j["latency_p50_s"] = s.p50_latency;
  j["latency_p99_s"] = s.p99_latency;
  if (read) {
    j["mismatches"] = r.mismatches;
    j["direct_reads"] = r.direct_reads;
    j["degraded_reads"] = r.degraded_reads;
    j["degraded_read_network_bytes"] = r.degraded_network_bytes;
    j["degraded_read_network_bytes_per_read"] =
        r.degraded_reads == 0
            ? 0.0
            : static_cast<double>(r.degraded_network_bytes) / static_cast<double>(r.degraded_reads);
    j["degraded_read_device_bytes"] = r.degraded_device_bytes;
    if (!r.degraded_latencies.empty()) {
      j["degraded_latency_p50_s"] = Percentile(r.degraded_latencies, 0.5);
      j["degraded_latency_p99_s"] = Percentile(r.degraded_latencies, 0.99);
    }
  }
  return j;
}

std::string FormatLatencyLogLine(double start_unix_seconds, double latency_seconds, bool degraded) {
  char line[96];
  std::snprintf(line, sizeof line, "%.6f %.6f %d\n", start_unix_seconds, latency_seconds,
                degraded ? 1 : 0);
  return line;
}

std::string ProgressHeader() {
  return fmt::format("{:>5}{:>8}{:>10}{:>10}{:>10}{:>10}{:>12}{:>12}\n", "sec", "Cur ops",
                     "started", "finished", "avg MB/s", "cur MB/s", "last lat(s)", "avg lat(s)");
}

std::string FormatProgressRow(const ProgressRow& row) {
  const std::string last = row.last_latency < 0 ? "-" : Num(row.last_latency);
  return fmt::format("{:>5} {:>7} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11}\n", row.second,
                     row.in_flight, row.started, row.finished, Num(row.avg_bandwidth),
                     Num(row.cur_bandwidth), last, Num(row.avg_latency));
}

void FillObjectContent(std::uint64_t n, std::span<std::byte> out) {
  std::uint64_t state = Seed(n, out.size());
  std::size_t i = 0;
  for (; i + 8 <= out.size(); i += 8) {
    const std::uint64_t w = SplitMix64(&state);
    std::memcpy(out.data() + i, &w, 8);
  }
  if (i < out.size()) {
    const std::uint64_t w = SplitMix64(&state);
    std::memcpy(out.data() + i, &w, out.size() - i);
  }
}

bool CheckObjectContent(std::uint64_t n, std::uint64_t size, std::span<const std::byte> data) {
  if (data.size() != size) return false;
  std::uint64_t state = Seed(n, size);
  std::size_t i = 0;
  for (; i + 8 <= data.size(); i += 8) {
    const std::uint64_t w = SplitMix64(&state);
    if (std::memcmp(data.data() + i, &w, 8) != 0) return false;
  }
  if (i < data.size()) {
    const std::uint64_t w = SplitMix64(&state);
    if (std::memcmp(data.data() + i, &w, data.size() - i) != 0) return false;
  }
  return true;
}

bool CheckObjectRange(std::uint64_t n, std::uint64_t size, std::uint64_t offset,
                      std::span<const std::byte> data) {
  if (offset > size || data.size() > size - offset) return false;
  if (data.empty()) return true;  // (and memcmp may not be given its null data())
  // Word j of the stream is SplitMix64 of the state after j steps: seed + j * gamma.
  const std::uint64_t seed = Seed(n, size);
  std::uint64_t word = offset / 8;
  std::size_t i = 0;
  // A partial first word, whole words (compared as integers), a partial last word.
  const auto partial = [&](std::size_t from, std::size_t take) {
    std::uint64_t state = seed + word++ * kGamma;
    const std::uint64_t w = SplitMix64(&state);
    std::byte bytes[8];
    std::memcpy(bytes, &w, 8);
    const bool same = std::memcmp(data.data() + i, bytes + from, take) == 0;
    i += take;
    return same;
  };
  if (offset % 8 != 0 && !partial(offset % 8, std::min<std::size_t>(8 - offset % 8, data.size()))) {
    return false;
  }
  std::uint64_t state = seed + word * kGamma;
  for (; i + 8 <= data.size(); i += 8, ++word) {
    std::uint64_t got;
    std::memcpy(&got, data.data() + i, 8);
    if (got != SplitMix64(&state)) return false;
  }
  return i == data.size() || partial(0, data.size() - i);
}

}  // namespace ec::tools::rados
