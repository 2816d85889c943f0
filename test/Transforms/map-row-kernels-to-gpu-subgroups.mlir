// RUN: fx-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-map-row-kernels-to-gpu{subgroup-rows=true}))' \
// RUN:   | FileCheck %s
// RUN: fx-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-map-row-kernels-to-gpu))' \
// RUN:   | FileCheck %s --check-prefix=WORKGROUP

// Short rows, many of them (3136 rows of 96: a ConvNeXt layer norm's mean
// at 56x56) on a target of 32-lane subgroups: a subgroup per row, four rows
// to a workgroup of 128 threads. Lane t of the subgroup reads elements t,
// t + 32, t + 64 of its row; the sum is combined by the subgroup alone (no
// workgroup memory, no barrier). Without subgroup-rows: a workgroup per row
// whose subgroups combine through workgroup memory.
// CHECK-LABEL: func.func @row_means
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c784{{[_0-9]*}}, %{{.*}}, %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{[_0-9]*}}
// CHECK-NOT: memref.alloc() : memref<{{.*}}, 3>
// CHECK: %[[LANE:.*]] = arith.remui %[[TX]], %c32
// CHECK: %[[FIRST:.*]] = arith.muli %[[BX]], %c4
// CHECK: %[[SUB:.*]] = arith.divui %[[TX]], %c32
// CHECK: arith.addi %[[FIRST]], %[[SUB]]
// CHECK: gpu.subgroup_reduce add
// CHECK-NOT: gpu.barrier
// CHECK: arith.divf
// CHECK: gpu.terminator
// WORKGROUP-LABEL: func.func @row_means
// WORKGROUP: gpu.launch blocks({{.*}}) in ({{.*}} = %c3136{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{[_0-9]*}},
// WORKGROUP: gpu.subgroup_reduce add
// WORKGROUP: gpu.barrier
func.func @row_means(%x: memref<3136x96xf32>, %y: memref<3136xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 96.0 : f32
  scf.forall (%r) in (3136) {
    %row = memref.subview %x[%r, 0] [1, 96] [1, 1] : memref<3136x96xf32> to memref<1x96xf32, strided<[96, 1], offset: ?>>
    %sum = memref.alloc() : memref<1xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<1xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%row : memref<1x96xf32, strided<[96, 1], offset: ?>>) outs(%sum : memref<1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    }
    %out = memref.subview %y[%r] [1] [1] : memref<3136xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sum : memref<1xf32>) outs(%out : memref<1xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %o: f32):
      %d = arith.divf %in, %n : f32
      linalg.yield %d : f32
    }
  } {fx.dispatch = 0 : i64, fx.row_kernel}
  return
}

// -----

// Too few rows to fill the GPU by fours (196 rows of 384: the layer norms
// at 14x14): a workgroup per row still.
// CHECK-LABEL: func.func @few_rows
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c196{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{[_0-9]*}},
// CHECK: gpu.barrier
func.func @few_rows(%x: memref<196x384xf32>, %y: memref<196xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%r) in (196) {
    %row = memref.subview %x[%r, 0] [1, 384] [1, 1] : memref<196x384xf32> to memref<1x384xf32, strided<[384, 1], offset: ?>>
    %out = memref.subview %y[%r] [1] [1] : memref<196xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%out : memref<1xf32, strided<[1], offset: ?>>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%row : memref<1x384xf32, strided<[384, 1], offset: ?>>) outs(%out : memref<1xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %o: f32):
      %a = arith.addf %in, %o : f32
      linalg.yield %a : f32
    }
  } {fx.dispatch = 0 : i64, fx.row_kernel}
  return
}

// -----

