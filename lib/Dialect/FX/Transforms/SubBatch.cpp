//===- SubBatch.cpp - run a batch as calls of a smaller one ---------------===//
//
// The batch analysis walks the function once in program order. A value is
// batched when it depends on an input that is not a parameter; every other
// value (parameters, constants, what is computed from them alone) is free of
// the batch. An op with a batched operand must be one this file knows, and
// its rule (below) must hold: each says which operands may be batched,
// which must be free, and which of its dimension attributes may not name
// dimension 0. Its results are then batched and must have the batch as
// their outermost dimension. Anything else (an op not listed, a reduction
// over dimension 0, a view that merges the batch with another dimension)
// makes the function unsplittable, so a new FX op is safe until it is added
// here.
//
//===----------------------------------------------------------------------===//

#include "fx/Dialect/FX/Transforms/SubBatch.h"
#include "fx/Dialect/FX/IR/FXOps.h"
#include "fx/Dialect/FX/Transforms/Passes.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXSUBBATCH
#include "fx/Dialect/FX/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;
using namespace mlir::fx;

namespace {

LogicalResult fail(BatchSplitFailure &failure, Operation *op,
                   const Twine &reason) {
  failure.op = op;
  failure.reason = reason.str();
  return LogicalResult::failure();
}

int64_t normalized(int64_t dim, int64_t rank) {
  return dim < 0 ? dim + rank : dim;
}

int64_t rankOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getRank();
}

/// Elementwise ops with PyTorch broadcasting: each batched operand has the
/// batch outermost, and a free operand must broadcast along it.
bool isBroadcastingElementwise(Operation *op) {
  return isa<
      // Unary.
      ReluOp, SigmoidOp, TanhOp, ExpOp, LogOp, SqrtOp, RsqrtOp, ReciprocalOp,
      SinOp, CosOp, ErfOp, TanOp, AsinOp, AcosOp, AtanOp, SinhOp, CoshOp,
      AsinhOp, AcoshOp, AtanhOp, Log1pOp, Expm1Op, Log2Op, Log10Op, FloorOp,
      CeilOp, RoundOp, TruncOp, SignOp, IsnanOp, IsinfOp, LogicalNotOp,
      BitwiseNotOp, SiluOp, HardswishOp, HardsigmoidOp, NegOp, AbsOp, GeluOp,
      HardtanhOp, ClampOp, ConvertElementTypeOp, CloneOp, ContiguousOp,
      // Binary and ternary.
      AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, RemainderOp,
      FmodOp, Atan2Op, LogicalAndOp, LogicalOrOp, LogicalXorOp, BitwiseAndOp,
      BitwiseOrOp, BitwiseXorOp, EqOp, NeOp, LtOp, LeOp, GtOp, GeOp, WhereOp>(
      op);
}

struct Analyzer {
  func::FuncOp func;
  BatchSplitFailure &failure;
  DenseSet<Value> batched;
  int64_t batch = 0;

  LogicalResult fail(Operation *op, const Twine &reason) {
    return ::fail(failure, op, reason);
  }

  bool isBatched(Value v) const { return batched.contains(v); }

  /// A free operand broadcasts along the batch of a result of rank `rank`.
  static bool broadcastsAlongBatch(Value free, int64_t rank) {
    auto type = cast<RankedTensorType>(free.getType());
    return type.getRank() < rank || type.getDimSize(0) == 1;
  }

