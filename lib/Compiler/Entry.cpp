//===- Entry.cpp - find, specialize and describe an entry point -----------===//

#include "fx/Compiler/Entry.h"

#include "fx/Dialect/FX/Transforms/Passes.h"
#include "fx/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

// Definitions live inside the namespace: with `using namespace mlir`, a
// qualified `fx::` would be ambiguous with the dialect's mlir::fx.
namespace fx {

std::optional<rt::DType> toDType(Type t) {
  if (t.isF32())
    return rt::DType::F32;
  if (t.isF16())
    return rt::DType::F16;
  if (t.isBF16())
    return rt::DType::BF16;
  if (t.isInteger(64))
    return rt::DType::I64;
  if (t.isInteger(32))
    return rt::DType::I32;
  if (t.isInteger(1))
    return rt::DType::Bool;
  return std::nullopt;
}

Type toElementType(MLIRContext *ctx, rt::DType dtype) {
  Builder b(ctx);
  switch (dtype) {
  case rt::DType::F32:
    return b.getF32Type();
  case rt::DType::F16:
    return b.getF16Type();
  case rt::DType::BF16:
    return b.getBF16Type();
  case rt::DType::I64:
    return b.getI64Type();
  case rt::DType::I32:
    return b.getI32Type();
  case rt::DType::Bool:
    return b.getI1Type();
  default:
    return {};
  }
}

func::FuncOp findEntry(ModuleOp module, StringRef name) {
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal() &&
        (name.empty() || func.getName() == name))
      candidates.push_back(func);
  if (candidates.size() == 1)
    return candidates.front();
  if (!name.empty())
    emitError(module.getLoc()) << "no public function named '" << name << "'";
  else if (candidates.empty())
    emitError(module.getLoc()) << "the module has no public function to run";
  else
    emitError(module.getLoc()) << "the module has " << candidates.size()
                               << " public functions; choose one with --entry";
  return {};
}

void keepOnlyEntry(ModuleOp module, func::FuncOp entry) {
  for (auto other : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (other != entry && SymbolTable::symbolKnownUseEmpty(other, module))
      other.erase();
}

LogicalResult specializeArguments(func::FuncOp func,
                                  ArrayRef<std::vector<int64_t>> shapes) {
  FunctionType type = func.getFunctionType();
  SmallVector<Type> inputs;
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    auto tensor = dyn_cast<RankedTensorType>(argType);
    if (!tensor)
      return func.emitError() << "argument " << i << " has type " << argType
                              << ", which is not a ranked tensor";
    ArrayRef<int64_t> shape = shapes[i];
    bool fits = tensor.getRank() == static_cast<int64_t>(shape.size());
    for (size_t d = 0; fits && d < shape.size(); ++d)
      fits = tensor.isDynamicDim(d) || tensor.getDimSize(d) == shape[d];
    if (!fits) {
      std::string s = "[";
      for (size_t d = 0; d < shape.size(); ++d)
        s += (d ? ", " : "") + std::to_string(shape[d]);
      return func.emitError() << "argument " << i << " is declared " << tensor
                              << " but the given tensor has shape " << s << "]";
    }
    inputs.push_back(tensor.clone(shape));
  }
  func.setFunctionType(
      FunctionType::get(func.getContext(), inputs, type.getResults()));
  for (auto [arg, t] : llvm::zip_equal(func.getArguments(), inputs))
    arg.setType(t);
  PassManager pm(func.getContext(), func::FuncOp::getOperationName());
  pm.addPass(mlir::fx::createFXRefineShapes());
  return pm.run(func);
}

