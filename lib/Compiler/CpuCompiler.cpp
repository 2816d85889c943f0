//===- CpuCompiler.cpp - compile FX functions to CPU code in memory -------===//

#include "fx/Compiler/CpuCompiler.h"

#include "fx/Conversion/Passes.h"
#include "fx/Dialect/FXDialect.h"
#include "fx/Pipelines/Pipelines.h"
#include "fx/Runtime/MemRefCopy.h"
#include "fx/Runtime/Parallel.h"
#include "fx/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

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

FailureOr<rt::FunctionSignature> getSignature(func::FuncOp func) {
  rt::FunctionSignature sig;
  auto convert = [&](Type t, const std::string &what,
                     std::string name) -> FailureOr<rt::TensorSpec> {
    auto tensor = dyn_cast<RankedTensorType>(t);
    std::optional<rt::DType> dtype =
        tensor ? toDType(tensor.getElementType()) : std::nullopt;
    if (!tensor || !dtype)
      return func.emitError()
             << what << " has type " << t << ", which has no runtime dtype";
    if (!tensor.hasStaticShape())
      return func.emitError() << what << " has the dynamic type " << t
                              << " after specialization to the input shapes";
    return rt::TensorSpec{std::move(name), *dtype,
                          std::vector<int64_t>(tensor.getShape())};
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

void registerCpuCompilerDependencies(DialectRegistry &registry) {
  registry.insert<mlir::fx::FXDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  static bool passesRegistered = [] {
    registerAllPasses();
    mlir::fx::registerFXTransformsPasses();
    mlir::fx::registerFXConversionPasses();
    mlir::fx::registerCPUPipeline();
  mlir::fx::registerVulkanPipeline();
    return true;
  }();
  (void)passesRegistered;
}

/// LLVM's default module pipeline at `optLevel`, with LLVM's loop unroller
/// restricted to loops that ask for it. Why not makeOptimizingTransformer:
/// the MLIR pipeline already unrolls what should be unrolled (vector register
/// tiles); LLVM's full unroller on top flattens nests with constant trip
/// counts (the 24x49 rows of a zero-fill in swin_t) into basic blocks of
/// thousands of stores, and SelectionDAG's store combining is quadratic in
/// such blocks: swin_t spent 400 s of its compile there, 3 s without it.
static llvm::Error optimizeModule(llvm::Module *module, unsigned optLevel,
                                  llvm::TargetMachine *targetMachine) {
  llvm::OptimizationLevel level;
  switch (optLevel) {
  case 0:
    level = llvm::OptimizationLevel::O0;
    break;
  case 1:
    level = llvm::OptimizationLevel::O1;
    break;
  case 2:
    level = llvm::OptimizationLevel::O2;
    break;
  default:
    level = llvm::OptimizationLevel::O3;
    break;
  }
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(targetMachine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      level == llvm::OptimizationLevel::O0
          ? builder.buildO0DefaultPipeline(level)
          : builder.buildPerModuleDefaultPipeline(level);
  passes.run(*module, mam);
  return llvm::Error::success();
}

JitModule::JitModule(std::unique_ptr<ExecutionEngine> engine)
    : engine(std::move(engine)) {}

JitModule::~JitModule() = default;

FailureOr<std::unique_ptr<JitModule>>
JitModule::compile(ModuleOp module, const CpuCompileOptions &options) {
  PassManager pm(module.getContext());
  mlir::fx::CPUPipelineOptions pipelineOptions;
  pipelineOptions.fuseElementwise = options.fuseElementwise;
  pipelineOptions.fusionReport = options.fusionReport;
  pipelineOptions.dispatchRegions = options.dispatchRegions;
  pipelineOptions.vectorize = options.vectorize;
  pipelineOptions.threads = options.threads;
  mlir::fx::buildCPUPipeline(pm, pipelineOptions);
  if (failed(pm.run(module)))
    return failure();
  // Parameter names are runtime metadata (see getSignature); LLVM has no use
  // for them and warns about unknown argument attributes.
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      fn.removeArgAttr(i, StringAttr::get(module.getContext(), "fx.param"));
  // The runtime passes outputs as buffers: a C interface that still returns
  // a value would be called wrongly, so refuse it here.
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    if (!fn.getName().starts_with("_mlir_ciface_"))
      continue;
    if (!isa<LLVM::LLVMVoidType>(fn.getFunctionType().getReturnType()))
      return fn.emitError()
             << "compiled entry point '" << fn.getName()
             << "' returns a value; the CPU calling convention needs every "
                "result as an output buffer";
  }

  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;

  auto tmBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!tmBuilder) {
    emitError(module.getLoc()) << "cannot detect the host CPU: "
                               << llvm::toString(tmBuilder.takeError());
    return failure();
  }
  // Compile for the host CPU and all of its features (AVX-512 here).
  tmBuilder->setCPU(llvm::sys::getHostCPUName().str());
  auto tm = tmBuilder->createTargetMachine();
  if (!tm) {
    emitError(module.getLoc())
        << "cannot create a target machine: " << llvm::toString(tm.takeError());
    return failure();
  }
  // The options hold a function_ref: the transformer must outlive create().
  llvm::TargetMachine *targetMachine = tm->get();
  unsigned optLevel = options.optLevel;
  std::function<llvm::Error(llvm::Module *)> transformer =
      [=](llvm::Module *module) {
        return optimizeModule(module, optLevel, targetMachine);
      };
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u));
  auto engine = ExecutionEngine::create(module, engineOptions, std::move(*tm));
  if (!engine) {
    emitError(module.getLoc())
        << "JIT compilation failed: " << llvm::toString(engine.takeError());
    return failure();
  }
  // Support functions that compiled code calls come from the fx runtime, not
  // from MLIR's runner libraries.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner("memrefCopy")] = {
        llvm::orc::ExecutorAddr::fromPtr(&memrefCopy),
        llvm::JITSymbolFlags::Exported};
    symbols[interner("fxrtParallelFor")] = {
        llvm::orc::ExecutorAddr::fromPtr(&fxrtParallelFor),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  return std::unique_ptr<JitModule>(new JitModule(std::move(*engine)));
}

llvm::Expected<rt::PackedFunction> JitModule::lookup(StringRef name) const {
  auto fn = engine->lookupPacked(("_mlir_ciface_" + name).str());
  if (!fn)
    return fn.takeError();
  return reinterpret_cast<rt::PackedFunction>(*fn);
}

} // namespace fx
