//===- ByteBoolVectors.cpp - vectors of i1 in memory as bytes -------------===//
//
// fx-byte-bool-vectors: loads and stores of `<N x i1>` vectors become loads
// and stores of `<N x i8>`, so that vector code reads and writes boolean
// tensors in the byte-per-element layout scalar code and the runtime use
// (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXBYTEBOOLVECTORS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

/// The byte vector of the same shape as `type`, if it is a vector of i1.
static VectorType byteVectorOf(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isInteger(1))
    return {};
  return vector.clone(IntegerType::get(type.getContext(), 8));
}

/// Stores `operand` (a vector of i1) as bytes: zero-extended before `op`.
static void widenStored(OpOperand &operand) {
  VectorType bytes = byteVectorOf(operand.get().getType());
  if (!bytes)
    return;
  OpBuilder b(operand.getOwner());
  operand.set(LLVM::ZExtOp::create(b, operand.getOwner()->getLoc(), bytes,
                                   operand.get()));
}

/// Loads `result` (a vector of i1) as bytes, truncated after `op` for its
/// users.
static void narrowLoaded(Value result) {
  VectorType bits = dyn_cast<VectorType>(result.getType());
  VectorType bytes = byteVectorOf(bits);
  if (!bytes)
    return;
  result.setType(bytes);
  OpBuilder b(result.getContext());
  b.setInsertionPointAfterValue(result);
  auto trunc = LLVM::TruncOp::create(b, result.getLoc(), bits, result);
  result.replaceAllUsesExcept(trunc, trunc);
}

struct ByteBoolVectorsPass
    : fx::impl::FXByteBoolVectorsBase<ByteBoolVectorsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        narrowLoaded(load.getResult());
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        widenStored(store.getValueMutable());
      } else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
        // The pass-through values (the lanes the mask leaves) are the
        // loaded type too.
        if (byteVectorOf(load.getType()))
          for (OpOperand &passThru : load.getPassThruMutable())
            widenStored(passThru);
        narrowLoaded(load.getResult());
      } else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
        widenStored(store.getValueMutable());
      }
    });
  }
};

} // namespace
