//===- VulkanCompiler.cpp - compile FX functions to Vulkan programs -------===//

#include "fx/Compiler/VulkanCompiler.h"

#include "fx/Codegen/SPIRV/GPUUtils.h"

#include "fx/Pipelines/Pipelines.h"
#include "fx/Transforms/LinalgUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fx {
namespace vk = rt::vk;

std::string targetForDevice(const rt::vk::DeviceInfo &device) {
  return "caps=" + llvm::join(vk::capabilitiesFor(device), ",");
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
  const vk::Capability *row =
      vk::findCapability(spirv::stringifyCapability(cap).str());
  return row ? row->feature : nullptr;
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
    findOutputAliases(func, numInputs);
    for (BlockArgument arg : func.getArguments()) {
      bool isInput = arg.getArgNumber() < numInputs;
      vk::Buffer buffer;
      buffer.kind =
          isInput ? vk::Buffer::Kind::Input : vk::Buffer::Kind::Output;
      buffer.index =
          isInput ? arg.getArgNumber() : arg.getArgNumber() - numInputs;
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (isInput && type) {
        // An input's dynamic dimensions are the runtime's input shapes.
        SmallVector<Size> dims;
        for (int64_t d = 0; d < type.getRank(); ++d)
          dims.push_back(type.isDynamicDim(d)
                             ? Size::of(addScalar(vk::Scalar::Op::InputDim,
                                                  {buffer.index, uint32_t(d)}))
                             : Size::constant(type.getDimSize(d)));
        shapes[arg] = dims;
      }
      if (!isInput && type && !type.hasStaticShape()) {
        // Sized by what is copied into it (or the allocation it replaces).
        buffers[arg] = addBuffer(std::move(buffer));
        continue;
      }
      FailureOr<Size> bytes = bufferBytes(arg, func);
      if (failed(bytes))
        return failure();
      setBytes(buffer, *bytes);
      buffers[arg] = addBuffer(std::move(buffer));
    }
    for (Operation &op : func.getBody().front()) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              // Constants become scalars where a dynamic size uses them.
              .Case<arith::ConstantOp, memref::DeallocOp, func::ReturnOp>(
                  [](Operation *) { return success(); })
              .Case<memref::AllocOp, memref::AllocaOp>(
                  [&](Operation *alloc) { return addAllocation(alloc); })
              .Case<memref::DimOp>(
                  [&](memref::DimOp dim) { return addDim(dim); })
              .Case<cf::AssertOp>([&](cf::AssertOp check) {
                FailureOr<uint32_t> scalar = scalarOf(check.getArg(), check);
                if (failed(scalar))
                  return failure();
                program.checks.push_back({*scalar, check.getMsg().str()});
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
              .Case<memref::CollapseShapeOp, memref::ExpandShapeOp>(
                  [&](auto reshape) { return addReshape(reshape); })
              .Case<gpu::LaunchFuncOp>(
                  [&](gpu::LaunchFuncOp launch) { return addDispatch(launch); })
              .Default([&](Operation *other) -> LogicalResult {
                if (std::optional<LogicalResult> arithmetic =
                        addArithmetic(other))
                  return *arithmetic;
                return other->emitOpError(
                    "cannot run on the Vulkan host side (the schedule holds "
                    "only allocations, constants, copies, kernel launches "
                    "and index arithmetic on the input shapes)");
              });
      if (failed(result))
        return failure();
    }
    if (failed(finishOutputs(func, numInputs)))
      return failure();
    markPrepareSteps();
    // Independent steps side by side, for the runtime to overlap (after
    // marking prepare steps, which reads the program order).
    vk::groupIndependentSteps(program);
    return success();
  }

private:
  /// A size on the host: a constant, or a scalar of the program (a dynamic
  /// dimension or what is computed from one).
  struct Size {
    int64_t value = 0;
    uint32_t scalar = vk::kNoScalar;
    static Size of(uint32_t scalar) { return {0, scalar}; }
    static Size constant(int64_t value) { return {value, vk::kNoScalar}; }
    bool isDynamic() const { return scalar != vk::kNoScalar; }
  };

  uint32_t addScalar(vk::Scalar::Op op, std::array<uint32_t, 3> operands,
                     int64_t value = 0) {
    vk::Scalar scalar;
    scalar.op = op;
    scalar.operands = operands;
    scalar.value = value;
    program.scalars.push_back(scalar);
    return program.scalars.size() - 1;
  }

  /// The Constant scalar of `value`, one per value.
  uint32_t constantScalar(int64_t value) {
    auto [it, inserted] = constantScalars.try_emplace(value, 0);
    if (inserted)
      it->second = addScalar(vk::Scalar::Op::Constant, {}, value);
    return it->second;
  }

  /// The scalar of `size` (a constant one for a static size).
  uint32_t scalarFor(Size size) {
    return size.isDynamic() ? size.scalar : constantScalar(size.value);
  }

  Size multiply(Size a, Size b) {
    if (!a.isDynamic() && !b.isDynamic())
      return Size::constant(a.value * b.value);
    if (!a.isDynamic() && a.value == 1)
      return b;
    if (!b.isDynamic() && b.value == 1)
      return a;
    return Size::of(
        addScalar(vk::Scalar::Op::Mul, {scalarFor(a), scalarFor(b)}));
  }

  /// The host scalar `value` holds (an index computed from the input
  /// shapes), or an error at `user`.
  FailureOr<uint32_t> scalarOf(Value value, Operation *user) {
    auto it = scalars.find(value);
    if (it != scalars.end())
      return it->second;
    if (std::optional<int64_t> constant = getConstantIntValue(value))
      return constantScalar(*constant);
    InFlightDiagnostic diag = user->emitOpError(
        "uses an integer the Vulkan host side cannot compute from the input "
        "shapes");
    if (Operation *def = value.getDefiningOp())
      diag.attachNote(def->getLoc()) << "computed here";
    return failure();
  }

  FailureOr<Size> sizeOf(Value value, Operation *user) {
    if (std::optional<int64_t> constant = getConstantIntValue(value))
      return Size::constant(*constant);
    FailureOr<uint32_t> scalar = scalarOf(value, user);
    if (failed(scalar))
      return failure();
    return Size::of(*scalar);
  }

  /// Index arithmetic on the host (what sizes dynamic buffers and grids):
  /// a scalar of the program. std::nullopt for other ops.
  std::optional<LogicalResult> addArithmetic(Operation *op) {
    using Op = vk::Scalar::Op;
    std::optional<Op> kind =
        llvm::TypeSwitch<Operation *, std::optional<Op>>(op)
            .Case([](arith::AddIOp) { return Op::Add; })
            .Case([](arith::SubIOp) { return Op::Sub; })
            .Case([](arith::MulIOp) { return Op::Mul; })
            .Case([](arith::DivSIOp) { return Op::DivS; })
            .Case([](arith::RemSIOp) { return Op::RemS; })
            .Case([](arith::FloorDivSIOp) { return Op::FloorDivS; })
            .Case([](arith::CeilDivSIOp) { return Op::CeilDivS; })
            .Case([](arith::DivUIOp) { return Op::DivU; })
            .Case([](arith::RemUIOp) { return Op::RemU; })
            .Case([](arith::CeilDivUIOp) { return Op::CeilDivU; })
            .Case([](arith::MinSIOp) { return Op::MinS; })
            .Case([](arith::MaxSIOp) { return Op::MaxS; })
            .Case([](arith::MinUIOp) { return Op::MinU; })
            .Case([](arith::MaxUIOp) { return Op::MaxU; })
            .Case([](arith::SelectOp) { return Op::Select; })
            .Case([](arith::CmpIOp cmp) -> std::optional<Op> {
              switch (cmp.getPredicate()) {
              case arith::CmpIPredicate::eq:
                return Op::Eq;
              case arith::CmpIPredicate::ne:
                return Op::Ne;
              case arith::CmpIPredicate::slt:
                return Op::Slt;
              case arith::CmpIPredicate::sle:
                return Op::Sle;
              case arith::CmpIPredicate::sgt:
                return Op::Sgt;
              case arith::CmpIPredicate::sge:
                return Op::Sge;
              case arith::CmpIPredicate::ult:
                return Op::Ult;
              case arith::CmpIPredicate::ule:
                return Op::Ule;
              case arith::CmpIPredicate::ugt:
                return Op::Ugt;
              case arith::CmpIPredicate::uge:
                return Op::Uge;
              }
              return std::nullopt;
            })
            .Default([](Operation *) { return std::nullopt; });
    // Casts between index and 64-bit integers keep the value.
    if (auto cast = dyn_cast<arith::IndexCastOp>(op)) {
      if (!cast.getType().isIndex() && !cast.getType().isInteger(64))
        return std::nullopt;
      FailureOr<uint32_t> scalar = scalarOf(cast.getIn(), op);
      if (failed(scalar))
        return failure();
      scalars[cast.getResult()] = *scalar;
      return success();
    }
    if (!kind || op->getNumResults() != 1 ||
        !op->getResult(0).getType().isSignlessIntOrIndex())
      return std::nullopt;
    std::array<uint32_t, 3> operands = {0, 0, 0};
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      FailureOr<uint32_t> scalar = scalarOf(operand, op);
      if (failed(scalar))
        return failure();
      operands[i] = *scalar;
    }
    scalars[op->getResult(0)] = addScalar(*kind, operands);
    return success();
  }

  /// memref.dim on the host: an input's shape, an allocation's size.
  LogicalResult addDim(memref::DimOp dim) {
    std::optional<int64_t> index = dim.getConstantIndex();
    auto found = shapes.find(dim.getSource());
    if (!index || found == shapes.end() || *index < 0 ||
        *index >= int64_t(found->second.size()))
      return dim.emitOpError("asks for a size the Vulkan host side does not "
                             "know (a constant dimension of an input or an "
                             "allocation)");
    Size size = found->second[*index];
    scalars[dim.getResult()] = scalarFor(size);
    return success();
  }

  LogicalResult addAllocation(Operation *alloc) {
    Value result = alloc->getResult(0);
    auto type = cast<MemRefType>(result.getType());
    SmallVector<Size> dims;
    unsigned next = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        dims.push_back(Size::constant(type.getDimSize(d)));
        continue;
      }
      FailureOr<Size> size = sizeOf(alloc->getOperand(next++), alloc);
      if (failed(size))
        return failure();
      dims.push_back(*size);
    }
    shapes[result] = dims;
    FailureOr<Size> bytes = bufferBytes(result, alloc);
    if (failed(bytes))
      return failure();
    // An allocation that the function only copies into an output is the
    // output itself.
    auto alias = outputAliases.find(result);
    if (alias != outputAliases.end()) {
      BlockArgument output = alias->second;
      uint32_t id = buffers.lookup(output);
      setBytes(program.buffers[id], *bytes);
      shapes[output] = dims;
      buffers[result] = id;
      return success();
    }
    vk::Buffer buffer;
    setBytes(buffer, *bytes);
    if (alloc->hasAttr(mlir::fx::kPersistentZerosAttr)) {
      // Kept from call to call and zero at load: a constant of zeros,
      // which only its kernel writes (and leaves at zero).
      if (bytes->isDynamic())
        return alloc->emitOpError("persistent state of dynamic size");
      buffer.kind = vk::Buffer::Kind::Constant;
      buffer.data.assign(buffer.bytes, 0);
    }
    buffers[result] = addBuffer(std::move(buffer));
    return success();
  }

  /// Sets `buffer`'s size: rounded up to whole words if static.
  static void setBytes(vk::Buffer &buffer, Size bytes) {
    buffer.bytes = bytes.isDynamic() ? 0 : roundBufferBytes(bytes.value);
    buffer.bytesScalar = bytes.scalar;
  }

  /// Dynamic outputs are written by copies from allocations (one-shot
  /// bufferization cannot hoist an allocation whose size the caller does
  /// not know). Where an allocation is copied whole into an output that
  /// nothing else uses, and is not used after the copy, the allocation
  /// becomes the output and the copy disappears.
  void findOutputAliases(func::FuncOp func, size_t numInputs) {
    for (BlockArgument arg : func.getArguments().drop_front(numInputs)) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape() || !arg.hasOneUse())
        continue;
      auto copy = dyn_cast<memref::CopyOp>(*arg.getUsers().begin());
      if (!copy || copy.getTarget() != arg ||
          copy->getBlock() != &func.getBody().front())
        continue;
      Value source = copy.getSource();
      if (!source.getDefiningOp<memref::AllocOp>() ||
          source.getParentBlock() != copy->getBlock() ||
          source.getType() != arg.getType())
        continue;
      bool usedAfter = llvm::any_of(source.getUsers(), [&](Operation *user) {
        Operation *top = copy->getBlock()->findAncestorOpInBlock(*user);
        return top != copy && !isa<memref::DeallocOp>(user) &&
               (!top || copy->isBeforeInBlock(top));
      });
      if (usedAfter || outputAliases.count(source))
        continue;
      outputAliases[source] = arg;
      aliasedCopies.insert(copy);
    }
  }

  /// Every dynamic output has its size from an allocation or a copy.
  LogicalResult finishOutputs(func::FuncOp func, size_t numInputs) {
    bool dynamic = false;
    for (BlockArgument arg : func.getArguments().drop_front(numInputs)) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape())
        continue;
      dynamic = true;
      auto found = shapes.find(arg);
      if (found == shapes.end())
        return func.emitError()
               << "output " << arg.getArgNumber() - numInputs
               << " has dynamic dimensions that the Vulkan host side cannot "
                  "size (it is not copied from a buffer of known shape)";
    }
    if (!dynamic)
      return success();
    for (BlockArgument arg : func.getArguments().drop_front(numInputs)) {
      auto type = cast<MemRefType>(arg.getType());
      std::vector<uint32_t> dims;
      for (int64_t d = 0; d < type.getRank(); ++d)
        dims.push_back(type.isDynamicDim(d) ? scalarFor(shapes[arg][d])
                                            : vk::kNoScalar);
      program.outputDims.push_back(std::move(dims));
    }
    return success();
  }

  /// Adds `buffer`, sized by setBytes (dynamic outputs: later) or fixed
  /// (size arguments); constant data is zero-padded to the rounded size.
  uint32_t addBuffer(vk::Buffer buffer) {
    if (buffer.data.size() < buffer.bytes && !buffer.data.empty())
      buffer.data.resize(buffer.bytes, 0);
    program.buffers.push_back(std::move(buffer));
    return program.buffers.size() - 1;
  }

  /// The size in bytes of host memref `value`: static, or a scalar from
  /// its dynamic dimensions.
  FailureOr<Size> bufferBytes(Value value, Operation *where) {
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type || !type.getLayout().isIdentity())
      return where->emitOpError("needs an identity-layout memref on the "
                                "Vulkan host side, got ")
             << value.getType();
    std::optional<uint64_t> bytes = elementBytes(type.getElementType());
    if (!bytes)
      return where->emitOpError("element type ")
             << type.getElementType() << " has no Vulkan buffer layout";
    if (type.hasStaticShape())
      return Size::constant(*bytes * type.getNumElements());
    auto found = shapes.find(value);
    if (found == shapes.end())
      return where->emitOpError("needs the shape of a dynamic buffer the "
                                "Vulkan host side does not know");
    Size total = Size::constant(*bytes);
    for (Size dim : found->second)
      total = multiply(total, dim);
    return total;
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
    auto fromType = dyn_cast<MemRefType>(cast.getOperand(0).getType());
    auto toType = dyn_cast<MemRefType>(cast.getResult(0).getType());
    if (fromType && toType && !fromType.hasStaticShape() &&
        fromType.getShape() == toType.getShape() &&
        fromType.getLayout().isIdentity() && toType.getLayout().isIdentity() &&
        elementBytes(fromType.getElementType()) &&
        elementBytes(fromType.getElementType()) ==
            elementBytes(toType.getElementType()) &&
        shapes.count(cast.getOperand(0))) {
      // A dynamic buffer seen with another element type of the same size
      // (bf16 as i16).
      FailureOr<uint32_t> buffer = lookup(cast.getOperand(0), cast);
      if (failed(buffer))
        return failure();
      shapes[cast.getResult(0)] = shapes.lookup(cast.getOperand(0));
      buffers[cast.getResult(0)] = *buffer;
      return success();
    }
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

  /// The dimensions of `value`, a host memref: its recorded shape, or its
  /// type's static one.
  FailureOr<SmallVector<Size>> dimsOf(Value value, Operation *user) {
    if (auto found = shapes.find(value); found != shapes.end())
      return found->second;
    auto type = dyn_cast<MemRefType>(value.getType());
    if (!type || !type.hasStaticShape()) {
      user->emitOpError("uses a buffer whose shape the Vulkan host side does "
                        "not know");
      return failure();
    }
    SmallVector<Size> dims;
    for (int64_t size : type.getShape())
      dims.push_back(Size::constant(size));
    return dims;
  }

  /// A reshape of a whole buffer (a flatten or view of a dynamic batch
  /// that stayed on the host): the same device buffer, its shape the
  /// source's dimensions regrouped.
  template <typename ReshapeOp> LogicalResult addReshape(ReshapeOp reshape) {
    Value source = reshape.getSrc(), result = reshape.getResult();
    // Host memrefs have identity layouts (the schedule refuses others where
    // they are defined), and reshapes of those keep them.
    assert(reshape.getSrcType().getLayout().isIdentity() &&
           reshape.getResultType().getLayout().isIdentity() &&
           "a reshape of a whole buffer");
    FailureOr<uint32_t> buffer = lookup(source, reshape);
    if (failed(buffer))
      return failure();
    FailureOr<SmallVector<Size>> sourceDims = dimsOf(source, reshape);
    if (failed(sourceDims))
      return failure();
    SmallVector<Size> dims;
    if constexpr (std::is_same_v<ReshapeOp, memref::CollapseShapeOp>) {
      // Each result dimension is the product of its group's.
      for (const ReassociationIndices &group :
           reshape.getReassociationIndices()) {
        Size size = Size::constant(1);
        for (int64_t d : group)
          size = multiply(size, (*sourceDims)[d]);
        dims.push_back(size);
      }
    } else {
      // The result's sizes are the op's (static, or host values).
      for (OpFoldResult size : reshape.getMixedOutputShape()) {
        if (std::optional<int64_t> constant = getConstantIntValue(size)) {
          dims.push_back(Size::constant(*constant));
          continue;
        }
        FailureOr<Size> dynamic = sizeOf(cast<Value>(size), reshape);
        if (failed(dynamic))
          return failure();
        dims.push_back(*dynamic);
      }
    }
    shapes[result] = dims;
    buffers[result] = *buffer;
    return success();
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
    // memref.global types are static: the size is a constant.
    FailureOr<Size> size = bufferBytes(get.getResult(), get);
    if (failed(size))
      return failure();
    uint64_t bytes = size->value;
    vk::Buffer buffer;
    buffer.kind = vk::Buffer::Kind::Constant;
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
    if (buffer.data.size() != bytes)
      return get.emitOpError("constant '")
             << get.getName() << "' holds " << buffer.data.size()
             << " bytes; its type needs " << bytes;
    setBytes(buffer, *size);
    uint32_t id = addBuffer(std::move(buffer));
    globals[get.getName()] = id;
    buffers[get.getResult()] = id;
    return success();
  }

  LogicalResult addCopy(memref::CopyOp copy) {
    if (aliasedCopies.contains(copy))
      return success();
    FailureOr<uint32_t> source = lookup(copy.getSource(), copy);
    FailureOr<uint32_t> target = lookup(copy.getTarget(), copy);
    if (failed(source) || failed(target))
      return failure();
    // A dynamic output copied into takes the source's shape.
    auto targetArg = dyn_cast<BlockArgument>(copy.getTarget());
    auto targetType = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (targetArg && targetType && !targetType.hasStaticShape() &&
        !shapes.count(targetArg) &&
        program.buffers[*target].kind == vk::Buffer::Kind::Output) {
      auto found = shapes.find(copy.getSource());
      if (found == shapes.end())
        return copy.emitOpError("copies a buffer of unknown shape into a "
                                "dynamic output");
      shapes[targetArg] = found->second;
      FailureOr<Size> bytes = bufferBytes(targetArg, copy);
      if (failed(bytes))
        return failure();
      setBytes(program.buffers[*target], *bytes);
    }
    FailureOr<Size> bytes = bufferBytes(copy.getSource(), copy);
    if (failed(bytes))
      return failure();
    vk::Copy step;
    step.source = *source;
    step.target = *target;
    step.bytes = bytes->isDynamic() ? 0 : bytes->value;
    step.bytesScalar = bytes->scalar;
    if (!bytes->isDynamic() && step.bytes == 0)
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
    kernel.label = mlir::fx::describeLocation(launch.getLoc(), "kernel");
    kernel.entryPoint = launch.getKernelName().getValue().str();
    ArrayRef<int32_t> size = *gpuFunc.getKnownBlockSize();
    for (int i = 0; i < 3; ++i)
      kernel.workgroupSize[i] = size[i];
    kernel.numBindings = gpuFunc.getNumArguments();
    SmallVector<bool> written = writtenArguments(gpuFunc);
    kernel.writtenBindings.assign(written.begin(), written.end());
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
      if (std::optional<int64_t> n = getConstantIntValue(dims[i])) {
        if (*n <= 0 || *n > UINT32_MAX)
          return launch.emitOpError("needs a positive grid size below 2^32");
        dispatch.workgroups[i] = *n;
        continue;
      }
      FailureOr<uint32_t> scalar = scalarOf(dims[i], launch);
      if (failed(scalar))
        return failure();
      dispatch.workgroupScalars[i] = *scalar;
    }
    for (Value operand : launch.getKernelOperands()) {
      if (operand.getType().isIndex()) {
        // A size argument (fx-pass-kernel-sizes): a small buffer holding
        // its value, one per scalar.
        FailureOr<uint32_t> scalar = scalarOf(operand, launch);
        if (failed(scalar))
          return failure();
        auto [it, inserted] = sizeBuffers.try_emplace(*scalar, 0);
        if (inserted) {
          vk::Buffer buffer;
          buffer.kind = vk::Buffer::Kind::Size;
          buffer.index = *scalar;
          buffer.bytes = 4;
          it->second = addBuffer(std::move(buffer));
        }
        dispatch.buffers.push_back(it->second);
        continue;
      }
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
  /// Host integers: their program scalars.
  llvm::DenseMap<Value, uint32_t> scalars;
  /// The dimensions of host memrefs with dynamic ones.
  llvm::DenseMap<Value, SmallVector<Size>> shapes;
  /// Allocations that are outputs (findOutputAliases), and their copies.
  llvm::DenseMap<Value, BlockArgument> outputAliases;
  llvm::SmallPtrSet<Operation *, 4> aliasedCopies;
  /// The Constant scalar of each value (constantScalar).
  llvm::DenseMap<int64_t, uint32_t> constantScalars;
  /// The Size buffer of each scalar passed to kernels.
  llvm::DenseMap<uint32_t, uint32_t> sizeBuffers;
  llvm::StringMap<uint32_t> globals;
  llvm::StringMap<uint32_t> kernels;

  /// Per argument of `func`: whether the kernel may write through it
  /// (every argument where a write's target is not known).
  static SmallVector<bool> writtenArguments(gpu::GPUFuncOp func) {
    unsigned count = func.getNumArguments();
    SmallVector<bool> written(count, false);
    bool unknown = func.getBody().empty();
    // Marks what `target` views as written: a kernel argument, or nothing
    // for the kernel's own workgroup and private memory.
    auto write = [&](Value target) {
      while (Operation *def = target.getDefiningOp()) {
        if (auto view = dyn_cast<ViewLikeOpInterface>(def))
          target = view.getViewSource();
        else if (isa<UnrealizedConversionCastOp, memref::CastOp>(def))
          target = def->getOperand(0);
        else
          break;
      }
      if (target.getDefiningOp<memref::AllocOp>() ||
          target.getDefiningOp<memref::AllocaOp>())
        return;
      auto arg = dyn_cast<BlockArgument>(target);
      if (!arg || arg.getOwner() != &func.getBody().front()) {
        unknown = true;
        return;
      }
      // Past the arguments: workgroup and private attributions.
      if (arg.getArgNumber() < count)
        written[arg.getArgNumber()] = true;
    };
    // Where an op's writes name no value (gpu.subgroup_mma_store_matrix's),
    // every memref it takes may be written.
    auto writeOperands = [&](Operation *op) {
      for (Value operand : op->getOperands())
        if (isa<BaseMemRefType>(operand.getType()))
          write(operand);
    };
    func.walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return;
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects) {
        writeOperands(op);
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (const MemoryEffects::EffectInstance &effect : list) {
        if (!isa<MemoryEffects::Write>(effect.getEffect()))
          continue;
        if (Value target = effect.getValue())
          write(target);
        else
          writeOperands(op);
      }
    });
    if (unknown)
      written.assign(count, true);
    return written;
  }

  /// Marks the dispatches that compute from the parameters alone
  /// (vk::Step::prepare): every buffer they read is a parameter input, a
  /// constant, a size or a temporary that only such dispatches write, and
  /// every buffer they write is a static-size temporary that no other step
  /// writes and that no other step uses before them. (IREE's const-eval and
  /// TorchInductor's freezing fold such computations at compile time; here
  /// the parameters are bound after compilation, so they run at binding
  /// time, as the CPU code's prepare function does.)
  void markPrepareSteps() {
    size_t numBuffers = program.buffers.size(), numSteps = program.steps.size();
    // Per step, the buffers it reads and writes (by the kernels' write
    // flags), and per buffer the first step using it.
    std::vector<vk::StepAccess> accesses = vk::stepAccesses(program);
    std::vector<std::vector<uint32_t>> reads(numSteps), writes(numSteps);
    std::vector<int64_t> firstUse(numBuffers, -1);
    for (size_t s = 0; s < numSteps; ++s) {
      reads[s] = std::move(accesses[s].reads);
      writes[s] = std::move(accesses[s].writes);
      for (uint32_t b : llvm::concat<uint32_t>(reads[s], writes[s]))
        if (firstUse[b] < 0)
          firstUse[b] = int64_t(s);
    }
    std::vector<bool> prepare(numSteps, false), prepared(numBuffers, false);
    auto readsOnlyPrepared = [&](size_t s) {
      return llvm::all_of(reads[s], [&](uint32_t b) {
        const vk::Buffer &buffer = program.buffers[b];
        return buffer.kind == vk::Buffer::Kind::Constant ||
               buffer.kind == vk::Buffer::Kind::Size ||
               program.isParameter(b) || prepared[b] ||
               llvm::is_contained(writes[s], b);
      });
    };
    for (size_t s = 0; s < numSteps; ++s) {
      const vk::Step &step = program.steps[s];
      if (step.kind != vk::Step::Kind::Dispatch ||
          llvm::any_of(program.dispatches[step.index].workgroupScalars,
                       [](uint32_t w) { return w != vk::kNoScalar; }))
        continue;
      // Writes into temporaries that only prepare steps used before (a
      // fill, then the computation accumulating into it).
      bool ok = llvm::all_of(writes[s], [&](uint32_t b) {
        const vk::Buffer &buffer = program.buffers[b];
        return buffer.kind == vk::Buffer::Kind::Temporary &&
               buffer.bytesScalar == vk::kNoScalar &&
               (firstUse[b] == int64_t(s) || prepared[b]);
      });
      if (!ok || !readsOnlyPrepared(s))
        continue;
      prepare[s] = true;
      for (uint32_t b : writes[s])
        prepared[b] = true;
    }
    // A prepared buffer that another step writes is not the parameters'
    // alone: its prepare writers, and prepare steps reading it, run every
    // time after all. And prepare steps run before all others: one that
    // writes a buffer an earlier running step used would change what that
    // step sees. (Two parameter-only gathers that bufferization put into
    // one temporary, each read by a running permute, were both prepared:
    // the first permute read the second gather's rows, and Hugging Face's
    // Swin got the second block's position bias in its first on Vulkan.)
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<bool> usedByRun(numBuffers, false);
      for (size_t s = 0; s < numSteps; ++s) {
        if (prepare[s] &&
            llvm::any_of(writes[s], [&](uint32_t b) { return usedByRun[b]; })) {
          prepare[s] = false;
          changed = true;
        }
        if (!prepare[s])
          for (uint32_t b : llvm::concat<uint32_t>(reads[s], writes[s]))
            usedByRun[b] = true;
      }
      std::vector<bool> rewritten(numBuffers, false);
      for (size_t s = 0; s < numSteps; ++s)
        if (!prepare[s])
          for (uint32_t b : writes[s])
            rewritten[b] = true;
      for (size_t s = 0; s < numSteps; ++s)
        if (prepare[s] &&
            llvm::any_of(writes[s], [&](uint32_t b) { return rewritten[b]; })) {
          prepare[s] = false;
          changed = true;
        }
      prepared.assign(numBuffers, false);
      for (size_t s = 0; s < numSteps; ++s)
        if (prepare[s])
          for (uint32_t b : writes[s])
            prepared[b] = true;
      for (size_t s = 0; s < numSteps; ++s)
        if (prepare[s] && !readsOnlyPrepared(s)) {
          prepare[s] = false;
          changed = true;
        }
    }
    for (size_t s = 0; s < numSteps; ++s)
      program.steps[s].prepare = prepare[s];
  }
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
  pipelineOptions.precision = options.precision;
  pipelineOptions.rowWorkgroupSize = options.rowWorkgroupSize;
  pipelineOptions.report = options.report;
  pipelineOptions.channelsLast = options.channelsLast;
  if (failed(mlir::fx::buildVulkanPipeline(pm, pipelineOptions)))
    return emitError(module.getLoc())
           << "invalid Vulkan target '" << options.target << "'";
  if (failed(pm.run(module)))
    return failure();
  FailureOr<vk::Program> program =
      buildVulkanSchedule(module, entry, signature);
  if (failed(program))
    return failure();
  // With dynamic dimensions the runtime plans the arena per input shape.
  if (options.reuseTemporaries && !program->isDynamic())
    vk::planTemporaryReuse(*program);
  return program;
}

FailureOr<vk::Program>
buildVulkanSchedule(ModuleOp module, StringRef entry,
                    const rt::FunctionSignature &signature) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return emitError(module.getLoc())
           << "no function '" << entry << "' after lowering";
  vk::Program program;
  program.signature = signature;
  ScheduleBuilder builder(module, program);
  if (failed(builder.build(func)))
    return failure();
  return program;
}

std::string writeSPIRVFiles(const rt::vk::Program &program,
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
