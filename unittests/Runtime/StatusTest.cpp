//===- StatusTest.cpp - Status and Result ---------------------------------===//

#include "fx/Runtime/Status.h"

#include <gtest/gtest.h>

#include <memory>

using namespace fx::rt;

namespace {

TEST(StatusTest, OkAndError) {
  Status ok = Status::ok();
  EXPECT_TRUE(ok.isOk());
  EXPECT_EQ(ok.message(), "");

  Status err = Status::error("x.npy: bad magic");
  EXPECT_FALSE(err.isOk());
  EXPECT_EQ(err.message(), "x.npy: bad magic");
}

TEST(StatusTest, ResultHoldsValue) {
  Result<int> r(42);
  ASSERT_TRUE(r.isOk());
  EXPECT_EQ(r.value(), 42);
  EXPECT_EQ(r.message(), "");
  r.value() = 7;
  EXPECT_EQ(r.take(), 7);
  EXPECT_TRUE(r.status().isOk());
}

TEST(StatusTest, ResultHoldsError) {
  Result<int> r(Status::error("boom"));
  EXPECT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "boom");
  EXPECT_EQ(r.status().message(), "boom");
}

TEST(StatusTest, ResultOfMoveOnlyType) {
  Result<std::unique_ptr<int>> r(std::make_unique<int>(3));
  ASSERT_TRUE(r.isOk());
  std::unique_ptr<int> p = r.take();
  EXPECT_EQ(*p, 3);
}

TEST(StatusTest, ResultOfString) {
  // T == std::string must not be confused with the error message.
  Result<std::string> value(std::string("text"));
  ASSERT_TRUE(value.isOk());
  EXPECT_EQ(value.value(), "text");
  Result<std::string> error(Status::error("bad"));
  EXPECT_FALSE(error.isOk());
  EXPECT_EQ(error.message(), "bad");
}

} // namespace
