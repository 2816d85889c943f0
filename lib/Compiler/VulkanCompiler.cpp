//===- VulkanCompiler.cpp - compile FX functions to Vulkan programs -------===//

#include "fx/Compiler/VulkanCompiler.h"

#include "fx/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fx {
namespace vk = rt::vk;

std::string targetForDevice(const rt::vk::DeviceInfo &device) {
  // Vulkan 1.1 guarantees basic subgroup operations for compute; the
  // arithmetic, ballot and shuffle classes are universal on desktop GPUs
  // and lavapipe.
  std::string caps = "Shader,GroupNonUniform,GroupNonUniformArithmetic,"
                     "GroupNonUniformBallot,GroupNonUniformShuffle";
  auto add = [&](bool has, const char *cap) {
    if (has)
      caps += std::string(",") + cap;
  };
  add(device.shaderInt64, "Int64");
  add(device.shaderInt16, "Int16");
  add(device.shaderInt8, "Int8");
  add(device.shaderFloat16, "Float16");
  add(device.shaderFloat64, "Float64");
  add(device.storageBuffer8BitAccess, "StorageBuffer8BitAccess");
  add(device.storageBuffer16BitAccess, "StorageBuffer16BitAccess");
  // The cooperative-matrix matmul kernel uses 16x16x16 f16 fragments with
  // f32 accumulators on 32-lane subgroups.
  add(device.subgroupSize == 32 &&
          llvm::is_contained(device.cooperativeMatrixShapes,
                             "16x16x16 f16->f32"),
      "CooperativeMatrixKHR");
  return "caps=" + caps;
}

namespace {

/// Bytes per element in a device buffer (vectors of lanes packed); i1 is
/// stored as one byte, as in runtime tensors.
std::optional<uint64_t> elementBytes(Type type) {
  if (auto vector = dyn_cast<VectorType>(type)) {
    std::optional<uint64_t> lane = elementBytes(vector.getElementType());
    if (!lane || vector.isScalable() || vector.getElementType().isInteger(1))
      return std::nullopt;
    return *lane * vector.getNumElements();
  }
  if (type.isInteger(1))
    return 1;
  if (type.isIntOrFloat() && type.getIntOrFloatBitWidth() % 8 == 0)
    return type.getIntOrFloatBitWidth() / 8;
  return std::nullopt;
}

/// Buffers are allocated in 4-byte words (SPIR-V arrays of i8/i16 in storage
/// buffers are accessed through 32-bit words on devices without 8/16-bit
/// storage) and never empty.
uint64_t roundBufferBytes(uint64_t bytes) {
  return std::max<uint64_t>(4, (bytes + 3) / 4 * 4);
}

/// The Vulkan feature a SPIR-V capability needs, or null for capabilities
/// every Vulkan 1.1 device has.
const char *featureOf(spirv::Capability cap) {
  switch (cap) {
  case spirv::Capability::Int64:
    return "shaderInt64";
  case spirv::Capability::Int16:
    return "shaderInt16";
  case spirv::Capability::Int8:
    return "shaderInt8";
  case spirv::Capability::Float16:
    return "shaderFloat16";
  case spirv::Capability::Float64:
    return "shaderFloat64";
  case spirv::Capability::StorageBuffer8BitAccess:
    return "storageBuffer8BitAccess";
  case spirv::Capability::StorageBuffer16BitAccess:
    return "storageBuffer16BitAccess";
  case spirv::Capability::CooperativeMatrixKHR:
    return "cooperativeMatrix";
  default:
    return nullptr;
  }
}

/// Walks the host function of the lowered module and records the program.
class ScheduleBuilder {
public:
  ScheduleBuilder(ModuleOp module, vk::Program &program)
      : module(module), symbols(module), program(program) {}

