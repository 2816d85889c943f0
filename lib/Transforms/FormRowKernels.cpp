//===- FormRowKernels.cpp - the fx-form-row-kernels pass ------------------===//
//
// The GPU's regions: softmax, layer norm and row reductions as one loop
// over rows, formed by the rules fx-form-dispatch-regions follows
// (DispatchRegions.h).
//
//===----------------------------------------------------------------------===//

#include "DispatchRegions.h"

#include "fx/Transforms/Passes.h"

namespace mlir::fx {
#define GEN_PASS_DEF_FXFORMROWKERNELS
#include "fx/Transforms/Passes.h.inc"
} // namespace mlir::fx

using namespace mlir;

namespace {

struct FormRowKernelsPass
    : public fx::impl::FXFormRowKernelsBase<FormRowKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    fx::DispatchRegionOptions options;
    options.rowKernels = true;
    // Row kernels are not split into CPU chunks.
    options.threads = 1;
    options.report = report;
    if (failed(fx::formDispatchRegions(getOperation(), options)))
      signalPassFailure();
  }
};

} // namespace
