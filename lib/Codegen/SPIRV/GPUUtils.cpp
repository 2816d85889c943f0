//===- GPUUtils.cpp - loops of the Vulkan pipeline's kernels --------------===//

#include "fx/Codegen/SPIRV/GPUUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

fx::ElementLaunch fx::createElementLaunch(OpBuilder &b, Location loc,
                                          int64_t total, int64_t threads) {
  auto cst = [&](OpBuilder &ob, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ob, loc, v);
  };
  Value c1 = cst(b, 1);
  auto launch =
      gpu::LaunchOp::create(b, loc, cst(b, llvm::divideCeil(total, threads)),
                            c1, c1, cst(b, threads), c1, c1);
  OpBuilder body = OpBuilder::atBlockBegin(&launch.getBody().front());
  Value index = arith::AddIOp::create(
      body, loc,
      arith::MulIOp::create(body, loc, launch.getBlockIds().x,
                            cst(body, threads)),
      launch.getThreadIds().x);
  auto guard = scf::IfOp::create(
      body, loc,
      arith::CmpIOp::create(body, loc, arith::CmpIPredicate::ult, index,
                            cst(body, total)),
      /*withElseRegion=*/false);
  gpu::TerminatorOp::create(body, loc);
  return {launch, index, guard.getThenBodyBuilder()};
}

namespace {

/// `i + k * stride` clamped to `count - 1`, and whether it is below `count`.
std::pair<Value, Value> copyIndex(OpBuilder &b, Location loc, Value i,
                                  int64_t k, Value stride, int64_t count) {
  Value index = i;
  if (k > 0)
    index = arith::AddIOp::create(
        b, loc, i,
        arith::MulIOp::create(b, loc, stride,
                              arith::ConstantIndexOp::create(b, loc, k)));
  return fx::clampIndex(b, loc, index, count);
}

} // namespace

std::pair<Value, Value> mlir::fx::clampIndex(OpBuilder &b, Location loc,
                                             Value index, int64_t count) {
  Value limit = arith::ConstantIndexOp::create(b, loc, count);
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, limit);
  Value last = arith::ConstantIndexOp::create(b, loc, count - 1);
  Value clamped = arith::MinUIOp::create(b, loc, index, last);
  return {clamped, valid};
}

std::pair<Value, Value> mlir::fx::clampIndex(OpBuilder &b, Location loc,
                                             Value index, Value count) {
  Value valid =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, count);
  Value last = arith::SubIOp::create(b, loc, count,
                                     arith::ConstantIndexOp::create(b, loc, 1));
  Value clamped = arith::MinUIOp::create(b, loc, index, last);
  return {clamped, valid};
}

SmallVector<Value> mlir::fx::delinearize(OpBuilder &b, Location loc,
                                         Value linear,
                                         ArrayRef<int64_t> sizes) {
  SmallVector<Value> indices(sizes.size());
  Value rest = linear;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] == 1) {
      indices[d] = arith::ConstantIndexOp::create(b, loc, 0);
      continue;
    }
    if (llvm::all_of(sizes.take_front(d), [](int64_t s) { return s == 1; })) {
      indices[d] = rest;
      continue;
    }
    Value size = arith::ConstantIndexOp::create(b, loc, sizes[d]);
    indices[d] = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  return indices;
}

SmallVector<Value> mlir::fx::delinearize(OpBuilder &b, Location loc,
                                         Value linear,
                                         ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> known;
  for (OpFoldResult size : sizes)
    known.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  if (known.size() <= 1 || llvm::none_of(ArrayRef<int64_t>(known).drop_front(),
                                         ShapedType::isDynamic))
    return delinearize(b, loc, linear, known);
  SmallVector<Value> indices(sizes.size());
  Value rest = linear;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d > 0; --d) {
    Value size = getValueOrCreateConstantIndexOp(b, loc, sizes[d]);
    indices[d] = arith::RemUIOp::create(b, loc, rest, size);
    rest = arith::DivUIOp::create(b, loc, rest, size);
  }
  if (!sizes.empty())
    indices[0] = rest;
  return indices;
}

Value mlir::fx::linearize(OpBuilder &b, Location loc, ValueRange indices,
                          ArrayRef<int64_t> sizes) {
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [index, stride] : llvm::zip(indices, computeStrides(sizes)))
    linear = arith::AddIOp::create(
        b, loc, linear,
        arith::MulIOp::create(b, loc, index,
                              arith::ConstantIndexOp::create(b, loc, stride)));
  return linear;
}

OpFoldResult mlir::fx::tripCount(OpBuilder &b, Location loc, OpFoldResult lb,
                                 OpFoldResult ub, OpFoldResult step) {
  std::optional<int64_t> l = getConstantIntValue(lb),
                         u = getConstantIntValue(ub),
                         s = getConstantIntValue(step);
  if (l && u && s)
    return b.getIndexAttr(*s > 0 && *u > *l ? (*u - *l + *s - 1) / *s : 0);
  if (l == 0 && s == 1)
    return ub;
  Value extent = arith::MaxSIOp::create(
      b, loc,
      arith::SubIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, ub),
                            getValueOrCreateConstantIndexOp(b, loc, lb)),
      arith::ConstantIndexOp::create(b, loc, 0));
  return arith::CeilDivUIOp::create(
             b, loc, extent, getValueOrCreateConstantIndexOp(b, loc, step))
      .getResult();
}

