//===- PadInPlace.cpp - the fx-pad-in-place pass --------------------------===//
//
// Producers of padded tensors write into the padded tensor's interior (see
// the pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXPADINPLACE
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// The use of a tensor.empty that `value` is computed into: through the
/// shared outputs of scf.forall, the iteration arguments of scf.for and the
/// tied inits of destination-style ops. Null if the chain ends elsewhere.
OpOperand *emptyDestination(Value value) {
  OpOperand *use = nullptr;
  while (true) {
    auto result = dyn_cast<OpResult>(value);
    if (!result)
      return nullptr;
    Operation *def = result.getOwner();
    if (isa<tensor::EmptyOp>(def))
      return use;
    use = fx::tiedDestination(result);
    if (!use)
      return nullptr;
    value = use->get();
  }
}

/// Fills the border of `padded` (the low and high padding of each
/// dimension, full along the others) with `value`: the interior is the
/// producer's, so filling it too would write most of the tensor twice
/// (a 3x3 convolution's 112x112 input padded to 114x114: 96% of it). Each
/// strip is a fill of an extracted slice inserted back, which bufferizes to
/// a fill of a view of the buffer.
Value fillBorder(RewriterBase &rewriter, Location loc, Value padded,
                 Value value, ArrayRef<int64_t> low, ArrayRef<int64_t> high) {
  auto type = cast<RankedTensorType>(padded.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
  for (int64_t d = 0; d < rank; ++d) {
    for (bool isLow : {true, false}) {
      int64_t width = isLow ? low[d] : high[d];
      if (width == 0)
        continue;
      SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape());
      offsets[d] = isLow ? 0 : type.getDimSize(d) - width;
      sizes[d] = width;
      SmallVector<OpFoldResult> offsetValues =
          getAsIndexOpFoldResult(rewriter.getContext(), offsets);
      SmallVector<OpFoldResult> sizeValues =
          getAsIndexOpFoldResult(rewriter.getContext(), sizes);
      Value strip = tensor::ExtractSliceOp::create(
          rewriter, loc, padded, offsetValues, sizeValues, strides);
      Value stripFilled =
          linalg::FillOp::create(rewriter, loc, value, strip).getResult(0);
      padded = tensor::InsertSliceOp::create(rewriter, loc, stripFilled, padded,
                                             offsetValues, sizeValues, strides);
    }
  }
  return padded;
}

struct PadInPlacePass : public fx::impl::FXPadInPlaceBase<PadInPlacePass> {
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    DominanceInfo dominance(getOperation());
    IRRewriter rewriter(&getContext());
    for (tensor::PadOp pad : pads) {
      Value padding = pad.getConstantPaddingValue();
      auto sourceType = dyn_cast<RankedTensorType>(pad.getSourceType());
      if (!padding || !sourceType || !sourceType.hasStaticShape() ||
          !pad.getResultType().hasStaticShape() || !pad.getLow().empty() ||
          !pad.getHigh().empty())
        continue;
      OpOperand *destination = emptyDestination(pad.getSource());
      if (!destination || destination->get().getType() != sourceType)
        continue;
      Operation *empty = destination->get().getDefiningOp();
      // The padded tensor is filled where the producer's empty tensor was
      // made; the padding value must be available there.
      rewriter.setInsertionPoint(empty);
      Location loc = pad.getLoc();
      if (Operation *constant = padding.getDefiningOp();
          constant && constant->hasTrait<OpTrait::ConstantLike>())
        padding = rewriter.clone(*constant)->getResult(0);
      else if (!dominance.properlyDominates(padding, empty))
        continue;
      RankedTensorType paddedType = pad.getResultType();
      Value paddedEmpty = tensor::EmptyOp::create(
          rewriter, loc, paddedType.getShape(), paddedType.getElementType());
      Value filled = fillBorder(rewriter, loc, paddedEmpty, padding,
                                pad.getStaticLow(), pad.getStaticHigh());
      SmallVector<OpFoldResult> offsets =
          getAsIndexOpFoldResult(&getContext(), pad.getStaticLow());
      SmallVector<OpFoldResult> sizes =
          getAsIndexOpFoldResult(&getContext(), sourceType.getShape());
      SmallVector<OpFoldResult> strides(sourceType.getRank(),
                                        rewriter.getIndexAttr(1));
      Value interior = tensor::ExtractSliceOp::create(
          rewriter, loc, sourceType, filled, offsets, sizes, strides);
      rewriter.modifyOpInPlace(destination->getOwner(),
                               [&] { destination->set(interior); });
      // The producer's result goes into the padded tensor right after it
      // is made, and its other readers (a residual add) read the padded
      // tensor's interior: with the result read after the insertion,
      // one-shot bufferization gave the producer a buffer of its own,
      // initialized by a copy of the (uninitialized) interior, then copied
      // it into the interior (two serial copies per padded tensor:
      // ConvNeXt's 7x7 depthwise inputs, about 10 ms of its 100 on two
      // Xeon threads).
      Value source = pad.getSource();
      rewriter.setInsertionPointAfterValue(source);
      auto inserted = tensor::InsertSliceOp::create(
          rewriter, loc, source, filled, offsets, sizes, strides);
      Value view = tensor::ExtractSliceOp::create(rewriter, loc, sourceType,
                                                  inserted.getResult(), offsets,
                                                  sizes, strides);
      rewriter.replaceUsesWithIf(source, view, [&](OpOperand &use) {
        return use.getOwner() != inserted && use.getOwner() != pad;
      });
      rewriter.replaceOp(pad, inserted.getResult());
    }
  }
};

} // namespace
