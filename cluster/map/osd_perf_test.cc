// The OSD perf report's codec (strict) and the latency window (pure).
#include "cluster/map/osd_perf.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace ec::cluster {
namespace {

TEST(OsdPerf, RoundTripAndKey) {
  OsdPerf p{3, 1'700'000'000'000, 0.84, 0.84, 120};
  EXPECT_EQ(OsdPerfKey("/ecstore/", 3), "/ecstore/osdperf/3");
  auto back = DecodeOsdPerf("k", EncodeOsdPerf(p));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, p);
}

TEST(OsdPerf, BadValuesAreRefusedNamingTheKey) {
  for (
      const char* v :
      {"", "[]", "nope",
       R"({"v":2,"osd":1,"stamp_ms":1,"commit_latency_ms":1,"apply_latency_ms":1,"ops":1})",
       R"({"v":1,"osd":-1,"stamp_ms":1,"commit_latency_ms":1,"apply_latency_ms":1,"ops":1})",
       R"({"v":1,"osd":1,"stamp_ms":1,"commit_latency_ms":-1,"apply_latency_ms":1,"ops":1})",
       R"({"v":1,"osd":1,"stamp_ms":1,"commit_latency_ms":1e12,"apply_latency_ms":1,"ops":1})",
       R"({"v":1,"osd":1,"stamp_ms":1,"commit_latency_ms":"1","apply_latency_ms":1,"ops":1})",
       R"({"v":1,"osd":1,"stamp_ms":1,"commit_latency_ms":1,"apply_latency_ms":1})",
       R"({"v":1,"osd":1,"stamp_ms":1,"commit_latency_ms":1,"apply_latency_ms":1,"ops":1,"x":0})",
       R"({"v":1,"osd":99999999999,"stamp_ms":1,"commit_latency_ms":1,"apply_latency_ms":1,"ops":1})"}) {
    auto r = DecodeOsdPerf("/p/osdperf/1", v);
    ASSERT_FALSE(r.ok()) << v;
    EXPECT_EQ(r.status().code(), EBADMSG) << v;
    EXPECT_NE(r.status().message().find("/p/osdperf/1"), std::string::npos) << v;
  }
}

TEST(LatencyWindow, MeanOfWhatWasAddedSinceTheLastCall) {
  LatencyWindow w;
  std::int64_t ops = -1;
  EXPECT_DOUBLE_EQ(w.Next(4, 0.004, &ops), 1.0);  // 4 writes, 4 ms in all
  EXPECT_EQ(ops, 4);
  EXPECT_DOUBLE_EQ(w.Next(4, 0.004, &ops), 0.0);  // none since
  EXPECT_EQ(ops, 0);
  EXPECT_DOUBLE_EQ(w.Next(6, 0.010, &ops), 3.0);  // 2 more, 6 ms
  EXPECT_EQ(ops, 2);
  EXPECT_DOUBLE_EQ(w.Next(1, 0.002, &ops), 2.0);  // went backwards (a restart): a new window
  EXPECT_EQ(ops, 1);
}

}  // namespace
}  // namespace ec::cluster