FailureOr<rt::FunctionSignature> getSignature(func::FuncOp func,
                                              bool allowDynamic) {
  rt::FunctionSignature sig;
  auto convert = [&](Type t, const std::string &what,
                     std::string name) -> FailureOr<rt::TensorSpec> {
    auto tensor = dyn_cast<RankedTensorType>(t);
    std::optional<rt::DType> dtype =
        tensor ? toDType(tensor.getElementType()) : std::nullopt;
    if (!tensor || !dtype)
      return func.emitError()
             << what << " has type " << t << ", which has no runtime dtype";
    if (!tensor.hasStaticShape() && !allowDynamic)
      return func.emitError() << what << " has the dynamic type " << t
                              << " after specialization to the input shapes";
    std::vector<int64_t> shape;
    for (int64_t dim : tensor.getShape())
      shape.push_back(ShapedType::isDynamic(dim) ? rt::kDynamicDim : dim);
    return rt::TensorSpec{std::move(name), *dtype, std::move(shape)};
  };
  for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
    std::string name = "arg" + std::to_string(i);
    if (auto param = func.getArgAttrOfType<StringAttr>(i, "fx.param"))
      name = param.str();
    FailureOr<rt::TensorSpec> spec =
        convert(t, "argument " + std::to_string(i), name);
    if (failed(spec))
      return failure();
    spec->parameter = bool(func.getArgAttrOfType<StringAttr>(i, "fx.param"));
    // torch.export.Dim's ranges, recorded by the importer: kept in the
    // signature (and the artifact's manifest), checked at every call.
    if (auto ranges =
            func.getArgAttrOfType<DictionaryAttr>(i, "fx_import.dim_ranges")) {
      for (NamedAttribute named : ranges) {
        StringRef key = named.getName().getValue();
        int64_t dim;
        auto bounds = dyn_cast<DenseI64ArrayAttr>(named.getValue());
        if (!key.consume_front("dim") || key.getAsInteger(10, dim) || dim < 0 ||
            dim >= int64_t(spec->shape.size()) || !bounds ||
            bounds.size() != 2 || bounds[0] < 0 || bounds[0] > bounds[1])
          return func.emitError()
                 << "argument " << i << ": fx_import.dim_ranges entry "
                 << named.getName() << " = " << named.getValue()
                 << " is not dimN = array<i64: MIN, MAX> with 0 <= MIN <= MAX "
                    "and N a dimension of the argument";
        int64_t size = spec->shape[dim];
        if (size != rt::kDynamicDim && (size < bounds[0] || size > bounds[1]))
          return func.emitError()
                 << "argument " << i << " has size " << size << " in dimension "
                 << dim << ", outside the range it was imported for ("
                 << bounds[0] << " to " << bounds[1]
                 << ", fx_import.dim_ranges)";
        spec->ranges.push_back({dim, bounds[0], bounds[1]});
      }
    }
    sig.inputs.push_back(*spec);
  }
  for (auto [i, t] : llvm::enumerate(func.getResultTypes())) {
    FailureOr<rt::TensorSpec> spec =
        convert(t, "result " + std::to_string(i), "result" + std::to_string(i));
    if (failed(spec))
      return failure();
    sig.outputs.push_back(*spec);
  }
  return sig;
}

FailureOr<PreparedEntry> prepareEntry(ModuleOp module, StringRef name,
                                      const EntryShapes &shapes) {
  PreparedEntry prepared;
  prepared.module = cast<ModuleOp>(module->clone());
  func::FuncOp func = findEntry(*prepared.module, name);
  if (!func)
    return failure();
  prepared.func = func;
  keepOnlyEntry(*prepared.module, func);
  if (!shapes.arguments.empty()) {
    if (shapes.arguments.size() != func.getNumArguments())
      return func.emitError()
             << shapes.arguments.size() << " argument shapes were given but '"
             << func.getName() << "' has " << func.getNumArguments()
             << " arguments";
    if (failed(specializeArguments(func, shapes.arguments)))
      return failure();
  }
  if (!shapes.allowDynamic)
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (auto tensor = dyn_cast<RankedTensorType>(type);
          tensor && !tensor.hasStaticShape())
        return func.emitError() << "argument " << i << " of '" << func.getName()
                                << "' has the dynamic type " << type << "; "
                                << shapes.staticHint;
  FailureOr<rt::FunctionSignature> signature =
      getSignature(func, shapes.allowDynamic);
  if (failed(signature))
    return failure();
  prepared.signature = std::move(*signature);
  return prepared;
}

} // namespace fx
