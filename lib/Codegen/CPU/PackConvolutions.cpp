//===- PackConvolutions.cpp - the fx-cpu-pack-convolutions pass -----------===//
//
// Convolution tiles of dispatch regions read their filter packed in blocks
// of output channels, so that fx-cpu-tile-and-vectorize can compute them
// with vectors along the output channels (see Passes.td). The packing is a
// plain linalg.generic on the parameter (or weight constant):
// fx-hoist-parameter-computations moves it into the prepare function.
//
// Written here rather than with linalg.pack + data tiling (IREE's
// encodings): the regions are already tiled along the output channels by
// the block size, so each tile needs one block of the packed filter and
// the tile's output keeps its NCHW layout, which leaves the fused epilogue
// as it is.
//
//===----------------------------------------------------------------------===//

#include "Packing.h"

#include "fx/Codegen/CPU/Passes.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXCPUPACKCONVOLUTIONS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

bool fx::cpu::isMultipleOf(Value value, int64_t block) {
  if (std::optional<int64_t> c = getConstantIntValue(value))
    return *c % block == 0;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(owner))
      return arg == loop.getInductionVar() &&
             isMultipleOf(loop.getLowerBound(), block) &&
             isMultipleOf(loop.getStep(), block);
    if (auto loop = dyn_cast<scf::ForallOp>(owner)) {
      unsigned i = arg.getArgNumber();
      if (i >= loop.getRank())
        return false;
      return isMultipleOf(loop.getMixedLowerBound()[i], block) &&
             isMultipleOf(loop.getMixedStep()[i], block);
    }
    return false;
  }
  if (auto add = value.getDefiningOp<arith::AddIOp>())
    return isMultipleOf(add.getLhs(), block) &&
           isMultipleOf(add.getRhs(), block);
  if (auto apply = value.getDefiningOp<affine::AffineApplyOp>()) {
    AffineMap map = apply.getAffineMap();
    if (map.getNumResults() != 1)
      return false;
    std::function<bool(AffineExpr)> check = [&](AffineExpr e) -> bool {
      if (auto c = dyn_cast<AffineConstantExpr>(e))
        return c.getValue() % block == 0;
      if (auto d = dyn_cast<AffineDimExpr>(e))
        return isMultipleOf(apply.getMapOperands()[d.getPosition()], block);
      if (auto s = dyn_cast<AffineSymbolExpr>(e))
        return isMultipleOf(
            apply.getMapOperands()[map.getNumDims() + s.getPosition()], block);
      auto bin = dyn_cast<AffineBinaryOpExpr>(e);
      if (!bin)
        return false;
      if (bin.getKind() == AffineExprKind::Add)
        return check(bin.getLHS()) && check(bin.getRHS());
      if (bin.getKind() == AffineExprKind::Mul)
        return check(bin.getLHS()) || check(bin.getRHS());
      return false;
    };
    return check(map.getResult(0));
  }
  return false;
}

bool fx::cpu::isMultipleOf(OpFoldResult ofr, int64_t block) {
  if (auto value = dyn_cast<Value>(ofr))
    return isMultipleOf(value, block);
  return cast<IntegerAttr>(cast<Attribute>(ofr)).getInt() % block == 0;
}

