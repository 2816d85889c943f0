//===- LinalgUtils.cpp - linalg queries shared by the FX passes -----------===//

#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

#include <thread>

using namespace mlir;

/// The NameLoc prefix of withKernelRole.
static constexpr llvm::StringLiteral kRolePrefix = "fx.kernel_role:";

std::string fx::describeLocation(Location loc, StringRef unnamed) {
  llvm::SetVector<StringRef> names;
  std::string place, role;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      StringRef name = named.getName().getValue();
      if (name.consume_front(kRolePrefix)) {
        if (role.empty())
          role = name.str();
      } else {
        names.insert(name);
      }
    }
    if (auto file = dyn_cast<FileLineColLoc>(inner); file && place.empty())
      place =
          (file.getFilename().getValue() + ":" + Twine(file.getLine())).str();
    return WalkResult::advance();
  });
  std::string text = (names.empty() ? unnamed : names.front()).str();
  if (names.size() > 1)
    text += " +" + std::to_string(names.size() - 1) + " fused";
  if (!place.empty())
    text += " (" + place + ")";
  return role.empty() ? text : role + ": " + text;
}

Location fx::withKernelRole(Location loc, StringRef role) {
  return NameLoc::get(
      StringAttr::get(loc->getContext(), Twine(kRolePrefix) + role), loc);
}

bool mlir::fx::isContractionLike(linalg::LinalgOp op) {
  // Convolutions read two operands along their window dims too, but have
  // their own tiling.
  if (op.getNumReductionLoops() == 0 ||
      isa<linalg::ConvolutionOpInterface>(op.getOperation()))
    return false;
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  int64_t readers = 0;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (llvm::any_of(reductionDims,
                     [&](unsigned d) { return map.isFunctionOfDim(d); }))
      ++readers;
  }
  return readers > 1;
}

int64_t mlir::fx::resolveThreadCount(int64_t threads) {
  return threads > 0
             ? threads
             : std::max<int64_t>(std::thread::hardware_concurrency(), 1);
}

int64_t mlir::fx::staticIterationCount(linalg::LinalgOp op) {
  int64_t work = 1;
  for (int64_t r : op.getStaticLoopRanges())
    work = ShapedType::isDynamic(r) ? work : work * r;
  return work;
}

Operation *mlir::fx::getReductionCombiner(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || op->getRegion(0).getBlocks().size() != 1)
    return nullptr;
  SmallVector<BlockArgument> outputs(op.getRegionOutputArgs());
  SmallVector<Operation *> combiners;
  if (!matchReduction(outputs, 0, combiners) || combiners.size() != 1)
    return nullptr;
  // The running value must feed only the combiner.
  if (!outputs.front().hasOneUse())
    return nullptr;
  return combiners.front();
}

bool mlir::fx::isWorkgroupCombinable(Operation *combiner) {
  return combiner &&
         isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MulIOp,
             arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(
             combiner);
}

std::optional<linalg::ContractionDimensions>
mlir::fx::getDotContraction(linalg::LinalgOp op, int64_t minK) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return std::nullopt;
  for (Value v : op->getOperands())
    if (!getElementTypeOrSelf(v.getType()).isF32())
      return std::nullopt;
  unsigned m = dims->m.front(), n = dims->n.front(), k = dims->k.front();
  auto innermost = [&](OpOperand &operand, unsigned dim, unsigned rows) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    unsigned results = map.getNumResults();
    return map.isProjectedPermutation() && results >= 2 &&
           map.getDimPosition(results - 1) == dim &&
           map.getDimPosition(results - 2) == rows;
  };
  if (!innermost(*op.getDpsInputOperand(0), k, m) ||
      !innermost(*op.getDpsInputOperand(1), k, n) ||
      !innermost(*op.getDpsInitOperand(0), n, m))
    return std::nullopt;
  int64_t size = op.getStaticLoopRanges()[k];
  if (ShapedType::isDynamic(size) || size < minK)
    return std::nullopt;
  return *dims;
}

bool fx::isWeightConstant(Operation *op) {
  auto constant = dyn_cast_or_null<arith::ConstantOp>(op);
  if (!constant)
    return false;
  auto elements = dyn_cast<ElementsAttr>(constant.getValue());
  auto type = dyn_cast<RankedTensorType>(constant.getType());
  return elements && type && type.hasStaticShape() && !elements.isSplat() &&
         type.getNumElements() >= 1024;
}