  /// The rule of `op`, whose operands include a batched one; the empty
  /// string when it holds, else why not.
  std::string rule(Operation *op) {
    auto needFree = [&](ValueRange values, StringRef what) -> std::string {
      for (Value v : values)
        if (isBatched(v))
          return ("its " + what + " depends on the inputs").str();
      return "";
    };
    auto needBatched = [&](ValueRange values, StringRef what) -> std::string {
      for (Value v : values)
        if (!isBatched(v))
          return ("its " + what +
                  " does not depend on the inputs while another operand does")
              .str();
      return "";
    };
    auto notDimZero = [](int64_t dim, int64_t rank,
                         StringRef what) -> std::string {
      if (normalized(dim, rank) == 0)
        return ("it works along dimension 0 (its " + what + ")").str();
      return "";
    };
    if (isBroadcastingElementwise(op)) {
      int64_t rank = rankOf(op->getResult(0));
      for (Value v : op->getOperands())
        if (!isBatched(v) && !broadcastsAlongBatch(v, rank))
          return "an operand that does not depend on the inputs has the "
                 "batch dimension without broadcasting along it";
      return "";
    }
    return llvm::TypeSwitch<Operation *, std::string>(op)
        .Case([&](ConvolutionOp conv) {
          std::string why = needFree(conv.getWeight(), "weight");
          return why.empty() && conv.getBias()
                     ? needFree(conv.getBias(), "bias")
                     : why;
        })
        .Case<MaxPool2dOp, MaxPool2dWithIndicesOp, AvgPool2dOp,
              AdaptiveAvgPool2dOp>([](Operation *) { return ""; })
        .Case([&](BatchNormOp bn) {
          return needFree(bn->getOperands().drop_front(),
                          "running statistics or affine parameters");
        })
        .Case([&](LayerNormOp ln) {
          if (int64_t(ln.getNormalizedShape().size()) >= rankOf(ln.getInput()))
            return std::string("it normalizes over dimension 0");
          return needFree(ln->getOperands().drop_front(), "weight or bias");
        })
        .Case<SoftmaxOp, LogSoftmaxOp>([&](auto softmax) {
          return notDimZero(softmax.getDim(), rankOf(softmax.getSelf()), "dim");
        })
        .Case<SumOp, MeanOp, AmaxOp, AminOp>([&](auto reduce) {
          int64_t rank = rankOf(reduce.getSelf());
          if (reduce.getDim().empty())
            return std::string("it reduces over all dimensions");
          for (int64_t d : reduce.getDim())
            if (normalized(d, rank) == 0)
              return std::string("it reduces over dimension 0");
          return std::string();
        })
        .Case([&](LinearOp linear) {
          if (rankOf(linear.getInput()) < 2)
            return std::string("its input has no batch dimension");
          std::string why = needFree(linear.getWeight(), "weight");
          return why.empty() && linear.getBias()
                     ? needFree(linear.getBias(), "bias")
                     : why;
        })
        .Case([&](MmOp mm) {
          std::string why = needBatched(mm.getSelf(), "first operand");
          return why.empty() ? needFree(mm.getMat2(), "second operand") : why;
        })
        .Case([&](AddmmOp addmm) {
          std::string why = needBatched(addmm.getMat1(), "first factor");
          if (why.empty())
            why = needFree(ValueRange{addmm.getMat2(), addmm.getSelf()},
                           "second factor or bias");
          if (why.empty() && !broadcastsAlongBatch(addmm.getSelf(), 2))
            why = "its bias has the batch dimension";
          return why;
        })
        .Case([&](BmmOp bmm) {
          return needBatched(bmm->getOperands(), "operands");
        })
        .Case([&](ScaledDotProductAttentionOp sdpa) {
          std::string why = needBatched(
              ValueRange{sdpa.getQuery(), sdpa.getKey(), sdpa.getValue()},
              "query, key or value");
          if (why.empty() && sdpa.getAttnMask() &&
              !isBatched(sdpa.getAttnMask()) &&
              !broadcastsAlongBatch(sdpa.getAttnMask(),
                                    rankOf(sdpa.getQuery())))
            why = "its mask has the batch dimension";
          return why;
        })
        .Case([&](EmbeddingOp embedding) {
          return needFree(embedding.getWeight(), "table");
        })
        .Case<ViewOp, ExpandOp>([&](auto reshape) {
          int64_t first = reshape.getSize().empty() ? 0 : reshape.getSize()[0];
          if (first != batch && first != -1)
            return std::string("it moves the batch out of dimension 0");
          return std::string();
        })
        .Case([&](TOp t) {
          return rankOf(t.getSelf()) < 2
                     ? std::string()
                     : std::string("it transposes dimension 0");
        })
        .Case([&](TransposeOp transpose) {
          int64_t rank = rankOf(transpose.getSelf());
          std::string why = notDimZero(transpose.getDim0(), rank, "dim0");
          return why.empty() ? notDimZero(transpose.getDim1(), rank, "dim1")
                             : why;
        })
        .Case([&](PermuteOp permute) {
          ArrayRef<int64_t> dims = permute.getDims();
          if (dims.empty() || normalized(dims[0], dims.size()) != 0)
            return std::string("it moves dimension 0");
          return std::string();
        })
        .Case([&](SqueezeOp squeeze) {
          if (!squeeze.getDim())
            return std::string("it squeezes every dimension of size 1, "
                               "which a sub-batch of 1 would change");
          for (int64_t d : *squeeze.getDim())
            if (normalized(d, rankOf(squeeze.getSelf())) == 0)
              return std::string("it squeezes dimension 0");
          return std::string();
        })
        .Case([&](UnsqueezeOp unsqueeze) {
          return notDimZero(unsqueeze.getDim(), rankOf(unsqueeze.getSelf()) + 1,
                            "dim");
        })
        .Case([&](FlattenOp flatten) {
          return notDimZero(flatten.getStartDim(), rankOf(flatten.getSelf()),
                            "start_dim");
        })
        .Case<SliceOp, SelectOp, SplitOp>([&](auto sliceOp) {
          return notDimZero(sliceOp.getDim(), rankOf(sliceOp.getSelf()), "dim");
        })
        .Case([&](CatOp cat) {
          std::string why = needBatched(cat.getTensors(), "tensors");
          return why.empty()
                     ? notDimZero(cat.getDim(), rankOf(cat.getResult()), "dim")
                     : why;
        })
        .Case([&](StackOp stack) {
          std::string why = needBatched(stack.getTensors(), "tensors");
          return why.empty() ? notDimZero(stack.getDim(),
                                          rankOf(stack.getResult()), "dim")
                             : why;
        })
        .Default([](Operation *op) {
          return "the batch split does not know '" +
                 op->getName().getStringRef().str() + "'";
        });
  }

