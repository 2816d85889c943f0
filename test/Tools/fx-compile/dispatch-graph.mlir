// fx-compile --dispatch-graph draws the CPU code's dispatch regions as a
// Graphviz graph (fx-print-dispatch-graph): a .dot file, or SVG through
// Graphviz's dot.
// RUN: fx-compile %s --target cpu --cpu-threads 1 --dispatch-graph=%t.dot -o %t.fxa
// RUN: FileCheck %s --input-file=%t.dot
// Both entries' digraphs. The convolution, its relu and the residual add
// are one region, which reads the input x both through its zero padding
// and as it is.
// CHECK-LABEL: digraph "block" {
// CHECK: // 1 dispatch region
// CHECK: a0 [shape=ellipse, label="arg0\n1x8x16x16 f32"];
// CHECK: [[C:r[0-9]+]] [label="region 0\lconv_2d_nchw_fchw\lgeneric: maximumf, addf\lconv +1 fused (block.py:2)\lreads 1 parameter\l-> 1x8x16x16 f32\l"];
// CHECK: a0 -> [[C]] [label="1x8x18x18 f32, 1x8x16x16 f32"];
// CHECK: o0 [shape=ellipse, label="result 0\n1x8x16x16 f32"];
// CHECK: [[C]] -> o0 [label="1x8x16x16 f32"];
// CHECK: }
// CHECK-LABEL: digraph "scale" {
// CHECK: }
//
// Through dot, one .svg file per entry when there are several.
// RUN: %if graphviz %{ fx-compile %s --target cpu --dispatch-graph=%t.svg -o %t.fxa %}
// RUN: %if graphviz %{ FileCheck %s --check-prefix=SVG --input-file=%t.block.svg %}
// RUN: %if graphviz %{ FileCheck %s --check-prefix=SVG --input-file=%t.scale.svg %}
// SVG: <svg
// SVG: region
//
// Errors before compiling: SVG without dot on PATH, a target without CPU
// code, fusion off.
// RUN: not env PATH=%t.nowhere fx-compile %s --target cpu --dispatch-graph=%t.svg -o %t.fxa 2>&1 | FileCheck %s --check-prefix=NODOT
// NODOT: fx-compile: error: --dispatch-graph={{.*}}.svg needs Graphviz's dot on PATH to draw SVG (apt install graphviz), or write a .dot file instead
// RUN: not fx-compile %s --target vulkan --dispatch-graph=%t.dot -o %t.fxa 2>&1 | FileCheck %s --check-prefix=VULKAN
// VULKAN: fx-compile: error: --dispatch-graph draws the dispatch regions of the CPU code: it needs --target cpu or all
// RUN: not fx-compile %s --target cpu --no-fusion --dispatch-graph=%t.dot -o %t.fxa 2>&1 | FileCheck %s --check-prefix=NOFUSION
// NOFUSION: fx-compile: error: --dispatch-graph draws dispatch regions, which --no-fusion and --no-dispatch-regions turn off
func.func @block(%x: tensor<1x8x16x16xf32>, %w: tensor<8x8x3x3xf32> {fx.param = "conv.weight"}) -> tensor<1x8x16x16xf32> {
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32> loc(#conv)
  %1 = fx.relu %0 : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> loc(#relu)
  %2 = fx.add %1, %x : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32> loc(#add)
  return %2 : tensor<1x8x16x16xf32>
}
func.func @scale(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = fx.mul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
#conv = loc("conv"("block.py":2:1))
#relu = loc("relu"("block.py":3:1))
#add = loc("add"("block.py":4:1))
