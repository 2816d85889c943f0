//===- FXOps.td - all FX dialect operations --------------------*- tablegen -*-===//
//
// One TableGen root for the dialect, so the ops are generated into a single
// FXOps.{h,cpp}.inc; each op family lives in its own file.
//
//===----------------------------------------------------------------------===//

#ifndef FX_OPS_TD
#define FX_OPS_TD

include "FXBase.td"
include "FXElementwiseOps.td"
include "FXMatmulOps.td"
include "FXNNOps.td"
include "FXReductionOps.td"
include "FXShapeOps.td"
include "FXCreationOps.td"

#endif // FX_OPS_TD