  static int64_t bytesOf(Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return 0;
    int64_t bits = tensor.getElementType().getIntOrFloatBitWidth();
    return tensor.getNumElements() * std::max<int64_t>(bits / 8, 1);
  }

  FailureOr<BatchAnalysis> run() {
    BatchAnalysis analysis;
    if (!func.getBody().hasOneBlock())
      return fail(nullptr, "the function has more than one block");
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      if (func.getArgAttr(i, "fx.param")) {
        analysis.parameterBytes += bytesOf(arg.getType());
        continue;
      }
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || type.getRank() == 0 || type.isDynamicDim(0))
        return fail(nullptr,
                    "input " + Twine(i) + " has no static outermost dimension");
      if (batch && type.getDimSize(0) != batch)
        return fail(nullptr, "the inputs' outermost dimensions differ (" +
                                 Twine(batch) + " and " +
                                 Twine(type.getDimSize(0)) + ")");
      batch = type.getDimSize(0);
      batched.insert(arg);
    }
    if (batch < 2)
      return fail(nullptr, batch ? "the batch is 1" : "it has no inputs");
    analysis.batch = batch;
    for (Operation &op : func.getBody().front()) {
      bool anyBatched =
          llvm::any_of(op.getOperands(), [&](Value v) { return isBatched(v); });
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (Value v : ret.getOperands())
          if (!isBatched(v))
            return fail(&op, "a result does not depend on the inputs");
        continue;
      }
      if (!anyBatched) {
        if (isa<ConstantOp>(op))
          analysis.parameterBytes += bytesOf(op.getResult(0).getType());
        continue;
      }
      if (!isa<FXDialect>(op.getDialect()))
        return fail(&op,
                    "'" + op.getName().getStringRef() + "' is not an FX op");
      if (std::string why = rule(&op); !why.empty())
        return fail(&op, why);
      for (Value result : op.getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || type.getRank() == 0 || type.getDimSize(0) != batch)
          return fail(&op, "a result's outermost dimension is not the batch");
        batched.insert(result);
        analysis.itemBytes += bytesOf(type) / batch;
      }
    }
    return analysis;
  }
};

