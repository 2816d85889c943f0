//===- Entry.h - find, specialize and describe an entry point ---*- C++ -*-===//
//
// What every compile of an FX function does first, whatever the target and
// whichever front end asks (fx::Compiler, fx-compile, fx-run): find the
// entry point, keep only it and what it calls, specialize its dynamic
// dimensions to the given shapes, check what must be static, and describe
// it for the runtime (rt::FunctionSignature). prepareEntry does all of it;
// the pieces are public for tests and for the importer-facing tools.
//
//===----------------------------------------------------------------------===//

#ifndef FX_COMPILER_ENTRY_H
#define FX_COMPILER_ENTRY_H

#include "fx/Runtime/CPUFunction.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>
#include <vector>

namespace fx {

/// The runtime dtype of an FX element type, if it has one.
std::optional<rt::DType> toDType(mlir::Type elementType);

/// The MLIR element type of a runtime dtype, if the FX dialect has it.
mlir::Type toElementType(mlir::MLIRContext *ctx, rt::DType dtype);

/// The public function named `name`, or the only public function with a
/// body when `name` is empty. Emits an error and returns null otherwise.
mlir::func::FuncOp findEntry(mlir::ModuleOp module, llvm::StringRef name);

/// Erases the functions of `module` other than `entry` that nothing calls,
/// so that only the entry point and what it calls gets compiled.
void keepOnlyEntry(mlir::ModuleOp module, mlir::func::FuncOp entry);

/// Gives the arguments of `func` the static `shapes` (one per argument) and
/// refines the types of the whole function (fx-refine-shapes). Emits an
/// error at the argument's function and fails if a shape does not fit the
/// declared type.
mlir::LogicalResult
specializeArguments(mlir::func::FuncOp func,
                    llvm::ArrayRef<std::vector<int64_t>> shapes);

/// The signature of `func`, whose types must be tensors of FX dtypes,
/// static unless `allowDynamic` (dynamic dimensions become kDynamicDim);
/// otherwise emits an error naming the argument or result.
mlir::FailureOr<rt::FunctionSignature> getSignature(mlir::func::FuncOp func,
                                                    bool allowDynamic = false);

/// An entry point ready to compile.
struct PreparedEntry {
  /// A copy of the module holding the entry and what it calls.
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The entry point in `module`.
  mlir::func::FuncOp func;
  /// Its arguments (parameters flagged) and results; kDynamicDim where a
  /// dimension stays dynamic.
  rt::FunctionSignature signature;
};

/// How prepareEntry treats the entry's shapes.
struct EntryShapes {
  /// One shape per argument to specialize the dynamic dimensions to; empty:
  /// keep the declared types.
  std::vector<std::vector<int64_t>> arguments;
  /// Whether dimensions may stay dynamic after that (a Vulkan program sized
  /// at run time); if not, the first dynamic argument is an error.
  bool allowDynamic = false;
  /// Completes that error: what makes the shapes static in the caller's
  /// terms (a flag, an option), after "argument 0 of 'f' has the dynamic
  /// type T; ".
  std::string staticHint = "compiled code needs static shapes";
};

/// Copies `module` and prepares entry `name` in the copy (empty: the only
/// public function with a body): keeps only it and what it calls,
/// specializes it to `shapes.arguments`, checks that it is static unless
/// allowed, and gets its signature. Errors (no such entry, a shape count or
/// a shape that does not fit, a dynamic argument, a type with no runtime
/// dtype) are emitted as diagnostics; `module` is never modified.
mlir::FailureOr<PreparedEntry> prepareEntry(mlir::ModuleOp module,
                                            llvm::StringRef name,
                                            const EntryShapes &shapes);

} // namespace fx

#endif // FX_COMPILER_ENTRY_H
