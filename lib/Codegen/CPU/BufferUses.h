//===- BufferUses.h - the uses of a buffer through its views ----*- C++ -*-===//
//
// Shared by fx-tile-buffers-to-stack and fx-temporary-arena, which both
// move an allocation elsewhere and so must see every use of its memory.
//
//===----------------------------------------------------------------------===//

#ifndef FX_LIB_CODEGEN_CPU_BUFFERUSES_H
#define FX_LIB_CODEGEN_CPU_BUFFERUSES_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>

namespace mlir::fx::cpu {

/// The bytes of a buffer of `type` if both passes may move it: a static
/// shape, an identity layout and integer or float elements (an index
/// element has no bit width to count: asking for one asserted); nothing
/// otherwise.
inline std::optional<int64_t> staticBufferBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
}

/// Calls `onDealloc` for every memref.dealloc of `buffer` and `onUse` for
/// every other use of it or of a view of it (view ops are followed, not
/// reported), until one returns false; false then, or if a view takes the
/// buffer as other than its source.
template <typename OnDealloc, typename OnUse>
bool forEachBufferUse(Value buffer, OnDealloc onDealloc, OnUse onUse) {
  SmallVector<Value> worklist = {buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        if (!onDealloc(dealloc))
          return false;
        continue;
      }
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() != value)
          return false;
        worklist.push_back(view->getResult(0));
        continue;
      }
      if (!onUse(user))
        return false;
    }
  }
  return true;
}

} // namespace mlir::fx::cpu

#endif // FX_LIB_CODEGEN_CPU_BUFFERUSES_H
