//===- OpBuildersTest.cpp - building and verifying FX ops in C++ ----------===//

#include "fx/Dialect/FX/IR/FXDialect.h"
#include "fx/Dialect/FX/IR/FXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fx;

namespace {

class OpBuildersTest : public ::testing::Test {
protected:
  OpBuildersTest() {
    ctx.loadDialect<FXDialect, func::FuncDialect>();
    module = ModuleOp::create(UnknownLoc::get(&ctx));
    b.setInsertionPointToEnd(module->getBody());
  }

  /// Creates `func.func @name(args...)` and positions the builder in it.
  func::FuncOp makeFunc(TypeRange args) {
    auto func =
        func::FuncOp::create(b, loc, "graph", b.getFunctionType(args, {}));
    b.setInsertionPointToStart(func.addEntryBlock());
    return func;
  }

  /// Collects diagnostics so that failed verification can be checked.
  std::string verifyAndCollect() {
    std::string messages;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      messages += diag.str() + "\n";
      return success();
    });
    (void)verify(*module);
    return messages;
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  OpBuilder b{&ctx};
  Location loc = UnknownLoc::get(&ctx);
};

TEST_F(OpBuildersTest, BuildersInferBroadcastResultTypes) {
  auto func =
      makeFunc({tensor({4, 1}, b.getF32Type()), tensor({3}, b.getF16Type())});
  Value x = func.getArgument(0), y = func.getArgument(1);
  // The operand-only builder infers the result type and leaves alpha at its
  // ATen default.
  auto add = AddOp::create(b, loc, ValueRange{x, y});
  EXPECT_EQ(add.getType(), tensor({4, 3}, b.getF32Type()));
  EXPECT_EQ(add.getAlpha().convertToDouble(), 1.0);
  auto sub = SubOp::create(b, loc, x, y, llvm::APFloat(2.0));
  EXPECT_EQ(sub.getType(), tensor({4, 3}, b.getF32Type()));
  auto lt = LtOp::create(b, loc, x, y);
  EXPECT_EQ(lt.getType(), tensor({4, 3}, b.getI1Type()));
  auto where = WhereOp::create(b, loc, lt, add, y);
  EXPECT_EQ(where.getType(), tensor({4, 3}, b.getF32Type()));
  func::ReturnOp::create(b, loc, ValueRange{});
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(OpBuildersTest, BuildsAResidualBlock) {
  Type f32 = b.getF32Type();
  auto func = makeFunc({tensor({1, 8, 16, 16}, f32), tensor({8, 8, 3, 3}, f32),
                        tensor({8}, f32), tensor({8}, f32)});
  Value x = func.getArgument(0), w = func.getArgument(1);
  Value mean = func.getArgument(2), var = func.getArgument(3);
  auto conv = ConvolutionOp::create(
      b, loc, x, w, /*bias=*/Value(), b.getDenseI64ArrayAttr({1, 1}),
      b.getDenseI64ArrayAttr({1, 1}), b.getDenseI64ArrayAttr({1, 1}),
      b.getBoolAttr(false), b.getDenseI64ArrayAttr({0, 0}),
      b.getI64IntegerAttr(1));
  EXPECT_EQ(conv.getType(), tensor({1, 8, 16, 16}, f32));
  auto bn = BatchNormOp::create(b, loc, conv, mean, var, /*weight=*/Value(),
                                /*bias=*/Value(), b.getF64FloatAttr(1e-5));
  auto sum = AddOp::create(b, loc, ValueRange{bn, x});
  auto relu = ReluOp::create(b, loc, sum);
  auto pool =
      AdaptiveAvgPool2dOp::create(b, loc, relu, b.getDenseI64ArrayAttr({1, 1}));
  auto flat = FlattenOp::create(b, loc, pool, b.getI64IntegerAttr(1),
                                b.getI64IntegerAttr(-1));
  EXPECT_EQ(flat.getType(), tensor({1, 8}, f32));
  func::ReturnOp::create(b, loc, ValueRange{});
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(OpBuildersTest, InferenceReportsShapeErrors) {
  Type f32 = b.getF32Type();
  SmallVector<Type> inferred;
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto func = makeFunc({tensor({4, 8}, f32), tensor({7, 2}, f32)});
  MmOp::Adaptor adaptor(func.getArguments());
  EXPECT_TRUE(failed(MmOp::inferReturnTypes(&ctx, loc, adaptor, inferred)));
  EXPECT_EQ(message, "'fx.mm' op contraction size mismatch: self dimension 1 "
                     "is 8 but mat2 dimension 0 is 7");
}

TEST_F(OpBuildersTest, VerifierRejectsWrongWrittenResultType) {
  Type f32 = b.getF32Type();
  auto func = makeFunc({tensor({2, 3}, f32)});
  // A result type that contradicts inference: relu keeps the shape.
  OperationState state(loc, ReluOp::getOperationName());
  state.addOperands(func.getArgument(0));
  state.addTypes(tensor({3, 2}, f32));
  b.create(state);
  func::ReturnOp::create(b, loc, ValueRange{});
  EXPECT_NE(verifyAndCollect().find("'fx.relu' op inferred type(s)"),
            std::string::npos);
}

TEST_F(OpBuildersTest, ParsedIRRoundTripsThroughPrinter) {
  const char *source = R"mlir(
    func.func @f(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
      %0 = fx.gelu %x {approximate = #fx.gelu_approximate<tanh>}
          : (tensor<?x3xf32>) -> tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    })mlir";
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(parsed);
  ASSERT_TRUE(succeeded(verify(*parsed)));
  std::string printed;
  llvm::raw_string_ostream os(printed);
  parsed->print(os);
  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(printed, &ctx);
  ASSERT_TRUE(reparsed);
  GeluOp gelu;
  reparsed->walk([&](GeluOp op) { gelu = op; });
  ASSERT_TRUE(gelu);
  EXPECT_EQ(gelu.getApproximate(), GeluApproximate::tanh);
}

} // namespace
