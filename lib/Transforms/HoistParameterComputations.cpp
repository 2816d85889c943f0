//===- HoistParameterComputations.cpp - fx-hoist-parameter-computations ---===//
//
// Computations on the weights alone (a linear layer's weight transposed for
// the CPU's register tiles, later repacked filters) are the same on every
// run. This pass moves them into a function of their own that the runtime
// calls once per binding of the weights, the rewrite IREE's const-eval and
// TorchInductor's freezing make for constant weights; here the weights stay
// arguments (bound after compilation), so the result is computed at bind
// time rather than folded at compile time.
//
// The pass is written here rather than with upstream's loop-invariant code
// motion because the "loop" is the sequence of runs: there is no loop op to
// hoist out of, and the hoisted values must become arguments.
//
//===----------------------------------------------------------------------===//

#include "fx/Transforms/LinalgUtils.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXHOISTPARAMETERCOMPUTATIONS
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// True if `op` and every op nested in it have no side effect (tensor ops,
/// linalg on tensors, and the parallel loops of dispatch regions, whose
/// parallel_insert_slice terminators write only their own results).
bool isSideEffectFree(Operation *op) {
  WalkResult result = op->walk([](Operation *inner) {
    if (isa<tensor::ParallelInsertSliceOp, scf::InParallelOp>(inner))
      return WalkResult::advance();
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner))
      return effects.hasNoEffect() ? WalkResult::advance()
                                   : WalkResult::interrupt();
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// The values `op` reads: its operands and the values its regions use from
/// outside it.
SmallVector<Value> readValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value operand : inner->getOperands())
      if (!op->isAncestor(operand.getParentBlock()->getParentOp()))
        values.push_back(operand);
  });
  return values;
}

int64_t elementCount(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : -1;
}

