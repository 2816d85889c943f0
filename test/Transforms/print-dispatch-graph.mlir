// fx-print-dispatch-graph: the dispatch regions of the fusion stages as a
// Graphviz graph (here through --fx-fusion-report's dispatch-graph option,
// which prints it right after the regions form).
// RUN: fx-opt %s --fx-fusion-report="threads=1 dispatch-graph=-" -o /dev/null 2>&1 | FileCheck %s
// The pass on its own, right after fx-form-dispatch-regions (before a
// cleanup folds the loop of a one-tile region, tag and all), into a file;
// the IR is left as it is.
// RUN: fx-opt %s --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg, fx-fuse-elementwise, fx-form-dispatch-regions{threads=1}), fx-print-dispatch-graph{output=%t.dot})' | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --input-file=%t.dot
// A file that cannot be written is an error at the module.
// RUN: not fx-opt %s --pass-pipeline='builtin.module(func.func(convert-fx-to-linalg, fx-fuse-elementwise, fx-form-dispatch-regions{threads=1}), fx-print-dispatch-graph{output=%t.missing/g.dot})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// The input x is an ellipse; the parameters are not drawn, but counted in
// the regions that read them. The weights' transpositions read a
// parameter alone: regions computed from parameters alone (dashed,
// prepared once when the parameters are hoisted). Each linear layer is a
// region with its epilogue, reading its transposed weight (an edge with
// the type it reads); the second reads the first's output, and its own is
// result 0.
// CHECK-LABEL: digraph "forward" {
// CHECK: // 4 dispatch regions
// CHECK: a0 [shape=ellipse, label="arg0\n64x16 f32"];
// CHECK-NOT: a1 [
// CHECK: [[T1:r[0-9]+]] [label="region {{[0-9]+}}\ltranspose\lfc1 (model.py:3)\lreads 1 parameter\l-> 16x128 f32\l(parameters alone: prepared once)\l", style=dashed];
// CHECK: [[L1:r[0-9]+]] [label="region {{[0-9]+}}\lmatmul\lgeneric: addf, maximumf\lfc1 +1 fused (model.py:3)\lreads 1 parameter\l-> 64x128 f32\l"];
// CHECK-DAG: [[T1]] -> [[L1]] [label="16x128 f32"];
// CHECK-DAG: a0 -> [[L1]] [label="64x16 f32"];
// CHECK: [[T2:r[0-9]+]] [label="region {{[0-9]+}}\ltranspose\lfc2 (model.py:5)\lreads 1 parameter\l-> 128x32 f32\l(parameters alone: prepared once)\l", style=dashed];
// CHECK: [[L2:r[0-9]+]] [label="region {{[0-9]+}}\lmatmul\lgeneric: addf\lfc2 (model.py:5)\lreads 1 parameter\l-> 64x32 f32\l"];
// CHECK-DAG: [[T2]] -> [[L2]] [label="128x32 f32"];
// CHECK-DAG: [[L1]] -> [[L2]] [label="64x128 f32"];
// CHECK: o0 [shape=ellipse, label="result 0\n64x32 f32"];
// CHECK: [[L2]] -> o0 [label="64x32 f32"];
// CHECK: }
// IR: linalg.transpose {{.*}} {fx.dispatch = 3 : i64}
// IR: scf.for
// IR: } {fx.dispatch = 2 : i64}
// BAD: error: fx-print-dispatch-graph: cannot write {{.*}}g.dot
func.func @forward(%x: tensor<64x16xf32>, %w1: tensor<128x16xf32> {fx.param = "fc1.weight"}, %b1: tensor<128xf32> {fx.param = "fc1.bias"}, %w2: tensor<32x128xf32> {fx.param = "fc2.weight"}, %b2: tensor<32xf32> {fx.param = "fc2.bias"}) -> tensor<64x32xf32> {
  %0 = fx.linear %x, %w1, %b1 : (tensor<64x16xf32>, tensor<128x16xf32>, tensor<128xf32>) -> tensor<64x128xf32> loc(#fc1)
  %1 = fx.relu %0 : (tensor<64x128xf32>) -> tensor<64x128xf32> loc(#relu)
  %2 = fx.linear %1, %w2, %b2 : (tensor<64x128xf32>, tensor<32x128xf32>, tensor<32xf32>) -> tensor<64x32xf32> loc(#fc2)
  return %2 : tensor<64x32xf32>
}
#fc1 = loc("fc1"("model.py":3:1))
#relu = loc("relu"("model.py":4:1))
#fc2 = loc("fc2"("model.py":5:1))
