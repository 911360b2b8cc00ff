// rados's time format (RadosTime), without a cluster: absolute times in local time with the UTC
// offset, and Ceph's "relative" form under ten years after the epoch. The commands themselves run
// against a real cluster in tests/cluster/ec_rados_xattr_test.cc.
#include "tools/ec_rados/meta_commands.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace ec::tools::rados {
namespace {

// Sets TZ for the test's duration and puts it back.
class ScopedTz {
 public:
  explicit ScopedTz(const char* tz) {
    if (const char* old = std::getenv("TZ")) old_ = old;
    ::setenv("TZ", tz, 1);
    ::tzset();
  }
  ~ScopedTz() {
    if (old_) {
      ::setenv("TZ", old_->c_str(), 1);
    } else {
      ::unsetenv("TZ");
    }
    ::tzset();
  }

 private:
  std::optional<std::string> old_;
};

TEST(RadosTimeTest, AsCephPrintsAUtime) {
  {
    ScopedTz utc("UTC");
    EXPECT_EQ(RadosTime(1795860000, 0), "2026-11-28T10:00:00.000000+0000");
    EXPECT_EQ(RadosTime(1000000000, 42), "2001-09-09T01:46:40.000042+0000");
  }
  {
    ScopedTz tokyo("JST-9");  // UTC+9, no daylight saving
    EXPECT_EQ(RadosTime(1795860000, 0), "2026-11-28T19:00:00.000000+0900");
  }
  // Under ten years of 365 days: seconds, as Ceph's "relative time".
  EXPECT_EQ(RadosTime(0, 0), "0.000000");
  EXPECT_EQ(RadosTime(5, 7), "5.000007");
  EXPECT_EQ(RadosTime(315359999, 0), "315359999.000000");
}

}  // namespace
}  // namespace ec::tools::rados