struct HoistParameterComputationsPass
    : public fx::impl::FXHoistParameterComputationsBase<
          HoistParameterComputationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.push_back(func);
    SmallVector<NamedAttribute> records;
    for (func::FuncOp func : entries)
      if (std::optional<NamedAttribute> record = hoist(func))
        records.push_back(*record);
    if (!records.empty())
      module->setAttr("fx.prepare",
                      DictionaryAttr::get(&getContext(), records));
  }

  /// Hoists `func`'s parameter computations; returns its record for the
  /// module's `fx.prepare` attribute, or nothing if none moved.
  std::optional<NamedAttribute> hoist(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    Block &body = func.getBody().front();
    // Values known on parameters (and constants) alone, and which of them
    // a linalg op computes from a parameter or a weight constant.
    llvm::DenseSet<Value> invariant;
    llvm::DenseSet<Value> computed;
    // For each invariant value, the element count of the parameters it is
    // computed from (a bound on what is worth storing).
    llvm::DenseMap<Value, int64_t> sourceElements;
    for (BlockArgument arg : func.getArguments())
      if (func.getArgAttr(arg.getArgNumber(), "fx.param")) {
        invariant.insert(arg);
        sourceElements[arg] = elementCount(arg);
      }
    llvm::SetVector<Operation *> invariantOps;
    for (Operation &op : body.without_terminator()) {
      SmallVector<Value> reads = readValues(&op);
      bool allInvariant = llvm::all_of(reads, [&](Value v) {
        return invariant.contains(v) ||
               // Constants defined inside are fine; so are values of
               // invariant ops.
               (v.getDefiningOp() &&
                v.getDefiningOp()->hasTrait<OpTrait::ConstantLike>());
      });
      if (!allInvariant || !isSideEffectFree(&op))
        continue;
      invariantOps.insert(&op);
      bool isCompute = false;
      op.walk([&](linalg::LinalgOp) { isCompute = true; });
      bool fromComputed = false;
      int64_t sources = 0;
      llvm::DenseSet<Value> counted;
      for (Value v : reads) {
        fromComputed |= computed.contains(v);
        auto it = sourceElements.find(v);
        if (it != sourceElements.end() && counted.insert(v).second)
          sources = (sources < 0 || it->second < 0) ? -1 : sources + it->second;
      }
      // A weight frozen into the IR counts as a parameter.
      if (fx::isWeightConstant(&op))
        sources = elementCount(op.getResult(0));
      for (Value result : op.getResults()) {
        invariant.insert(result);
        sourceElements[result] = sources;
        // Computed: a linalg op on something that comes from a parameter.
        if ((isCompute && sources != 0) || fromComputed)
          computed.insert(result);
      }
    }

    // What the entry keeps using: computed values with a user outside the
    // hoisted ops, no larger than the parameters they come from.
    SmallVector<Value> frontier;
    for (Operation *op : invariantOps)
      for (Value result : op->getResults()) {
        if (!computed.contains(result))
          continue;
        bool usedOutside = llvm::any_of(result.getUsers(), [&](Operation *u) {
          Operation *top = body.findAncestorOpInBlock(*u);
          return !top || !invariantOps.contains(top);
        });
        int64_t size = elementCount(result), sources = sourceElements[result];
        if (usedOutside && size >= 0 && sources >= 0 && size <= 2 * sources)
          frontier.push_back(result);
      }
    if (frontier.empty())
      return std::nullopt;

    // The ops the frontier is computed from, and the parameters they read.
    llvm::DenseSet<Operation *> slice;
    llvm::SetVector<BlockArgument> parameters;
    SmallVector<Value> worklist(frontier.begin(), frontier.end());
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(value)) {
        if (arg.getOwner() == &body)
          parameters.insert(arg);
        continue;
      }
      Operation *def = value.getDefiningOp();
      if (!def || def->getBlock() != &body || !slice.insert(def).second)
        continue;
      llvm::append_range(worklist, readValues(def));
    }
    SmallVector<BlockArgument> orderedParameters(parameters.begin(),
                                                 parameters.end());
    llvm::sort(orderedParameters, [](BlockArgument a, BlockArgument b) {
      return a.getArgNumber() < b.getArgNumber();
    });

    // The prepare function: the slice, in its order in the entry.
    OpBuilder builder(ctx);
    builder.setInsertionPointAfter(func);
    SmallVector<Type> argumentTypes, resultTypes;
    for (BlockArgument arg : orderedParameters)
      argumentTypes.push_back(arg.getType());
    for (Value value : frontier)
      resultTypes.push_back(value.getType());
    std::string name = (func.getName() + "__prepare").str();
    auto prepare = func::FuncOp::create(
        builder, func.getLoc(), name,
        FunctionType::get(ctx, argumentTypes, resultTypes));
    Block *entry = prepare.addEntryBlock();
    IRMapping mapping;
    SmallVector<int64_t> argumentIndices;
    for (auto [i, arg] : llvm::enumerate(orderedParameters)) {
      mapping.map(arg, entry->getArgument(i));
      argumentIndices.push_back(arg.getArgNumber());
      prepare.setArgAttr(i, "fx.argument",
                         builder.getI64IntegerAttr(arg.getArgNumber()));
    }
    builder.setInsertionPointToStart(entry);
    for (Operation &op : body.without_terminator())
      if (slice.contains(&op))
        builder.clone(op, mapping);
    SmallVector<Value> returned;
    for (Value value : frontier)
      returned.push_back(mapping.lookup(value));
    func::ReturnOp::create(builder, func.getLoc(), returned);

    // The entry takes the results as trailing arguments.
    SmallVector<Attribute> resultTypeAttrs;
    for (auto [i, value] : llvm::enumerate(frontier)) {
      unsigned index = func.getNumArguments();
      NamedAttribute tag(StringAttr::get(ctx, "fx.prepared"),
                         builder.getI64IntegerAttr(i));
      (void)func.insertArgument(index, value.getType(),
                                DictionaryAttr::get(ctx, {tag}),
                                value.getLoc());
      value.replaceAllUsesWith(func.getArgument(index));
      resultTypeAttrs.push_back(TypeAttr::get(value.getType()));
    }
    // What no longer has a use goes, last first.
    for (Operation *op : llvm::reverse(invariantOps))
      if (op->use_empty())
        op->erase();

    NamedAttribute record[] = {
        builder.getNamedAttr("function", builder.getStringAttr(name)),
        builder.getNamedAttr("arguments",
                             builder.getDenseI64ArrayAttr(argumentIndices)),
        builder.getNamedAttr("results", builder.getArrayAttr(resultTypeAttrs)),
    };
    return builder.getNamedAttr(func.getName(),
                                builder.getDictionaryAttr(record));
  }
};

} // namespace
