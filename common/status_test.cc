#include "common/status.h"

#include <gtest/gtest.h>

namespace ec {
namespace {

TEST(Status, OkAndErrors) {
  EXPECT_TRUE(Status::OK().ok());
  Status s = Status::Invalid("bad k");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(s.ceph_code(), -EINVAL);
  EXPECT_EQ(s.message(), "bad k");
  EXPECT_FALSE(s.is_data_loss());
  EXPECT_TRUE(Status::DataLoss("crc").is_data_loss());
  EXPECT_TRUE(Status::Retryable(EAGAIN, "busy").is_retryable());
  // A zero or negative errno never turns an error into success.
  EXPECT_FALSE(Status::Error(0, "x").ok());
  EXPECT_EQ(Status::Error(-ENOENT, "x").code(), ENOENT);
  EXPECT_EQ(s.WithPrefix("init").message(), "init: bad k");
}

TEST(Result, ValueOrStatus) {
  Result<int> r = 5;
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 5);
  Result<int> e = Status::NotFound("nope");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), ENOENT);
  // An OK status cannot make an empty Result look successful.
  Result<int> odd = Status::OK();
  EXPECT_FALSE(odd.ok());
}

}  // namespace
}  // namespace ec