  LogicalResult build(func::FuncOp func) {
    size_t numInputs = program.signature.inputs.size();
    size_t numOutputs = program.signature.outputs.size();
    if (func.getNumArguments() != numInputs + numOutputs)
      return func.emitError()
             << "lowered function takes " << func.getNumArguments()
             << " buffers; expected " << numInputs << " inputs and "
             << numOutputs << " outputs";
    for (BlockArgument arg : func.getArguments()) {
      bool isInput = arg.getArgNumber() < numInputs;
      vk::Buffer buffer;
      buffer.kind =
          isInput ? vk::Buffer::Kind::Input : vk::Buffer::Kind::Output;
      buffer.index =
          isInput ? arg.getArgNumber() : arg.getArgNumber() - numInputs;
      FailureOr<uint64_t> bytes = bufferBytes(arg, func);
      if (failed(bytes))
        return failure();
      buffer.bytes = *bytes;
      buffers[arg] = addBuffer(std::move(buffer));
    }
    for (Operation &op : func.getBody().front()) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case<arith::ConstantOp, memref::DeallocOp, func::ReturnOp>(
                  [](Operation *) { return success(); })
              .Case<memref::AllocOp, memref::AllocaOp>([&](Operation *alloc) {
                FailureOr<uint64_t> bytes =
                    bufferBytes(alloc->getResult(0), alloc);
                if (failed(bytes))
                  return failure();
                vk::Buffer buffer;
                buffer.bytes = *bytes;
                buffers[alloc->getResult(0)] = addBuffer(std::move(buffer));
                return success();
              })
              .Case<memref::GetGlobalOp>(
                  [&](memref::GetGlobalOp get) { return addConstant(get); })
              .Case<memref::CopyOp>(
                  [&](memref::CopyOp copy) { return addCopy(copy); })
              .Case<UnrealizedConversionCastOp>(
                  [&](UnrealizedConversionCastOp cast) {
                    return addRetypedView(cast);
                  })
              .Case<gpu::LaunchFuncOp>(
                  [&](gpu::LaunchFuncOp launch) { return addDispatch(launch); })
              .Default([](Operation *other) {
                return other->emitOpError(
                    "cannot run on the Vulkan host side (the schedule holds "
                    "only allocations, constants, copies and kernel "
                    "launches)");
              });
      if (failed(result))
        return failure();
    }
    return success();
  }

private:
  uint32_t addBuffer(vk::Buffer buffer) {
    buffer.bytes = roundBufferBytes(buffer.bytes);
    if (buffer.data.size() < buffer.bytes && !buffer.data.empty())
      buffer.data.resize(buffer.bytes, 0);
    program.buffers.push_back(std::move(buffer));
    return program.buffers.size() - 1;
  }

  FailureOr<uint64_t> bufferBytes(Value value, Operation *where) {
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return where->emitOpError("needs a static identity-layout memref on the "
                                "Vulkan host side, got ")
             << value.getType();
    std::optional<uint64_t> bytes = elementBytes(type.getElementType());
    if (!bytes)
      return where->emitOpError("element type ")
             << type.getElementType() << " has no Vulkan buffer layout";
    return *bytes * type.getNumElements();
  }

  /// A kernel's view of a whole buffer with another element type: the
  /// bf16 buffers fx-legalize-types-for-spirv passes as i16, the f16
  /// operands the cooperative-matrix matmul reads as 16-byte vectors. The
  /// view is the same device buffer.
  LogicalResult addRetypedView(UnrealizedConversionCastOp cast) {
    if (cast.getNumOperands() != 1 || cast.getNumResults() != 1)
      return cast.emitOpError("is not a one-to-one buffer cast");
    auto bytesOf = [&](Type type) -> std::optional<uint64_t> {
      auto memref = dyn_cast<MemRefType>(type);
      if (!memref || !memref.hasStaticShape() ||
          !memref.getLayout().isIdentity())
        return std::nullopt;
      std::optional<uint64_t> bytes = elementBytes(memref.getElementType());
      if (!bytes)
        return std::nullopt;
      return *bytes * memref.getNumElements();
    };
    std::optional<uint64_t> from = bytesOf(cast.getOperand(0).getType()),
                            to = bytesOf(cast.getResult(0).getType());
    if (!from || from != to)
      return cast.emitOpError("is not a view of a whole buffer with another "
                              "element type, which the Vulkan host side "
                              "needs");
    FailureOr<uint32_t> buffer = lookup(cast.getOperand(0), cast);
    if (failed(buffer))
      return failure();
    buffers[cast.getResult(0)] = *buffer;
    return success();
  }

