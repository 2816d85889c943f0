//===- TypeUtilsTest.cpp - broadcasting and type promotion ----------------===//

#include "fx/Dialect/FX/IR/FXTypeUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fx;

namespace {

constexpr int64_t kDyn = ShapedType::kDynamic;

class TypeUtilsTest : public ::testing::Test {
protected:
  MLIRContext ctx;
  Builder b{&ctx};
  Type f32 = b.getF32Type(), f16 = b.getF16Type(), bf16 = b.getBF16Type();
  Type i64 = b.getI64Type(), i32 = b.getI32Type(), i1 = b.getI1Type();

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }
};

TEST_F(TypeUtilsTest, BroadcastAlignsTrailingDimensions) {
  auto r = broadcastShapes({4, 1, 3}, {5, 1});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(*r, (SmallVector<int64_t>{4, 5, 3}));
}

TEST_F(TypeUtilsTest, BroadcastScalarAndEmpty) {
  EXPECT_EQ(*broadcastShapes({}, {2, 3}), (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(*broadcastShapes({}, {}), SmallVector<int64_t>{});
  // A zero-size dimension broadcasts against 1 like any other size.
  EXPECT_EQ(*broadcastShapes({0, 3}, {1, 3}), (SmallVector<int64_t>{0, 3}));
}

TEST_F(TypeUtilsTest, BroadcastRejectsMismatch) {
  EXPECT_TRUE(failed(broadcastShapes({2, 3}, {4, 3})));
  EXPECT_TRUE(failed(broadcastShapes({3}, {0})));
}

TEST_F(TypeUtilsTest, BroadcastDynamicDimensions) {
  // ? against n != 1 is n; against 1 or ? it stays dynamic.
  EXPECT_EQ(*broadcastShapes({kDyn, 3}, {4, 3}), (SmallVector<int64_t>{4, 3}));
  EXPECT_EQ(*broadcastShapes({kDyn}, {1}), SmallVector<int64_t>{kDyn});
  EXPECT_EQ(*broadcastShapes({kDyn}, {kDyn}), SmallVector<int64_t>{kDyn});
  EXPECT_EQ(*broadcastShapes({1, 5}, {kDyn, 1}),
            (SmallVector<int64_t>{kDyn, 5}));
}

TEST_F(TypeUtilsTest, PromoteTypesFollowsTorch) {
  EXPECT_EQ(promoteTypes(i32, i64), i64);
  EXPECT_EQ(promoteTypes(i1, i32), i32);
  EXPECT_EQ(promoteTypes(i64, f16), f16);
  EXPECT_EQ(promoteTypes(f16, f32), f32);
  EXPECT_EQ(promoteTypes(f16, bf16), f32);
  EXPECT_EQ(promoteTypes(bf16, bf16), bf16);
  EXPECT_EQ(promoteTypes(i1, i1), i1);
}

TEST_F(TypeUtilsTest, ResultTypeGivesRankZeroLowerPriority) {
  // torch.ones(3, dtype=f16) + torch.tensor(1.0): f16.
  EXPECT_EQ(resultElementType({tensor({3}, f16), tensor({}, f32)}), f16);
  // torch.ones(3, dtype=int32) + torch.tensor(1, dtype=int64): int32.
  EXPECT_EQ(resultElementType({tensor({3}, i32), tensor({}, i64)}), i32);
  // torch.ones(3, dtype=int64) + torch.tensor(1.5): the category rises, and
  // the rank-0 operand decides the width: f32.
  EXPECT_EQ(resultElementType({tensor({3}, i64), tensor({}, f32)}), f32);
  // Bool tensors take the category of a rank-0 integer.
  EXPECT_EQ(resultElementType({tensor({3}, i1), tensor({}, i32)}), i32);
  // Two rank-0 operands promote normally.
  EXPECT_EQ(resultElementType({tensor({}, f16), tensor({}, f32)}), f32);
  // Ranked operands promote among themselves.
  EXPECT_EQ(resultElementType({tensor({2}, f16), tensor({2}, bf16)}), f32);
}

TEST_F(TypeUtilsTest, CompatibleResultTypesAllowRefinement) {
  Type dyn = tensor({kDyn, 3}, f32), stat = tensor({2, 3}, f32);
  EXPECT_TRUE(areCompatibleResultTypes(dyn, stat));
  EXPECT_TRUE(areCompatibleResultTypes(stat, dyn));
  EXPECT_FALSE(areCompatibleResultTypes(stat, tensor({2, 4}, f32)));
  EXPECT_FALSE(areCompatibleResultTypes(stat, tensor({2, 3}, f16)));
  EXPECT_FALSE(areCompatibleResultTypes(stat, tensor({2, 3, 1}, f32)));
  EXPECT_FALSE(areCompatibleResultTypes(TypeRange{stat}, TypeRange{}));
}

TEST_F(TypeUtilsTest, NormalizeDimWrapsAndRejects) {
  ShapeError silent(std::nullopt, "fx.test");
  EXPECT_EQ(*normalizeDim(silent, "dim", -1, 4), 3);
  EXPECT_EQ(*normalizeDim(silent, "dim", 2, 4), 2);
  // Scalars accept -1 and 0, like ATen's maybe_wrap_dim.
  EXPECT_EQ(*normalizeDim(silent, "dim", -1, 0), 0);
  EXPECT_TRUE(failed(normalizeDim(silent, "dim", 4, 4)));
  EXPECT_TRUE(failed(normalizeDim(silent, "dim", -5, 4)));
}

TEST_F(TypeUtilsTest, BinaryInferenceDividesIntegersAsFloat) {
  ShapeError silent(std::nullopt, "fx.test");
  SmallVector<Type> results;
  ASSERT_TRUE(succeeded(
      inferBinaryResultType(silent, tensor({2, 1}, i64), tensor({3}, i32),
                            BinaryPromotion::PromoteIntToFloat, results)));
  EXPECT_EQ(results.front(), tensor({2, 3}, f32));
  results.clear();
  ASSERT_TRUE(succeeded(inferBinaryResultType(silent, tensor({2}, f16),
                                              tensor({2}, f16),
                                              BinaryPromotion::Bool, results)));
  EXPECT_EQ(results.front(), tensor({2}, i1));
}

TEST_F(TypeUtilsTest, ShapeErrorReportsAtLocation) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  ShapeError emitError(UnknownLoc::get(&ctx), "fx.add");
  EXPECT_TRUE(failed(broadcastShapes(emitError, {2}, {3})));
  EXPECT_EQ(
      message,
      "'fx.add' op operand shapes [2] and [3] are not broadcast-compatible");
}

} // namespace