bool fx::isPackableFilter(Value filter) {
  if (auto arg = dyn_cast<BlockArgument>(filter)) {
    auto owner = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    return owner && arg.getOwner() == &owner.getBody().front() &&
           owner.getArgAttr(arg.getArgNumber(), "fx.param");
  }
  Operation *def = filter.getDefiningOp();
  return isWeightConstant(def) && isa<func::FuncOp>(def->getParentOp());
}

std::optional<fx::StaticConvTypes>
fx::getStaticConvTypes(linalg::LinalgOp conv) {
  if (conv.getNumDpsInputs() != 2 || conv.getNumDpsInits() != 1)
    return std::nullopt;
  auto input = dyn_cast<RankedTensorType>(conv.getDpsInputs()[0].getType());
  auto filter = dyn_cast<RankedTensorType>(conv.getDpsInputs()[1].getType());
  auto output = dyn_cast<RankedTensorType>(conv.getDpsInits()[0].getType());
  if (!input || !filter || !output || !input.hasStaticShape() ||
      !filter.hasStaticShape() || !output.hasStaticShape())
    return std::nullopt;
  return StaticConvTypes{input, filter, output};
}

bool fx::isRowTiledDepthwise(Operation *op) {
  auto conv = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(op);
  return conv && llvm::all_of(conv.getDilations().getValues<int64_t>(),
                              [](int64_t d) { return d == 1; });
}

bool fx::isPointwiseConvolution(linalg::LinalgOp op) {
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op.getOperation());
  if (!conv)
    return false;
  auto filter = dyn_cast<ShapedType>(conv.getInputs()[1].getType());
  if (!filter || !filter.hasRank() || filter.getRank() != 4 ||
      filter.getDimSize(2) != 1 || filter.getDimSize(3) != 1)
    return false;
  return llvm::all_of(conv.getStrides().getValues<int64_t>(),
                      [](int64_t s) { return s == 1; });
}

bool fx::packsPointwiseConvolution(int64_t height, int64_t width,
                                   int64_t packedTileW) {
  if (ShapedType::isDynamic(height) || ShapedType::isDynamic(width))
    return false;
  int64_t pixels = height * width;
  return pixels > 1 && pixels <= 64 && width <= packedTileW;
}

SmallVector<AffineMap> fx::matmulIndexingMaps(MLIRContext *ctx,
                                              bool transposedB) {
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  return {AffineMap::get(3, 0, {m, k}, ctx),
          transposedB ? AffineMap::get(3, 0, {n, k}, ctx)
                      : AffineMap::get(3, 0, {k, n}, ctx),
          AffineMap::get(3, 0, {m, n}, ctx)};
}

bool fx::isConstantFill(Operation *op) {
  auto isConstantOrEmpty = [](Value v) {
    Operation *def = v.getDefiningOp();
    return def && (def->hasTrait<OpTrait::ConstantLike>() ||
                   isa<tensor::EmptyOp>(def));
  };
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.hasPureTensorSemantics() &&
           llvm::all_of(fill->getOperands(), isConstantOrEmpty);
  if (!isa<scf::ForallOp, scf::ForOp>(op) ||
      !llvm::all_of(op->getOperands(), isConstantOrEmpty))
    return false;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegion(0), captured);
  if (!llvm::all_of(captured, isConstantOrEmpty))
    return false;
  WalkResult result = op->getRegion(0).walk([](Operation *inner) {
    if (isa<tensor::ParallelInsertSliceOp, scf::InParallelOp>(inner) ||
        isMemoryEffectFree(inner))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

OpOperand *fx::tiedDestination(OpResult result) {
  Operation *op = result.getOwner();
  if (auto forall = dyn_cast<scf::ForallOp>(op))
    return forall.getTiedOpOperand(result);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return &loop.getInitArgsMutable()[result.getResultNumber()];
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return dps.getTiedOpOperand(result);
  return nullptr;
}

bool fx::usedOnlyAfter(ValueRange values, Operation *op) {
  Block *block = op->getBlock();
  for (Value value : values)
    for (Operation *user : value.getUsers()) {
      if (user == op)
        continue;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor || !op->isBeforeInBlock(ancestor))
        return false;
    }
  return true;
}

Value fx::viewedBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}
