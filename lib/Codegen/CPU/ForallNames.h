//===- ForallNames.h - symbols shared by the scf.forall passes --*- C++ -*-===//
//
// fx-outline-forall names the functions it creates with these prefixes, and
// fx-forall-to-runtime finds them by the same names.
//
//===----------------------------------------------------------------------===//

#ifndef FX_LIB_CODEGEN_CPU_FORALLNAMES_H
#define FX_LIB_CODEGEN_CPU_FORALLNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::fx {
constexpr llvm::StringLiteral kDispatchPrefix = "__fx_forall_dispatch_";
constexpr llvm::StringLiteral kBodyPrefix = "__fx_forall_body_";
constexpr llvm::StringLiteral kTrampolinePrefix = "__fx_forall_trampoline_";
} // namespace mlir::fx

#endif // FX_LIB_CODEGEN_CPU_FORALLNAMES_H