// A split-k sum (`fx.split_sum`: two partial sums and a bias) that only the
// row kernel after it reads, through an expand_shape: the kernel computes
// each element it reads from the partial sums and the bias, and the
// generic goes. The buffer is written anew after the kernel (reused by the
// bufferization), which does not keep the sum.
// CHECK-LABEL: func.func @split_sum_prologue
// CHECK-NOT: fx.split_sum
// CHECK: gpu.launch
// CHECK: memref.load %[[P0:.*]][
// CHECK: memref.load %[[P1:.*]][
// CHECK: arith.addf
// CHECK: memref.load %arg1[
// CHECK: arith.addf
// CHECK: gpu.subgroup_reduce add
// CHECK: gpu.terminator
// CHECK: linalg.fill
func.func @split_sum_prologue(%partial: memref<2x1x1024x64xf32>, %bias: memref<64xf32>, %y: memref<8x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<1024x64xf32>
  %p0 = memref.subview %partial[0, 0, 0, 0] [1, 1, 1024, 64] [1, 1, 1, 1] : memref<2x1x1024x64xf32> to memref<1024x64xf32, strided<[64, 1]>>
  %p1 = memref.subview %partial[1, 0, 0, 0] [1, 1, 1024, 64] [1, 1, 1, 1] : memref<2x1x1024x64xf32> to memref<1024x64xf32, strided<[64, 1], offset: 65536>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p0, %p1, %bias : memref<1024x64xf32, strided<[64, 1]>>, memref<1024x64xf32, strided<[64, 1], offset: 65536>>, memref<64xf32>) outs(%sum : memref<1024x64xf32>) attrs = {fx.split_sum} {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    linalg.yield %t : f32
  }
  %x = memref.expand_shape %sum [[0, 1], [2]] output_shape [8, 128, 64] : memref<1024x64xf32> into memref<8x128x64xf32>
  scf.forall (%i, %j) in (8, 128) {
    %row = memref.subview %x[%i, %j, 0] [1, 1, 64] [1, 1, 1] : memref<8x128x64xf32> to memref<1x1x64xf32, strided<[8192, 64, 1], offset: ?>>
    %out = memref.subview %y[%i, %j] [1, 1] [1, 1] : memref<8x128xf32> to memref<1x1xf32, strided<[128, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%out : memref<1x1xf32, strided<[128, 1], offset: ?>>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%row : memref<1x1x64xf32, strided<[8192, 64, 1], offset: ?>>) outs(%out : memref<1x1xf32, strided<[128, 1], offset: ?>>) {
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  } {fx.dispatch = 0 : i64, fx.row_kernel}
  linalg.fill ins(%zero : f32) outs(%sum : memref<1024x64xf32>)
  return
}

// -----

// Kept: something after the kernel reads the sum's buffer (a copy), so the
// generic still writes it; the kernel loads it.
// CHECK-LABEL: func.func @split_sum_read_later
// CHECK: fx.split_sum
// CHECK: gpu.launch
// CHECK: memref.copy
func.func @split_sum_read_later(%partial: memref<2x1x1024x64xf32>, %y: memref<1024xf32>, %z: memref<1024x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<1024x64xf32>
  %p0 = memref.subview %partial[0, 0, 0, 0] [1, 1, 1024, 64] [1, 1, 1, 1] : memref<2x1x1024x64xf32> to memref<1024x64xf32, strided<[64, 1]>>
  %p1 = memref.subview %partial[1, 0, 0, 0] [1, 1, 1024, 64] [1, 1, 1, 1] : memref<2x1x1024x64xf32> to memref<1024x64xf32, strided<[64, 1], offset: 65536>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p0, %p1 : memref<1024x64xf32, strided<[64, 1]>>, memref<1024x64xf32, strided<[64, 1], offset: 65536>>) outs(%sum : memref<1024x64xf32>) attrs = {fx.split_sum} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  scf.forall (%i) in (1024) {
    %row = memref.subview %sum[%i, 0] [1, 64] [1, 1] : memref<1024x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %out = memref.subview %y[%i] [1] [1] : memref<1024xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%out : memref<1xf32, strided<[1], offset: ?>>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%row : memref<1x64xf32, strided<[64, 1], offset: ?>>) outs(%out : memref<1xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  } {fx.dispatch = 0 : i64, fx.row_kernel}
  memref.copy %sum, %z : memref<1024x64xf32> to memref<1024x64xf32>
  return
}

// -----

// Kept: the kernel writes its result in place of the sum it reads.
// CHECK-LABEL: func.func @split_sum_in_place
// CHECK: fx.split_sum
// CHECK: gpu.launch
func.func @split_sum_in_place(%partial: memref<2x1x1024x64xf32>) {
  %sum = memref.alloc() : memref<1024x64xf32>
  %p0 = memref.subview %partial[0, 0, 0, 0] [1, 1, 1024, 64] [1, 1, 1, 1] : memref<2x1x1024x64xf32> to memref<1024x64xf32, strided<[64, 1]>>
  %p1 = memref.subview %partial[1, 0, 0, 0] [1, 1, 1024, 64] [1, 1, 1, 1] : memref<2x1x1024x64xf32> to memref<1024x64xf32, strided<[64, 1], offset: 65536>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p0, %p1 : memref<1024x64xf32, strided<[64, 1]>>, memref<1024x64xf32, strided<[64, 1], offset: 65536>>) outs(%sum : memref<1024x64xf32>) attrs = {fx.split_sum} {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  scf.forall (%i) in (1024) {
    %row = memref.subview %sum[%i, 0] [1, 64] [1, 1] : memref<1024x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%row : memref<1x64xf32, strided<[64, 1], offset: ?>>) {
    ^bb0(%o: f32):
      %d = arith.addf %o, %o : f32
      linalg.yield %d : f32
    }
  } {fx.dispatch = 0 : i64, fx.row_kernel}
  return
}
