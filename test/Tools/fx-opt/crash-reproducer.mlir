// The crash reproducer flags work: a failing pass pipeline writes a
// reproducer that names the pipeline and holds the input IR. (Bufferization
// fails here because FX ops must be lowered first.)
// RUN: rm -f %t.repro.mlir
// RUN: not fx-opt %s -pass-pipeline='builtin.module(func.func(fx-refine-shapes),one-shot-bufferize)' --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: crash-reproducer.mlir:[[#@LINE+6]]:8: error: op was not bufferized
// ERR: reproducer generated at `{{.*}}.repro.mlir`
// RUN: FileCheck %s --input-file=%t.repro.mlir --check-prefix=REPRO
// REPRO: fx.relu
// REPRO: pipeline: "builtin.module(func.func(fx-refine-shapes), one-shot-bufferize
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fx.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
