// Compile-time regressions: shapes that once made LLVM's code generation take
// minutes. A swin_t attention-score bmm compiled single-threaded: LLVM's full
// unroller flattened the 24x49 rows of its zero-fill into one basic block of
// ~2400 stores, and SelectionDAG took over 300 s on it. It must now compile
// in well under the time limit (it takes about 0.1 s).
// RUN: timeout 120 fx-run %s --num-threads=1 --bench=1 | FileCheck %s
// CHECK: compile: {{[0-9.]+}} ms
// CHECK: run (1 runs): median

func.func @forward(%a: tensor<24x49x32xf32>, %b: tensor<24x32x49xf32>) -> tensor<24x49x49xf32> {
  %0 = fx.bmm %a, %b : (tensor<24x49x32xf32>, tensor<24x32x49xf32>) -> tensor<24x49x49xf32>
  return %0 : tensor<24x49x49xf32>
}