namespace {
using fx::cpu::isMultipleOf;

struct PackConvolutionsPass
    : public fx::impl::FXCPUPackConvolutionsBase<PackConvolutionsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (block < 1)
      return;
    packed.clear();
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    func.walk([&](linalg::Conv2DNchwFchwOp conv) { convs.push_back(conv); });
    for (linalg::Conv2DNchwFchwOp conv : convs)
      (void)rewrite(func, conv);
  }

  /// The packed filter of `root` ([F, C, KH, KW] -> [F', C, KH, KW] zero
  /// padded to whole blocks -> [F' / block, C, KH, KW, block]), made once
  /// at the top of `func` (after its definition, for a weight constant).
  Value packedFilter(func::FuncOp func, Value root) {
    auto it = packed.find(root);
    if (it != packed.end())
      return it->second;
    auto type = cast<RankedTensorType>(root.getType());
    ArrayRef<int64_t> shape = type.getShape();
    Location loc = root.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    if (Operation *def = root.getDefiningOp())
      b.setInsertionPointAfter(def);
    int64_t blocks = llvm::divideCeil(shape[0], block);
    Value source = root;
    if (blocks * block != shape[0]) {
      auto paddedType =
          RankedTensorType::get({blocks * block, shape[1], shape[2], shape[3]},
                                type.getElementType());
      Value zero = arith::ConstantOp::create(
          b, loc, b.getZeroAttr(type.getElementType()));
      SmallVector<OpFoldResult> low(4, b.getIndexAttr(0));
      SmallVector<OpFoldResult> high = {
          b.getIndexAttr(blocks * block - shape[0]), b.getIndexAttr(0),
          b.getIndexAttr(0), b.getIndexAttr(0)};
      source = tensor::PadOp::create(b, loc, paddedType, root, low, high, zero)
                   .getResult();
    }
    SmallVector<int64_t> packedShape = {blocks, shape[1], shape[2], shape[3],
                                        block};
    Value empty =
        tensor::EmptyOp::create(b, loc, packedShape, type.getElementType());
    MLIRContext *ctx = func.getContext();
    AffineExpr fo, c, kh, kw, fi;
    bindDims(ctx, fo, c, kh, kw, fi);
    SmallVector<AffineMap> maps = {
        AffineMap::get(5, 0, {fo * block + fi, c, kh, kw}, ctx),
        AffineMap::getMultiDimIdentityMap(5, ctx)};
    SmallVector<utils::IteratorType> iterators(5,
                                               utils::IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            b, loc, empty.getType(), ValueRange{source}, ValueRange{empty},
            maps, iterators,
            [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
              linalg::YieldOp::create(nested, nestedLoc, args[0]);
            })
            .getResult(0);
    packed[root] = result;
    return result;
  }

  LogicalResult rewrite(func::FuncOp func, linalg::Conv2DNchwFchwOp conv) {
    std::optional<fx::StaticConvTypes> types = fx::getStaticConvTypes(conv);
    if (!conv.hasPureTensorSemantics() || !types)
      return failure();
    RankedTensorType inputType = types->input, filterType = types->filter,
                     outputType = types->output;
    if (!outputType.getElementType().isF32() ||
        inputType.getElementType() != outputType.getElementType() ||
        filterType.getElementType() != outputType.getElementType())
      return failure();
    ArrayRef<int64_t> out = outputType.getShape();
    ArrayRef<int64_t> filter = filterType.getShape();
    // One image, one output row, at most a block of output channels; 1x1
    // convolutions become matmuls instead, but those dispatch regions
    // marked (small images, fx::packsPointwiseConvolution).
    if (out[0] != 1 || out[2] != 1 || out[1] > block ||
        (filter[2] * filter[3] == 1 && !conv->hasAttr(fx::kPackPointwiseAttr)))
      return failure();
    // The filter: slices along the output channels of a parameter or a
    // weight constant.
    Value value = conv.getInputs()[1];
    SmallVector<OpFoldResult> offsets;
    while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>()) {
      RankedTensorType source = slice.getSourceType();
      if (source.getRank() != 4 || slice.getType().getRank() != 4 ||
          !slice.hasUnitStride())
        return failure();
      for (int64_t d = 1; d < 4; ++d)
        if (!isConstantIntValue(slice.getMixedOffsets()[d], 0) ||
            !isConstantIntValue(slice.getMixedSizes()[d], source.getDimSize(d)))
          return failure();
      offsets.push_back(slice.getMixedOffsets()[0]);
      value = slice.getSource();
    }
    if (!fx::isPackableFilter(value))
      return failure();
    Value root = value;
    // The tile's channels lie in one block.
    for (OpFoldResult offset : offsets)
      if (!isMultipleOf(offset, block))
        return failure();

    Location loc = conv.getLoc();
    MLIRContext *ctx = func.getContext();
    Value packedValue = packedFilter(func, root);
    OpBuilder b(conv);
    // The block: the sum of the offsets, divided by the block size.
    SmallVector<OpFoldResult> terms = offsets;
    AffineExpr sum = getAffineConstantExpr(0, ctx);
    for (size_t i = 0; i < terms.size(); ++i)
      sum = sum + getAffineSymbolExpr(i, ctx);
    OpFoldResult blockIndex = affine::makeComposedFoldedAffineApply(
        b, loc, AffineMap::get(0, terms.size(), sum.floorDiv(block)), terms);
    int64_t numF = out[1], width = out[3];
    int64_t numC = filter[1], kH = filter[2], kW = filter[3];
    SmallVector<OpFoldResult> sliceOffsets = {
        blockIndex, b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(0),
        b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sliceSizes = {
        b.getIndexAttr(1), b.getIndexAttr(numC), b.getIndexAttr(kH),
        b.getIndexAttr(kW), b.getIndexAttr(numF)};
    SmallVector<OpFoldResult> unit(5, b.getIndexAttr(1));
    auto filterTileType = RankedTensorType::get({numC, kH, kW, numF},
                                                outputType.getElementType());
    Value filterTile = tensor::ExtractSliceOp::create(
        b, loc, filterTileType, packedValue, sliceOffsets, sliceSizes, unit);

    // Accumulate into a W x Ft tile: an output column's channels are
    // contiguous, one vector.
    SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
    Type f32 = outputType.getElementType();
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(f32));
    Value accEmpty = tensor::EmptyOp::create(b, loc, {width, numF}, f32);
    Value accInit =
        linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{accEmpty})
            .getResult(0);
    AffineExpr w, f, c, kh, kw;
    bindDims(ctx, w, f, c, kh, kw);
    AffineExpr zeroExpr = getAffineConstantExpr(0, ctx);
    SmallVector<AffineMap> maps = {
        AffineMap::get(5, 0,
                       {zeroExpr, c, kh * dilations[0],
                        w * strides[1] + kw * dilations[1]},
                       ctx),
        AffineMap::get(5, 0, {c, kh, kw, f}, ctx),
        AffineMap::get(5, 0, {w, f}, ctx)};
    using utils::IteratorType;
    SmallVector<IteratorType> iterators = {
        IteratorType::parallel, IteratorType::parallel, IteratorType::reduction,
        IteratorType::reduction, IteratorType::reduction};
    auto accumulate = linalg::GenericOp::create(
        b, loc, accInit.getType(), ValueRange{conv.getInputs()[0], filterTile},
        ValueRange{accInit}, maps, iterators,
        [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          Value product =
              arith::MulFOp::create(nested, nestedLoc, args[0], args[1]);
          linalg::YieldOp::create(
              nested, nestedLoc,
              arith::AddFOp::create(nested, nestedLoc, args[2], product)
                  .getResult());
        });
    // The column stride, which the tile's vectorization needs.
    accumulate->setAttr(fx::kPackedConvAttr, b.getI64IntegerAttr(strides[1]));

    // The tile's result: its initial value plus the transposed sums. An
    // initial value that is a fill is not read: the fill's value is added
    // (nothing for zero, the usual case) and the result goes where the fill
    // would have written, which spares a pass that zeroes the output row
    // and one that reads it back.
    AffineExpr n, of, oh, ow;
    bindDims(ctx, n, of, oh, ow);
    Value init = conv.getOutputs()[0];
    Value filled;
    if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
      filled = fill.getInputs()[0];
      init = fill.getOutputs()[0];
    }
    SmallVector<AffineMap> addMaps = {
        AffineMap::get(4, 0, {ow, of}, ctx),
        AffineMap::getMultiDimIdentityMap(4, ctx)};
    auto result = linalg::GenericOp::create(
        b, loc, outputType, ValueRange{accumulate.getResult(0)},
        ValueRange{init}, addMaps,
        SmallVector<IteratorType>(4, IteratorType::parallel),
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          Value sum = args[0];
          if (!filled)
            sum = arith::AddFOp::create(nested, nestedLoc, args[1], sum);
          else if (!matchPattern(filled, m_AnyZeroFloat()))
            sum = arith::AddFOp::create(nested, nestedLoc, filled, sum);
          linalg::YieldOp::create(nested, nestedLoc, sum);
        });
    conv.getResult(0).replaceAllUsesWith(result.getResult(0));
    conv.erase();
    fuseIntoConsumer(result);
    return success();
  }

  /// Fuses the tile's result into the elementwise epilogue that reads it
  /// (bias, batch norm, activation, residual add), when that is its only
  /// use: the transposing read and the epilogue then make one pass over
  /// the output row instead of two.
  static void fuseIntoConsumer(linalg::GenericOp result) {
    if (!result->hasOneUse())
      return;
    OpOperand &use = *result->getUses().begin();
    auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!consumer || consumer.getNumReductionLoops() != 0 ||
        !linalg::areElementwiseOpsFusable(&use))
      return;
    IRRewriter rewriter(result.getContext());
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, &use);
    if (failed(fused))
      return;
    for (OpResult r : consumer->getResults())
      rewriter.replaceAllUsesWith(r, fused->replacements.lookup(r));
    rewriter.eraseOp(consumer);
    if (result->use_empty())
      rewriter.eraseOp(result);
  }

  llvm::DenseMap<Value, Value> packed;
};

} // namespace
