//===- MatmulWindowKernel.cpp - one thread per output of a window op ------===//
//
// Multiply-accumulate ops whose reduction is a small window per output (a
// depthwise convolution: 3x3 to 7x7 taps of one channel) have no GEMM view
// to tile; nor have max and sum pooling. Each thread computes one output
// element with the window in registers, and absorbs what a GEMM kernel absorbs
// (MatmulFusion.cpp): it reads the unpadded input with a bounds check (the
// padding's constant outside it), starts from the constant the output was
// filled with (zero, or max pooling's -inf), and applies the elementwise
// epilogue (batch norm, activation) before the store. Left to
// convert-linalg-to-parallel-loops, such a convolution is four or five
// dispatches: the padded copy's zero fill and copy, the output's zero fill, the
// convolution and its epilogue.
// (Four or two neighbouring outputs per thread, sharing their filter taps
// and, through the driver's compiler, the input columns of neighbouring
// windows, measured slower on an H200: ConvNeXt's 7x7 depthwise
// convolutions at 56x56 14.4 -> 16.2 us, at 28x28 9.2 -> 12.4, the model
// 1.165 -> 1.187 ms; mobilenet_v2 0.414 -> 0.422. A warp's loads then
// span four times the bytes, and a quarter of the threads hide less
// latency.)
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

#include "mlir/Dialect/Linalg/Utils/Utils.h"

namespace mlir::fx::matmul {

bool isWindowOp(linalg::LinalgOp op, std::string &why) {
  auto fail = [&](StringRef reason) {
    why = reason.str();
    return false;
  };
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return fail("not a two-input op on buffers");
  Block &body = op->getRegion(0).front();
  if (!isMultiplyAccumulate(body) && !isWindowReduction(body))
    return fail("its body is not a multiply-accumulate, max or sum");
  // The output may be a view (a slab of a concatenation, fx-concat-in-place):
  // each thread stores through its indices.
  auto out = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!out || !out.hasStaticShape() ||
      !(out.getLayout().isIdentity() ||
        isa<StridedLayoutAttr>(out.getLayout())) ||
      !isa<FloatType>(out.getElementType()))
    return fail("its output is not a static floating-point buffer");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return fail("dynamic loop sizes");
  // Every parallel loop indexes the output (constants index its unit
  // dimensions).
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() ||
      llvm::count_if(outMap.getResults(), llvm::IsaPred<AffineDimExpr>) !=
          op.getNumParallelLoops())
    return fail("the output is not indexed by its parallel loops");
  int64_t window = 1;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
    if (!linalg::isParallelIterator(it))
      window *= ranges[d];
  if (window > kMaxWindow)
    return fail("a reduction longer than a window (" + std::to_string(window) +
                " > " + std::to_string(kMaxWindow) + ")");
  // One workgroup dimension of kThreads threads.
  if (out.getNumElements() > 65535 * kThreads)
    return fail("more outputs than one grid dimension of workgroups holds");
  return true;
}

void buildWindowKernel(linalg::LinalgOp op, const GemmFusion &fusion) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  auto cst = [&](OpBuilder &builder, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  Value out = op.getDpsInits()[0];
  auto outType = cast<MemRefType>(out.getType());
  fx::ElementLaunch launch = fx::createElementLaunch(
      b, fusion.kernelLocation(loc), outType.getNumElements(), kThreads);
  OpBuilder &tb = launch.guarded;
  Value linear = launch.index;

  // The output element of this thread (neighbouring threads own
  // neighbouring elements) and the loop values it fixes.
  SmallVector<Value> outIndex =
      fx::delinearize(tb, loc, linear, outType.getShape());
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<Value> loops(op.getNumLoops(), Value());
  for (auto [r, expr] : llvm::enumerate(outMap.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      loops[dim.getPosition()] = outIndex[r];

  Type element = outType.getElementType();
  Value init =
      !fusion.zeroInit
          ? memref::LoadOp::create(tb, loc, out, outIndex).getResult()
      : fusion.initValue
          ? arith::ConstantOp::create(tb, loc, fusion.initValue).getResult()
          : arith::ConstantOp::create(tb, loc, tb.getZeroAttr(element))
                .getResult();

  // The window: one loop per reduction dimension, the accumulator carried.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> reductions;
  for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
    if (!linalg::isParallelIterator(it))
      reductions.push_back(d);
  std::function<Value(OpBuilder &, unsigned, Value)> window =
      [&](OpBuilder &wb, unsigned level, Value acc) -> Value {
    if (level == reductions.size())
      return emitReductionStep(wb, loc, op, fusion, loops, acc);
    unsigned d = reductions[level];
    auto loop = scf::ForOp::create(wb, loc, cst(wb, 0), cst(wb, ranges[d]),
                                   cst(wb, 1), ValueRange{acc});
    OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
    loops[d] = loop.getInductionVar();
    Value next = window(lb, level + 1, loop.getRegionIterArgs()[0]);
    scf::YieldOp::create(lb, loc, next);
    return loop.getResult(0);
  };
  Value result = window(tb, 0, init);
  storeGemmResult(tb, loc, op, fusion, result, outIndex);
  op->erase();
}

} // namespace mlir::fx::matmul
