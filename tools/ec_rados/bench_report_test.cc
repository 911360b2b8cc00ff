// bench_report and the bench metadata codec without a cluster: percentiles and deviations, the
// summary's lines and JSON keys (rados bench's), the progress row, the object content and its
// check, metadata that does not parse, and which objects `cleanup` takes for a run name.
#include "tools/ec_rados/bench_report.h"

#include <gtest/gtest.h>

#include <vector>

#include "tools/ec_rados/bench.h"

namespace ec::tools::rados {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(BenchReport, PercentileAndStdDev) {
  EXPECT_EQ(Percentile({}, 0.5), 0);
  EXPECT_EQ(Percentile({3}, 0.99), 3);
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  EXPECT_EQ(Percentile(v, 0.50), 50);
  EXPECT_EQ(Percentile(v, 0.99), 99);
  EXPECT_EQ(Percentile(v, 1.0), 100);
  EXPECT_EQ(Percentile(v, 0.0), 1);
  EXPECT_EQ(StdDev(std::vector<double>{5}), 0);
  EXPECT_NEAR(StdDev(std::vector<double>{2, 4, 4, 4, 5, 5, 7, 9}), 2.138, 1e-3);
}

TEST(BenchReport, LatencyLogLine) {
  EXPECT_EQ(FormatLatencyLogLine(1764050000.1234567, 0.000231, false),
            "1764050000.123457 0.000231 0\n");
  EXPECT_EQ(FormatLatencyLogLine(12.5, 1.25, true), "12.500000 1.250000 1\n");
}

BenchResult SampleRead() {
  BenchResult r;
  r.mode = BenchMode::kSeq;
  r.seconds = 2;
  r.ops = 4;
  r.op_size = 1 << 20;
  r.object_size = 1 << 20;
  r.latencies = {0.1, 0.2, 0.3, 0.4};
  r.bandwidth_per_second = {1, 3};
  r.iops_per_second = {1, 3};
  r.degraded_reads = 2;
  r.degraded_network_bytes = 3000;
  r.degraded_latencies = {0.3, 0.1};
  return r;
}

TEST(BenchReport, SummaryFigures) {
  const Summary s = Summarize(SampleRead());
  EXPECT_DOUBLE_EQ(s.bandwidth, 2.0);  // 4 MiB in 2 s
  EXPECT_DOUBLE_EQ(s.average_iops, 2.0);
  EXPECT_DOUBLE_EQ(s.max_bandwidth, 3);
  EXPECT_DOUBLE_EQ(s.min_bandwidth, 1);
  EXPECT_NEAR(s.average_latency, 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(s.max_latency, 0.4);
  EXPECT_DOUBLE_EQ(s.min_latency, 0.1);
  EXPECT_DOUBLE_EQ(s.p50_latency, 0.2);
  EXPECT_DOUBLE_EQ(s.p99_latency, 0.4);
  // A run shorter than a second: the run's own figures stand in for the per-second samples.
  BenchResult quick = SampleRead();
  quick.bandwidth_per_second.clear();
  quick.iops_per_second.clear();
  const Summary q = Summarize(quick);
  EXPECT_DOUBLE_EQ(q.max_bandwidth, 2.0);
  EXPECT_DOUBLE_EQ(q.min_iops, 2.0);
  // Nothing done: zeros, no division by zero.
  const Summary none = Summarize(BenchResult{});
  EXPECT_EQ(none.bandwidth, 0);
  EXPECT_EQ(none.max_latency, 0);
}

TEST(BenchReport, TextHasRadosLinesAndOurs) {
  const std::string read = FormatSummaryText(SampleRead());
  for (const char* line : {"Total time run:         2\n",
                           "Total reads made:       4\n",
                           "Read size:              1048576\n",
                           "Object size:            1048576\n",
                           "Bandwidth (MB/sec):     2\n",
                           "Stddev Bandwidth:",
                           "Max bandwidth (MB/sec): 3\n",
                           "Min bandwidth (MB/sec): 1\n",
                           "Average IOPS:           2\n",
                           "Stddev IOPS:",
                           "Max IOPS:               3\n",
                           "Min IOPS:               1\n",
                           "Average Latency(s):     0.25\n",
                           "Stddev Latency(s):",
                           "Max latency(s):         0.4\n",
                           "Min latency(s):         0.1\n",
                           "Latency p50(s):         0.2\n",
                           "Latency p99(s):         0.4\n",
                           "Mismatches:             0\n",
                           "Degraded reads:         2\n",
                           "Degraded read network bytes: 3000 (1500 per degraded read)\n",
                           "Degraded lat p50(s):    0.1\n",
                           "Degraded lat p99(s):    0.3\n"}) {
    EXPECT_TRUE(Contains(read, line)) << line << "\n" << read;
  }
  BenchResult w = SampleRead();
  w.mode = BenchMode::kWrite;
  const std::string write = FormatSummaryText(w);
  EXPECT_TRUE(Contains(write, "Total writes made:      4\n")) << write;
  EXPECT_TRUE(Contains(write, "Write size:             1048576\n")) << write;
  EXPECT_FALSE(Contains(write, "Degraded")) << write;
}

TEST(BenchReport, JsonKeys) {
  const nlohmann::json j = SummaryJson(SampleRead());
  EXPECT_EQ(j["mode"], "seq");
  EXPECT_EQ(j["total_reads_made"], 4);
  EXPECT_EQ(j["read_size"], 1 << 20);
  EXPECT_DOUBLE_EQ(j["bandwidth"].get<double>(), 2.0);  // MB/s, as rados
  EXPECT_DOUBLE_EQ(j["latency_p99_s"].get<double>(), 0.4);
  EXPECT_EQ(j["degraded_reads"], 2);
  EXPECT_EQ(j["degraded_read_network_bytes"], 3000);
  EXPECT_DOUBLE_EQ(j["degraded_read_network_bytes_per_read"].get<double>(), 1500);
  EXPECT_EQ(j["mismatches"], 0);
  EXPECT_DOUBLE_EQ(j["degraded_latency_p50_s"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(j["degraded_latency_p99_s"].get<double>(), 0.3);
  BenchResult clean = SampleRead();
  clean.degraded_latencies.clear();
  EXPECT_FALSE(SummaryJson(clean).contains("degraded_latency_p50_s"));
  // rados bench --format json's keys for a read run (src/common/obj_bencher.cc), numbers.
  for (const char* key : {"total_time_run", "total_reads_made", "read_size", "object_size",
                          "bandwidth", "average_iops", "stddev_iops", "max_iops", "min_iops",
                          "average_latency", "max_latency", "min_latency",
                          // rados's write keys for what our read summary has too
                          "stddev_bandwidth", "max_bandwidth", "min_bandwidth", "stddev_latency",
                          // ours
                          "latency_p50_s", "latency_p99_s"}) {
    EXPECT_TRUE(j.contains(key) && j[key].is_number()) << key;
  }
  for (const char* key : {"total_reads_made", "read_size", "object_size"}) {
    EXPECT_TRUE(j[key].is_number_unsigned()) << key;
  }
  // The old names are gone.
  for (const char* key :
       {"bandwidth_mb_sec", "max_bandwidth_mb_sec", "min_bandwidth_mb_sec", "average_latency_s",
        "stddev_latency_s", "max_latency_s", "min_latency_s"}) {
    EXPECT_FALSE(j.contains(key)) << key;
  }
  EXPECT_FALSE(j.contains("total_writes_made"));
  EXPECT_FALSE(j.contains("concurrent_ios"));

  BenchResult w = SampleRead();
  w.mode = BenchMode::kWrite;
  w.concurrency = 16;
  w.object_prefix = "benchmark_data_h_42";
  const nlohmann::json jw = SummaryJson(w);
  EXPECT_EQ(jw["total_writes_made"], 4);
  EXPECT_EQ(jw["write_size"], 1 << 20);
  EXPECT_EQ(jw["op_size"], 1 << 20);
  EXPECT_EQ(jw["concurrent_ios"], 16);
  EXPECT_EQ(jw["object_prefix"], "benchmark_data_h_42");
  EXPECT_FALSE(jw.contains("degraded_reads"));
  EXPECT_FALSE(jw.contains("total_reads_made"));
  // Every key of rados bench's write JSON.
  for (const char* key :
       {"concurrent_ios", "object_size", "op_size", "total_time_run", "total_writes_made",
        "write_size", "bandwidth", "stddev_bandwidth", "max_bandwidth", "min_bandwidth",
        "average_iops", "stddev_iops", "max_iops", "min_iops", "average_latency", "stddev_latency",
        "max_latency", "min_latency"}) {
    EXPECT_TRUE(jw.contains(key) && jw[key].is_number()) << key;
  }
}

TEST(BenchReport, ProgressTable) {
  EXPECT_EQ(ProgressHeader(),
            "  sec Cur ops   started  finished  avg MB/s  cur MB/s last lat(s)  avg lat(s)\n");
  ProgressRow row;
  row.second = 0;
  EXPECT_EQ(FormatProgressRow(row),
            "    0       0         0         0         0         0           -           0\n");
  row = {3, 16, 100, 84, 112, 120.5, 0.5, 0.55};
  EXPECT_EQ(FormatProgressRow(row),
            "    3      16       100        84       112     120.5         0.5        0.55\n");
}

TEST(BenchReport, ObjectContentIsPerObjectAndChecked) {
  for (std::size_t size : {0u, 1u, 7u, 8u, 4096u, 5001u}) {
    std::vector<std::byte> a(size), b(size);
    FillObjectContent(1, a);
    FillObjectContent(1, b);
    EXPECT_EQ(a, b);
    EXPECT_TRUE(CheckObjectContent(1, size, a)) << size;
    EXPECT_FALSE(CheckObjectContent(2, size, a) && size >= 8) << size;
    if (size > 0) {
      a[size - 1] ^= std::byte{1};
      EXPECT_FALSE(CheckObjectContent(1, size, a)) << size;
      EXPECT_FALSE(CheckObjectContent(1, size + 1, b)) << size;  // wrong size
    }
  }
  std::vector<std::byte> one(64), two(64);
  FillObjectContent(1, one);
  FillObjectContent(2, two);
  EXPECT_NE(one, two);
}

// Any range of an object checks as the bytes of the whole object there (the stream is seekable).
TEST(BenchReport, ObjectRangesCheckAgainstTheWholeObject) {
  const std::size_t size = 5001;
  std::vector<std::byte> whole(size);
  FillObjectContent(3, whole);
  for (std::size_t off : {0u, 1u, 7u, 8u, 13u, 4096u, 5000u}) {
    for (std::size_t len : {0u, 1u, 5u, 8u, 100u}) {
      if (off + len > size) continue;
      std::vector<std::byte> part(whole.begin() + static_cast<std::ptrdiff_t>(off),
                                  whole.begin() + static_cast<std::ptrdiff_t>(off + len));
      EXPECT_TRUE(CheckObjectRange(3, size, off, part)) << off << "+" << len;
      if (len > 0) {
        part[len / 2] ^= std::byte{0x40};
        EXPECT_FALSE(CheckObjectRange(3, size, off, part)) << off << "+" << len;
      }
    }
  }
  EXPECT_FALSE(CheckObjectRange(3, size, 5000, std::vector<std::byte>(2)));  // past the end
  EXPECT_TRUE(CheckObjectRange(3, size, 0, whole));
  EXPECT_FALSE(CheckObjectRange(4, size, 0, whole));
}

TEST(BenchMetadata, RoundTripAndBadInput) {
  BenchMetadata m{"benchmark_data_h_42", 17, 4096};
  auto back = DecodeBenchMetadata(EncodeBenchMetadata(m));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->prefix, m.prefix);
  EXPECT_EQ(back->num_objects, 17u);
  EXPECT_EQ(back->object_size, 4096u);
  EXPECT_EQ(BenchObjectName("p", 3), "p_object3");
  for (const char* bad : {"", "garbage", "[]", R"({"num_objects":1,"object_size":1})",
                          R"({"prefix":"","num_objects":1,"object_size":1})",
                          R"({"prefix":"p","num_objects":0,"object_size":1})",
                          R"({"prefix":"p","num_objects":-1,"object_size":1})",
                          R"({"prefix":"p","num_objects":1,"object_size":"1"})",
                          R"({"prefix":"p","num_objects":1,"object_size":1e30})",
                          R"({"prefix":"p","num_objects":1,"object_size":99999999999})"}) {
    auto r = DecodeBenchMetadata(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), EINVAL) << bad;
  }
}

// cleanup takes every run's objects under a name, never the metadata object or a look-alike.
TEST(BenchMetadata, WhichObjectsARunNameCovers) {
  EXPECT_TRUE(IsBenchObject("mybench_object0", "mybench"));
  EXPECT_TRUE(IsBenchObject("mybench_object12345", "mybench"));
  EXPECT_FALSE(IsBenchObject("mybench", "mybench"));
  EXPECT_FALSE(IsBenchObject("mybench_object", "mybench"));
  EXPECT_FALSE(IsBenchObject("mybench_object1x", "mybench"));
  EXPECT_FALSE(IsBenchObject("mybench_object1_object2", "mybench"));
  EXPECT_FALSE(IsBenchObject("other_object1", "mybench"));
  EXPECT_FALSE(IsBenchObject("benchmark_data_h_42_object0", "mybench"));
  // The default name: every host's and process's runs.
  for (const std::string& name : {std::string(), std::string(kDefaultRunName)}) {
    EXPECT_TRUE(IsBenchObject("benchmark_data_h_42_object0", name));
    EXPECT_TRUE(IsBenchObject("benchmark_data_other-host_7_object31", name));
    EXPECT_FALSE(IsBenchObject("benchmark_data__object0", name));
    EXPECT_FALSE(IsBenchObject("benchmark_data_h_42_object", name));
    EXPECT_FALSE(IsBenchObject("benchmark_data_h_42", name));
    EXPECT_FALSE(IsBenchObject("benchmark_last_metadata", name));
    EXPECT_FALSE(IsBenchObject("mybench_object0", name));
    EXPECT_FALSE(IsBenchObject("user_benchmark_data_h_1_object0", name));
  }
  // An explicit --run-name benchmark_last_metadata names its objects after itself.
  EXPECT_TRUE(IsBenchObject("benchmark_last_metadata_object3", kDefaultRunName));
  EXPECT_EQ(BenchObjectName("mybench", 7), "mybench_object7");
  EXPECT_TRUE(IsBenchObject(BenchObjectName("mybench", 7), "mybench"));
}

}  // namespace
}  // namespace ec::tools::rados
