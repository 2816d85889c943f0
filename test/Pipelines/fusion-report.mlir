// fx-opt --fx-fusion-report: the fusion stages of fx-cpu-pipeline with the
// report on, at the ops' source locations.
// RUN: fx-opt %s --fx-fusion-report="threads=1" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// The output is the fused linalg IR (here split into two 32-row chunks).
// RUN: fx-opt %s --fx-fusion-report="threads=2" 2>/dev/null | FileCheck %s --check-prefix=IR

// x (4096 B), w (8192 B, transposed: k = 16 is too short for dot products)
// and b (512 B) are read; only the result is written. The transposition of
// w is a region of its own (8192 B each way).
// CHECK: model.py:4:1: remark: dispatch region 0: root linalg.generic {{.*}}, fused 2 producer(s); reads 12800 B, writes 32768 B
// CHECK: model.py:3:1: note: fused into dispatch region 0: linalg.matmul
// CHECK: model.py:3:1: remark: dispatch region 1: root linalg.transpose; reads 8192 B, writes 8192 B
// CHECK: remark: 2 dispatch regions, 61952 bytes moved (20992 read, 40960 written)
// IR: scf.forall (%{{.*}}) = (0) to (64) step (32)
// IR: linalg.matmul {{.*}} -> tensor<32x128xf32>
// IR: } {fx.dispatch = 0 : i64}
// IR-NOT: llvm.
func.func @linear_relu(%x: tensor<64x16xf32>, %w: tensor<128x16xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %0 = fx.linear %x, %w, %b : (tensor<64x16xf32>, tensor<128x16xf32>, tensor<128xf32>) -> tensor<64x128xf32> loc("model.py":3:1)
  %1 = fx.relu %0 : (tensor<64x128xf32>) -> tensor<64x128xf32> loc("model.py":4:1)
  return %1 : tensor<64x128xf32>
}