  FailureOr<uint32_t> lookup(Value value, Operation *user) {
    auto it = buffers.find(value);
    if (it == buffers.end()) {
      InFlightDiagnostic diag = user->emitOpError(
          "uses a value that is not a whole device buffer (a view or a "
          "scalar), which the Vulkan runtime cannot bind");
      if (Operation *def = value.getDefiningOp())
        diag.attachNote(def->getLoc()) << "defined here";
      return failure();
    }
    return it->second;
  }

  LogicalResult addConstant(memref::GetGlobalOp get) {
    auto global = symbols.lookup<memref::GlobalOp>(get.getName());
    if (!global || !global.getInitialValue())
      return get.emitOpError("refers to a global without an initial value");
    auto found = globals.find(get.getName());
    if (found != globals.end()) {
      buffers[get.getResult()] = found->second;
      return success();
    }
    FailureOr<uint64_t> bytes = bufferBytes(get.getResult(), get);
    if (failed(bytes))
      return failure();
    vk::Buffer buffer;
    buffer.kind = vk::Buffer::Kind::Constant;
    buffer.bytes = *bytes;
    Attribute init = *global.getInitialValue();
    Type elementType = get.getType().getElementType();
    int64_t count = get.getType().getNumElements();
    if (auto dense = dyn_cast<DenseElementsAttr>(init)) {
      if (elementType.isInteger(1)) {
        for (bool v : dense.getValues<bool>())
          buffer.data.push_back(v ? 1 : 0);
        if (dense.isSplat())
          buffer.data.resize(count, buffer.data.front());
      } else {
        ArrayRef<char> raw = dense.getRawData();
        if (dense.isSplat()) {
          for (int64_t i = 0; i < count; ++i)
            buffer.data.insert(buffer.data.end(), raw.begin(), raw.end());
        } else {
          buffer.data.assign(raw.begin(), raw.end());
        }
      }
    } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(init)) {
      AsmResourceBlob *blob = resource.getRawHandle().getBlob();
      if (!blob)
        return get.emitOpError("constant '")
               << get.getName() << "' has no data (an empty resource)";
      ArrayRef<char> raw = blob->getData();
      buffer.data.assign(raw.begin(), raw.end());
    } else {
      return get.emitOpError("constant '")
             << get.getName() << "' has an initial value of unsupported kind";
    }
    if (buffer.data.size() != *bytes)
      return get.emitOpError("constant '")
             << get.getName() << "' holds " << buffer.data.size()
             << " bytes; its type needs " << *bytes;
    uint32_t id = addBuffer(std::move(buffer));
    globals[get.getName()] = id;
    buffers[get.getResult()] = id;
    return success();
  }

  LogicalResult addCopy(memref::CopyOp copy) {
    FailureOr<uint32_t> source = lookup(copy.getSource(), copy);
    FailureOr<uint32_t> target = lookup(copy.getTarget(), copy);
    FailureOr<uint64_t> bytes = bufferBytes(copy.getSource(), copy);
    if (failed(source) || failed(target) || failed(bytes))
      return failure();
    vk::Copy step;
    step.source = *source;
    step.target = *target;
    step.bytes = *bytes;
    if (step.bytes == 0)
      return success();
    program.copies.push_back(step);
    program.steps.push_back(
        {vk::Step::Kind::Copy, uint32_t(program.copies.size() - 1)});
    return success();
  }

  FailureOr<uint32_t> kernelIndex(gpu::LaunchFuncOp launch) {
    std::string key = (launch.getKernelModuleName().getValue() +
                       "::" + launch.getKernelName().getValue())
                          .str();
    auto found = kernels.find(key);
    if (found != kernels.end())
      return found->second;
    auto spirvModule = symbols.lookup<spirv::ModuleOp>(
        ("__spv__" + launch.getKernelModuleName().getValue()).str());
    auto gpuModule =
        symbols.lookup<gpu::GPUModuleOp>(launch.getKernelModuleName());
    if (!spirvModule || !gpuModule)
      return launch.emitOpError("has no SPIR-V module for its kernel");
    auto gpuFunc =
        gpuModule.lookupSymbol<gpu::GPUFuncOp>(launch.getKernelName());
    if (!gpuFunc || !gpuFunc.getKnownBlockSize())
      return launch.emitOpError("kernel has no known workgroup size");
    vk::Kernel kernel;
    kernel.name = key;
    kernel.entryPoint = launch.getKernelName().getValue().str();
    ArrayRef<int32_t> size = *gpuFunc.getKnownBlockSize();
    for (int i = 0; i < 3; ++i)
      kernel.workgroupSize[i] = size[i];
    kernel.numBindings = gpuFunc.getNumArguments();
    SmallVector<uint32_t> binary;
    if (failed(spirv::serialize(spirvModule, binary)))
      return launch.emitOpError("kernel failed to serialize to SPIR-V");
    kernel.spirv.assign(binary.begin(), binary.end());
    if (std::optional<spirv::VerCapExtAttr> vce = spirvModule.getVceTriple())
      for (spirv::Capability cap : vce->getCapabilities())
        if (const char *feature = featureOf(cap))
          if (!llvm::is_contained(program.requiredFeatures, feature))
            program.requiredFeatures.push_back(feature);
    program.kernels.push_back(std::move(kernel));
    kernels[key] = program.kernels.size() - 1;
    return program.kernels.size() - 1;
  }

  LogicalResult addDispatch(gpu::LaunchFuncOp launch) {
    FailureOr<uint32_t> kernel = kernelIndex(launch);
    if (failed(kernel))
      return failure();
    vk::Dispatch dispatch;
    dispatch.kernel = *kernel;
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    Value dims[3] = {grid.x, grid.y, grid.z};
    for (int i = 0; i < 3; ++i) {
      std::optional<int64_t> n = getConstantIntValue(dims[i]);
      if (!n || *n <= 0 || *n > UINT32_MAX)
        return launch.emitOpError("needs a constant positive grid size");
      dispatch.workgroups[i] = *n;
    }
    for (Value operand : launch.getKernelOperands()) {
      FailureOr<uint32_t> buffer = lookup(operand, launch);
      if (failed(buffer))
        return failure();
      dispatch.buffers.push_back(*buffer);
    }
    program.dispatches.push_back(std::move(dispatch));
    program.steps.push_back(
        {vk::Step::Kind::Dispatch, uint32_t(program.dispatches.size() - 1)});
    return success();
  }

  ModuleOp module;
  SymbolTable symbols;
  vk::Program &program;
  llvm::DenseMap<Value, uint32_t> buffers;
  llvm::StringMap<uint32_t> globals;
  llvm::StringMap<uint32_t> kernels;
};

} // namespace