Value mlir::fx::productOf(OpBuilder &b, Location loc,
                          ArrayRef<OpFoldResult> sizes) {
  int64_t constant = 1;
  Value product;
  for (OpFoldResult size : sizes) {
    if (std::optional<int64_t> known = getConstantIntValue(size)) {
      constant *= *known;
      continue;
    }
    Value value = cast<Value>(size);
    product = product ? arith::MulIOp::create(b, loc, product, value) : value;
  }
  if (!product)
    return arith::ConstantIndexOp::create(b, loc, constant);
  if (constant != 1)
    product = arith::MulIOp::create(
        b, loc, product, arith::ConstantIndexOp::create(b, loc, constant));
  return product;
}

namespace {

/// emitUnrolledStridedLoop over `count` iterations, ending at `end` (the
/// count as a value); `clamp(b, index)` gives the clamped index and whether
/// it is in range.
void stridedLoop(
    OpBuilder &b, Location loc, Value start, Value end, Value stride,
    int64_t unroll,
    function_ref<std::pair<Value, Value>(OpBuilder &, Value)> clamp,
    function_ref<void(OpBuilder &, Value)> body) {
  Value step = arith::MulIOp::create(
      b, loc, stride, arith::ConstantIndexOp::create(b, loc, unroll));
  auto loop = scf::ForOp::create(b, loc, start, end, step);
  Block *block = loop.getBody();
  OpBuilder inner = OpBuilder::atBlockBegin(block);
  SmallVector<Operation *> guards;
  for (int64_t k = 0; k < unroll; ++k) {
    Value i = loop.getInductionVar();
    if (k > 0)
      i = arith::AddIOp::create(
          inner, loc, i,
          arith::MulIOp::create(inner, loc, stride,
                                arith::ConstantIndexOp::create(inner, loc, k)));
    auto [index, valid] = clamp(inner, i);
    llvm::SmallPtrSet<Operation *, 16> before;
    for (Operation &op : *block)
      before.insert(&op);
    body(inner, index);
    SmallVector<Operation *> stores;
    for (Operation &op : *block)
      if (isa<memref::StoreOp>(op) && !before.contains(&op))
        stores.push_back(&op);
    for (Operation *store : stores) {
      OpBuilder at(store);
      auto guard = scf::IfOp::create(at, loc, valid, /*withElse=*/false);
      store->moveBefore(guard.thenBlock()->getTerminator());
      guards.push_back(guard);
    }
  }
  for (Operation *guard : guards)
    guard->moveBefore(block->getTerminator());
}

} // namespace

void mlir::fx::emitUnrolledStridedLoop(
    OpBuilder &b, Location loc, Value start, int64_t count, Value stride,
    int64_t unroll, function_ref<void(OpBuilder &, Value)> body) {
  stridedLoop(
      b, loc, start, arith::ConstantIndexOp::create(b, loc, count), stride,
      unroll,
      [&](OpBuilder &inner, Value index) {
        return clampIndex(inner, loc, index, count);
      },
      body);
}

void mlir::fx::emitUnrolledStridedLoop(
    OpBuilder &b, Location loc, Value start, Value count, Value stride,
    int64_t unroll, function_ref<void(OpBuilder &, Value)> body) {
  // count - 1 (a loop with no iterations never uses it).
  Value last = arith::SubIOp::create(b, loc, count,
                                     arith::ConstantIndexOp::create(b, loc, 1));
  stridedLoop(
      b, loc, start, count, stride, unroll,
      [&](OpBuilder &inner, Value index) -> std::pair<Value, Value> {
        Value valid = arith::CmpIOp::create(
            inner, loc, arith::CmpIPredicate::ult, index, count);
        return {arith::MinUIOp::create(inner, loc, index, last), valid};
      },
      body);
}

Value mlir::fx::emitUnrolledStridedReduction(
    OpBuilder &b, Location loc, Value start, int64_t count, Value stride,
    int64_t unroll, Value init,
    function_ref<Value(OpBuilder &, Value, Value)> body) {
  Value step = arith::MulIOp::create(
      b, loc, stride, arith::ConstantIndexOp::create(b, loc, unroll));
  auto loop = scf::ForOp::create(b, loc, start,
                                 arith::ConstantIndexOp::create(b, loc, count),
                                 step, ValueRange{init});
  OpBuilder inner = OpBuilder::atBlockBegin(loop.getBody());
  Value acc = loop.getRegionIterArgs().front();
  for (int64_t k = 0; k < unroll; ++k) {
    auto [index, valid] =
        copyIndex(inner, loc, loop.getInductionVar(), k, stride, count);
    Value next = body(inner, index, acc);
    acc = k == 0 ? next : arith::SelectOp::create(inner, loc, valid, next, acc);
  }
  scf::YieldOp::create(inner, loc, acc);
  return loop.getResult(0);
}
