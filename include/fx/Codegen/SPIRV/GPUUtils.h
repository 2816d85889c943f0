//===- GPUUtils.h - loops of the Vulkan pipeline's kernels ------*- C++ -*-===//
//
// Strided loops that keep several loads per thread in flight: shared by
// fx-map-parallel-loops-to-gpu and fx-map-row-kernels-to-gpu.
//
//===----------------------------------------------------------------------===//

#ifndef FX_CODEGEN_SPIRV_GPUUTILS_H
#define FX_CODEGEN_SPIRV_GPUUTILS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::fx {

/// Loads per thread in flight in the strided loops of kernels. A memory-
/// bound kernel needs several outstanding loads per thread to cover the
/// memory latency (one is about a third of an H200's bandwidth).
constexpr int64_t kStridedUnroll = 4;

/// On a memref.alloc of the host function: state that lives from call to
/// call, all zeros when the program is loaded (split-k's tile counters,
/// which their kernel leaves at zero): the Vulkan program keeps it as a
/// zero-initialized buffer of its own, outside the temporaries' arena.
constexpr llvm::StringLiteral kPersistentZerosAttr = "fx.persistent_zeros";

/// `min(index, count - 1)` (unsigned) and whether `index < count`: an index
/// that is always safe to load from, and whether its element exists.
std::pair<Value, Value> clampIndex(OpBuilder &b, Location loc, Value index,
                                   int64_t count);
/// Like the above for a count computed at run time.
std::pair<Value, Value> clampIndex(OpBuilder &b, Location loc, Value index,
                                   Value count);

/// The indices of `linear` in a row-major iteration space of static
/// `sizes` (innermost fastest): unit dimensions get 0, and the remainder and
/// division are skipped where the dimensions above are all units.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> sizes);

/// Like the above with sizes that may be values (dynamic dimensions); the
/// outermost size is never needed.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<OpFoldResult> sizes);

/// The linear index of `indices` in a row-major iteration space of static
/// `sizes` (innermost fastest): the inverse of delinearize.
Value linearize(OpBuilder &b, Location loc, ValueRange indices,
                ArrayRef<int64_t> sizes);

/// The trip count of a loop from `lb` to `ub` by `step`: a constant when
/// all three are (0 for an empty loop), `ub` for a dynamic upper bound from
/// 0 by 1, else max(ub - lb, 0) ceildiv step computed at `b`.
OpFoldResult tripCount(OpBuilder &b, Location loc, OpFoldResult lb,
                       OpFoldResult ub, OpFoldResult step);

/// The product of `sizes` as one value: the static factors folded into one
/// constant, the dynamic ones multiplied at `b`'s insertion point.
Value productOf(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes);

/// Emits `for (i = start; i < count; i += stride * unroll)` running
/// `body(b, index)` for `index = min(i + k * stride, count - 1)`, k <
/// unroll: loads use `index` unconditionally, and the memref.store ops the
/// body emits (not nested in regions) are guarded by `i + k * stride <
/// count` and moved after all copies' loads and arithmetic, so that the
/// copies' loads issue together. Requires the copies to be independent
/// (iterations of a parallel loop).
void emitUnrolledStridedLoop(OpBuilder &b, Location loc, Value start,
                             int64_t count, Value stride, int64_t unroll,
                             function_ref<void(OpBuilder &, Value index)> body);

/// Like the above for a count computed at run time (a dynamic dimension).
void emitUnrolledStridedLoop(OpBuilder &b, Location loc, Value start,
                             Value count, Value stride, int64_t unroll,
                             function_ref<void(OpBuilder &, Value index)> body);

/// A gpu.launch of one thread per element of `total` (workgroups of
/// `threads`), created at `b`: `index` is the thread's element, `guarded`
/// builds inside the guard `index < total` (the launch body's terminator
/// is in place).
struct ElementLaunch {
  gpu::LaunchOp launch;
  Value index;
  OpBuilder guarded;
};
ElementLaunch createElementLaunch(OpBuilder &b, Location loc, int64_t total,
                                  int64_t threads);

/// Like emitUnrolledStridedLoop for a reduction: `body(b, index, acc)`
/// returns the accumulator after `index`; copies beyond `count` keep the
/// accumulator. Returns the final accumulator.
Value emitUnrolledStridedReduction(
    OpBuilder &b, Location loc, Value start, int64_t count, Value stride,
    int64_t unroll, Value init,
    function_ref<Value(OpBuilder &, Value index, Value acc)> body);

} // namespace mlir::fx

#endif // FX_CODEGEN_SPIRV_GPUUTILS_H