FailureOr<vk::Program> compileForVulkan(ModuleOp module, StringRef entry,
                                        const rt::FunctionSignature &signature,
                                        const VulkanCompileOptions &options) {
  PassManager pm = PassManager::on<ModuleOp>(module.getContext());
  mlir::fx::VulkanPipelineOptions pipelineOptions;
  pipelineOptions.fuseElementwise = options.fuseElementwise;
  pipelineOptions.target = options.target;
  pipelineOptions.workgroupSize = options.workgroupSize;
  pipelineOptions.rowWorkgroupSize = options.rowWorkgroupSize;
  if (failed(mlir::fx::buildVulkanPipeline(pm, pipelineOptions)))
    return emitError(module.getLoc())
           << "invalid Vulkan target '" << options.target << "'";
  if (failed(pm.run(module)))
    return failure();
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return emitError(module.getLoc())
           << "no function '" << entry << "' after lowering";
  vk::Program program;
  program.signature = signature;
  ScheduleBuilder builder(module, program);
  if (failed(builder.build(func)))
    return failure();
  if (options.reuseTemporaries)
    vk::planTemporaryReuse(program);
  return program;
}

std::string writeSpirvFiles(const rt::vk::Program &program,
                            const std::string &dir, const std::string &prefix) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return "cannot create '" + dir + "': " + ec.message();
  for (auto [i, kernel] : llvm::enumerate(program.kernels)) {
    std::string path = dir + "/" + prefix + std::to_string(i) + "-" +
                       kernel.entryPoint + ".spv";
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec)
      return "cannot write '" + path + "': " + ec.message();
    os.write(reinterpret_cast<const char *>(kernel.spirv.data()),
             kernel.spirv.size() * sizeof(uint32_t));
  }
  return "";
}

} // namespace fx
