#include "common/metrics.h"

#include <gtest/gtest.h>

#include <limits>
#include <thread>

namespace ec {
namespace {

TEST(Metrics, TextFormatExactly) {
  MetricsRegistry r;
  r.GetCounter("ecstore_test_ops_total", "Operations served.", {{"op", "read"}}).Inc(3);
  r.GetCounter("ecstore_test_ops_total", "Operations served.", {{"op", "wr\"ite\n\\"}}).Inc();
  r.GetGauge("ecstore_test_inflight", "In flight.\nSecond \\ line").Set(-2);
  Histogram& h = r.GetHistogram("ecstore_test_latency_seconds", "Latency.",
                                {{"op", "read"}, {"dev", "a"}}, {0.25, 0.5, 1});
  for (double v : {0.125, 0.25, 0.75, 4.0}) h.Observe(v);  // 0.25 lands in le="0.25"
  r.GetHistogram("ecstore_test_latency_seconds", "Latency.", {{"dev", "b"}, {"op", "read"}},
                 {0.25, 0.5, 1});

  const std::string expected =
      "# HELP ecstore_test_inflight In flight.\\nSecond \\\\ line\n"
      "# TYPE ecstore_test_inflight gauge\n"
      "ecstore_test_inflight -2\n"
      "# HELP ecstore_test_latency_seconds Latency.\n"
      "# TYPE ecstore_test_latency_seconds histogram\n"
      "ecstore_test_latency_seconds_bucket{dev=\"a\",op=\"read\",le=\"0.25\"} 2\n"
      "ecstore_test_latency_seconds_bucket{dev=\"a\",op=\"read\",le=\"0.5\"} 2\n"
      "ecstore_test_latency_seconds_bucket{dev=\"a\",op=\"read\",le=\"1\"} 3\n"
      "ecstore_test_latency_seconds_bucket{dev=\"a\",op=\"read\",le=\"+Inf\"} 4\n"
      "ecstore_test_latency_seconds_sum{dev=\"a\",op=\"read\"} 5.125\n"
      "ecstore_test_latency_seconds_count{dev=\"a\",op=\"read\"} 4\n"
      "ecstore_test_latency_seconds_bucket{dev=\"b\",op=\"read\",le=\"0.25\"} 0\n"
      "ecstore_test_latency_seconds_bucket{dev=\"b\",op=\"read\",le=\"0.5\"} 0\n"
      "ecstore_test_latency_seconds_bucket{dev=\"b\",op=\"read\",le=\"1\"} 0\n"
      "ecstore_test_latency_seconds_bucket{dev=\"b\",op=\"read\",le=\"+Inf\"} 0\n"
      "ecstore_test_latency_seconds_sum{dev=\"b\",op=\"read\"} 0\n"
      "ecstore_test_latency_seconds_count{dev=\"b\",op=\"read\"} 0\n"
      "# HELP ecstore_test_ops_total Operations served.\n"
      "# TYPE ecstore_test_ops_total counter\n"
      "ecstore_test_ops_total{op=\"read\"} 3\n"
      "ecstore_test_ops_total{op=\"wr\\\"ite\\n\\\\\"} 1\n";
  EXPECT_EQ(r.RenderPrometheus(), expected);
}

TEST(Metrics, SameNameAndLabelsIsTheSameChild) {
  MetricsRegistry r;
  Counter& a = r.GetCounter("c_total", "h", {{"x", "1"}, {"y", "2"}});
  Counter& b = r.GetCounter("c_total", "h", {{"y", "2"}, {"x", "1"}});
  Counter& other = r.GetCounter("c_total", "h", {{"x", "1"}, {"y", "3"}});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &other);
  EXPECT_EQ(r.RenderPrometheus(),
            "# HELP c_total h\n# TYPE c_total counter\nc_total{x=\"1\",y=\"2\"} 0\n"
            "c_total{x=\"1\",y=\"3\"} 0\n");
}

TEST(Metrics, HistogramBuckets) {
  Histogram h({0.001, 0.01});
  h.Observe(0.0);
  h.Observe(0.001);
  h.Observe(0.0011);
  h.Observe(1e9);
  h.Observe(std::numeric_limits<double>::quiet_NaN());  // dropped
  h.ObserveDuration(std::chrono::milliseconds(5));
  EXPECT_EQ(h.BucketCounts(), (std::vector<std::uint64_t>{2, 2, 1}));
  EXPECT_DOUBLE_EQ(h.Sum(), 0.001 + 0.0011 + 1e9 + 0.005);

  const std::vector<double> d = DefaultLatencyBuckets();
  ASSERT_FALSE(d.empty());
  EXPECT_DOUBLE_EQ(d.front(), 0.00005);
  EXPECT_DOUBLE_EQ(d.back(), 10.0);
  for (std::size_t i = 1; i < d.size(); ++i) EXPECT_LT(d[i - 1], d[i]);
}

TEST(Metrics, ValueFormatting) {
  EXPECT_EQ(FormatMetricValue(0), "0");
  EXPECT_EQ(FormatMetricValue(2.5), "2.5");
  EXPECT_EQ(FormatMetricValue(0.00005), "5e-05");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(Metrics, ConcurrentUpdatesSum) {
  MetricsRegistry r;
  constexpr int kThreads = 4;
  constexpr int kIters = 50000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&r, t] {
      // Each thread looks the children up itself: registration races with updates.
      Counter& c = r.GetCounter("ops_total", "ops", {{"op", "read"}});
      Counter& mine = r.GetCounter("ops_total", "ops", {{"op", std::to_string(t)}});
      Gauge& g = r.GetGauge("inflight", "in flight");
      Histogram& h = r.GetHistogram("lat_seconds", "latency", {}, {0.5});
      for (int i = 0; i < kIters; ++i) {
        c.Inc();
        mine.Inc(2);
        g.Add(3);
        g.Sub(1);
        h.Observe(i % 2 == 0 ? 0.25 : 1.0);
        if (i % 10000 == 0) (void)r.RenderPrometheus();  // renders race with updates too
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(r.GetCounter("ops_total", "ops", {{"op", "read"}}).Value(),
            std::uint64_t{kThreads} * kIters);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(r.GetCounter("ops_total", "ops", {{"op", std::to_string(t)}}).Value(), 2u * kIters);
  }
  EXPECT_EQ(r.GetGauge("inflight", "in flight").Value(), std::int64_t{2} * kThreads * kIters);
  Histogram& h = r.GetHistogram("lat_seconds", "latency", {}, {0.5});
  EXPECT_EQ(h.BucketCounts(),
            (std::vector<std::uint64_t>{kThreads * kIters / 2, kThreads * kIters / 2}));
  EXPECT_DOUBLE_EQ(h.Sum(), kThreads * kIters / 2 * 1.25);
  const std::string text = r.RenderPrometheus();
  EXPECT_NE(text.find("lat_seconds_count " + std::to_string(kThreads * kIters) + "\n"),
            std::string::npos)
      << text;
}

TEST(MetricsDeathTest, MisuseAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  MetricsRegistry r;
  r.GetCounter("a_total", "help", {{"op", "x"}});
  EXPECT_DEATH(r.GetGauge("a_total", "help", {{"op", "x"}}), "registered again");
  EXPECT_DEATH(r.GetCounter("a_total", "other help", {{"op", "x"}}), "registered again");
  EXPECT_DEATH(r.GetCounter("a_total", "help", {{"kind", "x"}}), "registered again");
  EXPECT_DEATH(r.GetCounter("a_total", "help"), "registered again");
  EXPECT_DEATH(r.GetCounter("1abc", "h"), "invalid metric name");
  EXPECT_DEATH(r.GetCounter("a-b", "h"), "invalid metric name");
  EXPECT_DEATH(r.GetCounter("b_total", "h", {{"le", "1"}}), "invalid label name");
  EXPECT_DEATH(r.GetCounter("b_total", "h", {{"__x", "1"}}), "invalid label name");
  EXPECT_DEATH(r.GetCounter("b_total", "h", {{"x", "1"}, {"x", "2"}}), "repeated label");
  EXPECT_DEATH(r.GetHistogram("h_seconds", "h", {}, {1.0, 1.0}), "strictly increasing");
  r.GetHistogram("h2_seconds", "h", {}, {1.0, 2.0});
  EXPECT_DEATH(r.GetHistogram("h2_seconds", "h", {}, {1.0, 3.0}), "registered again");
}

TEST(PrometheusText, FamiliesInOrderWithUntypedAndFloats) {
  PrometheusText t;
  t.Family("ceph_health_status", "Cluster health status", PrometheusText::Type::kUntyped);
  t.IntSample({}, 1);
  t.Family("ceph_pool_percent_used", "DF pool percent_used", PrometheusText::Type::kGauge);
  t.Sample({{"pool_id", "2"}}, 0.25);
  t.Sample({{"pool_id", "1"}}, 0);
  t.Family("ceph_osd_op_r", "Client read\nops \\", PrometheusText::Type::kCounter);
  t.IntSample({{"ceph_daemon", "osd.0"}, {"a", "x\"y"}}, 9007199254740993);
  t.Family("ceph_empty", "No samples", PrometheusText::Type::kGauge);
  EXPECT_EQ(t.text(),
            "# HELP ceph_health_status Cluster health status\n"
            "# TYPE ceph_health_status untyped\n"
            "ceph_health_status 1\n"
            "# HELP ceph_pool_percent_used DF pool percent_used\n"
            "# TYPE ceph_pool_percent_used gauge\n"
            "ceph_pool_percent_used{pool_id=\"2\"} 0.25\n"
            "ceph_pool_percent_used{pool_id=\"1\"} 0\n"
            "# HELP ceph_osd_op_r Client read\\nops \\\\\n"
            "# TYPE ceph_osd_op_r counter\n"
            "ceph_osd_op_r{a=\"x\\\"y\",ceph_daemon=\"osd.0\"} 9007199254740993\n"
            "# HELP ceph_empty No samples\n"
            "# TYPE ceph_empty gauge\n");
}

TEST(PrometheusTextDeathTest, MisuseAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  PrometheusText t;
  EXPECT_DEATH(t.IntSample({}, 1), "before any family");
  EXPECT_DEATH(t.Family("a-b", "h", PrometheusText::Type::kGauge), "invalid metric name");
  t.Family("a", "h", PrometheusText::Type::kGauge);
  t.IntSample({{"x", "1"}}, 1);
  EXPECT_DEATH(t.IntSample({{"y", "1"}}, 1), "other label names");
  EXPECT_DEATH(t.IntSample({{"le", "1"}}, 1), "invalid label name");
  EXPECT_DEATH(t.Family("a", "h", PrometheusText::Type::kGauge), "begun twice");
}

}  // namespace
}  // namespace ec
