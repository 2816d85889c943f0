//===- PatchConvolutionsToMatmuls.cpp - fx-patch-convolutions-to-matmuls --===//
//
// Convolutions whose windows do not overlap (stride = kernel, a "patchify"
// layer: ConvNeXt's stem and downsampling, a ViT's patch embedding) become
// a copy of the patches and a matmul; strided 1x1 convolutions a copy of
// the pixels they read and a 1x1 convolution (see the pass description in
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXPATCHCONVOLUTIONSTOMATMULS
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// Rewrites `conv` (one image, static shapes, windows that tile the input
/// without overlap) as im2col + matmul; returns false if it does not apply.
bool rewrite(OpBuilder &b, linalg::Conv2DNchwFchwOp conv) {
  std::optional<fx::StaticConvTypes> types = fx::getStaticConvTypes(conv);
  if (!types)
    return false;
  auto [inputType, filterType, outputType] = *types;
  Type element = outputType.getElementType();
  if (!element.isF32() || inputType.getElementType() != element ||
      filterType.getElementType() != element)
    return false;
  ArrayRef<int64_t> in = inputType.getShape(), filter = filterType.getShape(),
                    out = outputType.getShape();
  int64_t kh = filter[2], kw = filter[3];
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
  // One image; a window larger than one pixel (1x1 convolutions are
  // matmuls already, fx-cpu-tile-and-vectorize); stride = window;
  // windows inside the input.
  if (in[0] != 1 || kh * kw == 1 || strides[0] != kh || strides[1] != kw ||
      dilations[0] != 1 || dilations[1] != 1 || out[2] * kh > in[2] ||
      out[3] * kw > in[3])
    return false;
  int64_t channels = in[1], oh = out[2], ow = out[3];
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  b.setInsertionPoint(conv);
  // The patches: [C][KH][KW][OH][OW], each window's pixels in the filter's
  // order, the windows along the rows of the matmul's B.
  AffineExpr c, i, j, y, x;
  bindDims(ctx, c, i, j, y, x);
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  Value empty =
      tensor::EmptyOp::create(b, loc, {channels, kh, kw, oh, ow}, element);
  Value patches =
      linalg::GenericOp::create(
          b, loc, empty.getType(), ValueRange{conv.getInputs()[0]},
          ValueRange{empty},
          ArrayRef<AffineMap>{
              AffineMap::get(5, 0, {zero, c, y * kh + i, x * kw + j}, ctx),
              AffineMap::getMultiDimIdentityMap(5, ctx)},
          SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
          [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            linalg::YieldOp::create(nested, nestedLoc, args[0]);
          })
          .getResult(0);
  using Reassociation = SmallVector<ReassociationIndices>;
  Value bMatrix = tensor::CollapseShapeOp::create(
      b, loc, patches, Reassociation{{0, 1, 2}, {3, 4}});
  Value aMatrix = tensor::CollapseShapeOp::create(
      b, loc, conv.getInputs()[1], Reassociation{{0}, {1, 2, 3}});
  Value init = tensor::CollapseShapeOp::create(b, loc, conv.getOutputs()[0],
                                               Reassociation{{0, 1}, {2, 3}});
  Value product =
      linalg::MatmulOp::create(b, loc, init.getType(),
                               ValueRange{aMatrix, bMatrix}, ValueRange{init})
          .getResult(0);
  Value result = tensor::ExpandShapeOp::create(b, loc, outputType, product,
                                               Reassociation{{0, 1}, {2, 3}});
  conv.getResult(0).replaceAllUsesWith(result);
  conv.erase();
  return true;
}

/// Rewrites `conv`, a strided 1x1 convolution (ResNet's downsampling), as a
/// copy of the pixels it reads (every stride-th row and column) and a 1x1
/// convolution of stride 1 on them, which the CPU computes as a matmul over
/// the flattened pixels (the copy fuses into its tiles); returns false if it
/// does not apply. As a convolution tile it read one input element a
/// stride apart per FMA, its short reduction (64 to 256 channels) between
/// loads and stores of the accumulators: on a Zen 5, 2 threads, resnet18's
/// three downsampling convolutions at batch 1 51 / 50 / 80 -> 30 / 36 /
/// 40 us, at batch 8 0.57 / 0.41 / 0.64 -> 0.46 / 0.35 / 0.28 ms.
bool subsamplePointwise(OpBuilder &b, linalg::Conv2DNchwFchwOp conv) {
  std::optional<fx::StaticConvTypes> types = fx::getStaticConvTypes(conv);
  if (!types)
    return false;
  auto [inputType, filterType, outputType] = *types;
  ArrayRef<int64_t> filter = filterType.getShape(), out = outputType.getShape();
  SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
  // (A 1x1 filter's dilation moves nothing.)
  if (filter[2] != 1 || filter[3] != 1 || (strides[0] == 1 && strides[1] == 1))
    return false;
  Location loc = conv.getLoc();
  MLIRContext *ctx = b.getContext();
  b.setInsertionPoint(conv);
  AffineExpr n, c, y, x;
  bindDims(ctx, n, c, y, x);
  Value empty = tensor::EmptyOp::create(
      b, loc, {out[0], inputType.getDimSize(1), out[2], out[3]},
      inputType.getElementType());
  Value pixels =
      linalg::GenericOp::create(
          b, loc, empty.getType(), ValueRange{conv.getInputs()[0]},
          ValueRange{empty},
          ArrayRef<AffineMap>{
              AffineMap::get(4, 0, {n, c, y * strides[0], x * strides[1]}, ctx),
              AffineMap::getMultiDimIdentityMap(4, ctx)},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            linalg::YieldOp::create(nested, nestedLoc, args[0]);
          })
          .getResult(0);
  auto pointwise = linalg::Conv2DNchwFchwOp::create(
      b, loc, outputType, ValueRange{pixels, conv.getInputs()[1]},
      conv.getOutputs(), b.getI64VectorAttr({1, 1}),
      b.getI64VectorAttr({1, 1}));
  conv.getResult(0).replaceAllUsesWith(pointwise.getResult(0));
  conv.erase();
  return true;
}

struct PatchConvolutionsToMatmulsPass
    : public fx::impl::FXPatchConvolutionsToMatmulsBase<
          PatchConvolutionsToMatmulsPass> {
  void runOnOperation() override {
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    getOperation().walk(
        [&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
    OpBuilder b(&getContext());
    for (linalg::Conv2DNchwFchwOp conv : convs)
      if (!rewrite(b, conv))
        (void)subsamplePointwise(b, conv);
  }
};

} // namespace