RankedTensorType withBatch(Type type, int64_t batch) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[0] = batch;
  return tensor.clone(shape);
}

} // namespace

InFlightDiagnostic mlir::fx::emitBatchSplitError(
    func::FuncOp func, const BatchSplitFailure &failure, StringRef prefix) {
  InFlightDiagnostic diagnostic =
      failure.op ? failure.op->emitError() : func.emitError();
  diagnostic << prefix << "cannot split the batch of '" << func.getName()
             << "': " << failure.reason;
  return diagnostic;
}

FailureOr<BatchAnalysis> mlir::fx::analyzeBatch(func::FuncOp func,
                                                BatchSplitFailure &failure) {
  return Analyzer{func, failure, {}, 0}.run();
}

LogicalResult mlir::fx::subBatchFunction(func::FuncOp func,
                                         const BatchAnalysis &analysis,
                                         int64_t subBatch,
                                         BatchSplitFailure &failure) {
  if (subBatch < 1 || analysis.batch % subBatch)
    return fail(failure, nullptr,
                "the sub-batch " + Twine(subBatch) +
                    " does not divide the batch " + Twine(analysis.batch));
  DenseSet<Value> batched;
  SmallVector<Type> inputs;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    if (!func.getArgAttr(i, "fx.param")) {
      arg.setType(withBatch(arg.getType(), subBatch));
      batched.insert(arg);
    }
    inputs.push_back(arg.getType());
  }
  auto resize = [&](ArrayRef<int64_t> size) {
    SmallVector<int64_t> resized(size);
    if (!resized.empty() && resized[0] == analysis.batch)
      resized[0] = subBatch;
    return resized;
  };
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op) ||
        llvm::none_of(op.getOperands(),
                      [&](Value v) { return batched.contains(v); }))
      continue;
    if (auto view = dyn_cast<ViewOp>(op))
      view.setSize(resize(view.getSize()));
    else if (auto expand = dyn_cast<ExpandOp>(op))
      expand.setSize(resize(expand.getSize()));
    for (Value result : op.getResults()) {
      result.setType(withBatch(result.getType(), subBatch));
      batched.insert(result);
    }
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    SmallVector<Type> inferred;
    if (!infer)
      continue;
    if (failed(infer.inferReturnTypes(op.getContext(), op.getLoc(),
                                      op.getOperands(), op.getAttrDictionary(),
                                      op.getPropertiesStorage(),
                                      op.getRegions(), inferred)) ||
        TypeRange(inferred) != op.getResultTypes())
      return fail(failure, &op, "its result types do not follow the sub-batch");
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  func.setFunctionType(
      FunctionType::get(func.getContext(), inputs, ret.getOperandTypes()));
  return success();
}

namespace {

struct SubBatchPass : public fx::impl::FXSubBatchBase<SubBatchPass> {
  using FXSubBatchBase::FXSubBatchBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    BatchSplitFailure failure;
    FailureOr<BatchAnalysis> analysis = analyzeBatch(func, failure);
    if (succeeded(analysis))
      if (succeeded(subBatchFunction(func, *analysis, subBatch, failure)))
        return;
    emitBatchSplitError(func, failure);
    signalPassFailure();
  }
};

} // namespace
