//===- FlattenGlobals.cpp - constant buffers as 1-d globals ---------------===//
//
// fx-flatten-globals: n-d constant globals become 1-d ones, expanded back
// where they are read, so that the LLVM translation makes one constant of
// each (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "fx/Codegen/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXFLATTENGLOBALS
#include "fx/Codegen/CPU/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct FlattenGlobalsPass : fx::impl::FXFlattenGlobalsBase<FlattenGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The flattened globals, by name, with their original types.
    llvm::StringMap<MemRefType> flattened;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      MemRefType type = global.getType();
      auto initial =
          dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr());
      if (!initial || type.getRank() < 2 || !type.hasStaticShape() ||
          !type.getLayout().isIdentity())
        continue;
      auto flat =
          MemRefType::get({type.getNumElements()}, type.getElementType(),
                          AffineMap(), type.getMemorySpace());
      global.setType(flat);
      global.setInitialValueAttr(initial.reshape(RankedTensorType::get(
          flat.getShape(), initial.getType().getElementType())));
      flattened[global.getSymName()] = type;
    }
    if (flattened.empty())
      return;
    module.walk([&](memref::GetGlobalOp get) {
      auto it = flattened.find(get.getName());
      if (it == flattened.end())
        return;
      MemRefType type = it->second;
      OpBuilder b(get);
      auto flat = memref::GetGlobalOp::create(
          b, get.getLoc(),
          MemRefType::get({type.getNumElements()}, type.getElementType(),
                          AffineMap(), type.getMemorySpace()),
          get.getName());
      SmallVector<ReassociationIndices> all(1);
      for (int64_t d = 0; d < type.getRank(); ++d)
        all.front().push_back(d);
      auto expanded =
          memref::ExpandShapeOp::create(b, get.getLoc(), type, flat, all);
      get.replaceAllUsesWith(expanded.getResult());
      get.erase();
    });
  }
};

} // namespace
