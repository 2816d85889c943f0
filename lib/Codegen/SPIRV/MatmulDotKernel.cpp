//===- MatmulDotKernel.cpp - a subgroup per output of a matrix-vector GEMM ===//
//
// GEMMs whose output is a vector (one of the rows and columns groups has a
// single element: a classifier's `linear` at batch 1, a squeeze-and-
// excitation block's 1x1 convolutions on a 1x1 image) are a dot product per
// output element. A 64x64 output tile of the tiled kernel keeps one of its
// 64 rows busy, and a long k is then split over workgroups whose partial
// sums a second kernel adds. Here a 32-lane subgroup computes one output:
// its lanes stride along k (neighbouring lanes read neighbouring elements
// where k runs contiguously in memory, as a linear layer's weight rows and
// a 1x1 convolution's filter rows do), `gpu.subgroup_reduce` adds the
// lanes' sums, and the first lane applies the fused epilogue and stores.
// One kernel instead of two, and every thread busy.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernels.h"

namespace mlir::fx::matmul {

/// Lanes of a subgroup on the targets this kernel runs on (those with
/// cooperative matrices, whose GEMM kernels assume 32 too), and subgroups
/// (outputs) per workgroup.
constexpr int64_t kDotLanes = 32, kDotSubgroups = 4;

bool isDotProductGemm(const GemmView &view) {
  if (view.rows.isDynamic() || view.cols.isDynamic() ||
      view.batch.isDynamic() || view.reduction.isDynamic())
    return false;
  int64_t outputs = view.batch.size() * view.rows.size() * view.cols.size();
  return (view.rows.size() == 1 || view.cols.size() == 1) &&
         view.reduction.size() >= 2 * kDotLanes &&
         llvm::divideCeil(outputs, kDotSubgroups) <= 65535;
}

void buildDotKernel(linalg::LinalgOp op, const GemmView &view,
                    const GemmFusion &fusion) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  auto cst = [&](OpBuilder &builder, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  int64_t outputs = view.batch.size() * view.rows.size() * view.cols.size();
  Value c1 = cst(b, 1);
  auto launch =
      gpu::LaunchOp::create(b, fusion.kernelLocation(loc),
                            cst(b, llvm::divideCeil(outputs, kDotSubgroups)),
                            c1, c1, cst(b, kDotLanes * kDotSubgroups), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value thread = launch.getThreadIds().x;
  Value lane = arith::RemUIOp::create(body, loc, thread, cst(body, kDotLanes));
  Value output = arith::AddIOp::create(
      body, loc,
      arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                            cst(body, kDotSubgroups)),
      arith::DivUIOp::create(body, loc, thread, cst(body, kDotLanes)));
  // The guard is uniform in each subgroup: the reduction below runs with
  // all of a subgroup's lanes or none.
  auto guard = scf::IfOp::create(
      body, loc,
      arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ult, output,
                            cst(body, outputs)),
      /*withElseRegion=*/false);
  gpu::TerminatorOp::create(body, loc);
  OpBuilder tb = guard.getThenBodyBuilder();

  // The output's loop values: batch, rows and columns, outermost first.
  SmallVector<unsigned> outLoops;
  SmallVector<int64_t> outSizes;
  for (const Group *group : {&view.batch, &view.rows, &view.cols}) {
    llvm::append_range(outLoops, group->loops);
    llvm::append_range(outSizes, group->sizes);
  }
  SmallVector<Value> loops(op.getNumLoops(), Value());
  if (!outLoops.empty()) {
    SmallVector<Value> at = fx::delinearize(tb, loc, output, outSizes);
    for (auto [loop, value] : llvm::zip(outLoops, at))
      loops[loop] = value;
  }

  // Each lane's sum over k = lane, lane + 32, ...
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  Value zeroValue = arith::ConstantOp::create(tb, loc, tb.getZeroAttr(element));
  auto kLoop = scf::ForOp::create(tb, loc, lane, cst(tb, view.reduction.size()),
                                  cst(tb, kDotLanes), ValueRange{zeroValue});
  {
    OpBuilder lb = OpBuilder::atBlockBegin(kLoop.getBody());
    SmallVector<Value> at =
        fx::delinearize(lb, loc, kLoop.getInductionVar(), view.reduction.sizes);
    for (auto [loop, value] : llvm::zip(view.reduction.loops, at))
      loops[loop] = value;
    scf::YieldOp::create(lb, loc,
                         emitReductionStep(lb, loc, op, fusion, loops,
                                           kLoop.getRegionIterArgs()[0]));
  }
  Value sum = gpu::SubgroupReduceOp::create(tb, loc, kLoop.getResult(0),
                                            gpu::AllReduceOperation::ADD,
                                            /*uniform=*/true);
  auto first =
      scf::IfOp::create(tb, loc,
                        arith::CmpIOp::create(tb, loc, arith::CmpIPredicate::eq,
                                              lane, cst(tb, 0)),
                        /*withElseRegion=*/false);
  OpBuilder fb = first.getThenBodyBuilder();
  // (The reduction's loop values lived in the k loop.)
  for (unsigned loop : view.reduction.loops)
    loops[loop] = Value();
  SmallVector<Value> outIndices =
      operandIndices(fb, loc, op, 2, loops, /*zero=*/cst(fb, 0));
  // Accumulate into the output's value unless the kernel absorbed its
  // zero fill.
  if (!fusion.zeroInit)
    sum = arith::AddFOp::create(
        fb, loc,
        memref::LoadOp::create(fb, loc, op.getDpsInits()[0], outIndices), sum);
  storeGemmResult(fb, loc, op, fusion, sum, outIndices);
  op->erase();
}

} // namespace mlir::fx::matmul
