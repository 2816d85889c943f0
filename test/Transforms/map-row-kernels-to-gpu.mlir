// RUN: fx-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-map-row-kernels-to-gpu{workgroup-size=64 max-workgroups=2}))' \
// RUN:   | FileCheck %s
// RUN: not fx-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-map-row-kernels-to-gpu{workgroup-size=48}))' \
// RUN:   2>&1 | FileCheck %s --check-prefix=BADSIZE

// BADSIZE: workgroup-size must be a positive power of two
// RUN: fx-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(fx-map-row-kernels-to-gpu))' \
// RUN:   | FileCheck %s --check-prefix=FULLGRID

// A bufferized softmax row kernel: 4 rows on a grid of 2 workgroups (rows
// strided), 32 threads (the row has 16 elements). The row's max and sum
// live in private memory; each is reduced per thread over a strided part of
// the row, then across the subgroup and through workgroup memory. The max
// also reduces a NaN flag. The output row is written by thread t at t.
// CHECK-LABEL: func.func @softmax
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C2]], %{{.*}}, %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C32]]
// CHECK-DAG: memref.alloca() : memref<1xf32, 6>
// CHECK-DAG: memref.alloca() : memref<1xf32, 6>
// CHECK-DAG: memref.alloc() : memref<32xf32, 3>
// CHECK-DAG: memref.alloc() : memref<32xi32, 3>
// CHECK-DAG: memref.alloc() : memref<32xf32, 3>
// CHECK: scf.for %[[ROW:.*]] = %[[BX]] to %{{.*}} step %[[C2]]
// CHECK: memref.subview %{{.*}}[%{{.*}}, 0] [1, 16] [1, 1]
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %[[TX]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CHECK: arith.maximumf
// CHECK: gpu.subgroup_reduce maxnumf %[[PART]]
// CHECK: gpu.lane_id
// CHECK: gpu.subgroup_id
// CHECK: gpu.barrier
// CHECK: gpu.num_subgroups
// CHECK: gpu.barrier
// CHECK: arith.cmpf uno, %[[PART]], %[[PART]]
// CHECK: gpu.subgroup_reduce maxsi
// CHECK: arith.select
// CHECK: math.exp
// CHECK: gpu.subgroup_reduce add
// CHECK: scf.if
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: scf.forall
func.func @softmax(%arg0: memref<4x16xf32>, %arg1: memref<4x16xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  scf.forall (%arg2) in (4) {
    %subview = memref.subview %arg0[%arg2, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc_1 : memref<1xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%subview : memref<1x16xf32, strided<[16, 1], offset: ?>>) outs(%alloc_1 : memref<1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maximumf %in, %out : f32
      linalg.yield %0 : f32
    }
    linalg.fill ins(%cst : f32) outs(%alloc : memref<1xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%subview, %alloc_1 : memref<1x16xf32, strided<[16, 1], offset: ?>>, memref<1xf32>) outs(%alloc : memref<1xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = math.exp %0 : f32
      %2 = arith.addf %1, %out : f32
      linalg.yield %2 : f32
    }
    %subview_2 = memref.subview %arg1[%arg2, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%subview, %alloc_1, %alloc : memref<1x16xf32, strided<[16, 1], offset: ?>>, memref<1xf32>, memref<1xf32>) outs(%subview_2 : memref<1x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%in: f32, %in_3: f32, %in_4: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = math.exp %0 : f32
      %2 = arith.divf %1, %in_4 : f32
      linalg.yield %2 : f32
    }
  } {fx.dispatch = 0 : i64, fx.row_kernel}
  return
}

// -----

// A 128-element row on 64 threads: two elements per thread, as straight-line
// code. The first reduction loads both; the second reduction and the output
// reuse them (the row is read from device memory once), and the output's
// stores come after all its arithmetic.
// CHECK-LABEL: func.func @softmax_resident
// CHECK: %[[ROW:.*]] = memref.subview %arg0
// CHECK: %[[X0:.*]] = memref.load %[[ROW]][%{{.*}}, %[[TX:[a-z0-9]+]]]
// CHECK: %[[I1:.*]] = arith.addi %[[TX]], %c64
// CHECK: %[[X1:.*]] = memref.load %[[ROW]][%{{.*}}, %[[I1]]]
// CHECK-NOT: memref.load %[[ROW]]
// CHECK: gpu.subgroup_reduce maxnumf
// CHECK: arith.subf %[[X0]]
// CHECK: arith.subf %[[X1]]
// CHECK: gpu.subgroup_reduce add
// CHECK: arith.subf %[[X0]]
// CHECK: arith.divf
// CHECK: arith.subf %[[X1]]
// CHECK: arith.divf
// CHECK: memref.store
// CHECK: memref.store
// CHECK: gpu.terminator
func.func @softmax_resident(%arg0: memref<4x128xf32>, %arg1: memref<4x128xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0xFF800000 : f32
  scf.forall (%arg2) in (4) {
    %subview = memref.subview %arg0[%arg2, 0] [1, 128] [1, 1] : memref<4x128xf32> to memref<1x128xf32, strided<[128, 1], offset: ?>>
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<1xf32>
    linalg.fill ins(%cst_0 : f32) outs(%alloc_1 : memref<1xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%subview : memref<1x128xf32, strided<[128, 1], offset: ?>>) outs(%alloc_1 : memref<1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.maximumf %in, %out : f32
      linalg.yield %0 : f32
    }
    linalg.fill ins(%cst : f32) outs(%alloc : memref<1xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%subview, %alloc_1 : memref<1x128xf32, strided<[128, 1], offset: ?>>, memref<1xf32>) outs(%alloc : memref<1xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = math.exp %0 : f32
      %2 = arith.addf %1, %out : f32
      linalg.yield %2 : f32
    }
    %subview_2 = memref.subview %arg1[%arg2, 0] [1, 128] [1, 1] : memref<4x128xf32> to memref<1x128xf32, strided<[128, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%subview, %alloc_1, %alloc : memref<1x128xf32, strided<[128, 1], offset: ?>>, memref<1xf32>, memref<1xf32>) outs(%subview_2 : memref<1x128xf32, strided<[128, 1], offset: ?>>) {
    ^bb0(%in: f32, %in_3: f32, %in_4: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = math.exp %0 : f32
      %2 = arith.divf %1, %in_4 : f32
      linalg.yield %2 : f32
    }
  } {fx.dispatch = 0 : i128, fx.row_kernel}
  return
}

// -----

// Reading device memory that other threads of the row wrote would need a
// device-memory barrier.
func.func @read_after_write(%x: memref<4x16xf32>, %y: memref<4x16xf32>, %out: memref<4xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  scf.forall (%r) in (4) {
    %xs = memref.subview %x[%r, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %ys = memref.subview %y[%r, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<1x16xf32, strided<[16, 1], offset: ?>>) outs(%ys : memref<1x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%in: f32, %o: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
    %os = memref.subview %out[%r] [1] [1] : memref<4xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%os : memref<1xf32, strided<[1], offset: ?>>)
    // expected-error @below {{in a row kernel reads device memory that other threads of the row wrote}}
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%ys : memref<1x16xf32, strided<[16, 1], offset: ?>>) outs(%os : memref<1xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %o: f32):
      %s = arith.addf %in, %o : f32
      linalg.yield %s : f32
    }
  } {fx.row_kernel}
  return
}

// -----

// Row-sized temporaries have no place in a row kernel.
func.func @row_temporary(%x: memref<4x16xf32>) {
  scf.forall (%r) in (4) {
    // expected-error @below {{in a row kernel allocates 'memref<1x128xf32>'; a row kernel keeps only per-row values (at most 64 elements)}}
    %t = memref.alloc() : memref<1x128xf32>
  } {fx.row_kernel}
  return
}

// -----

// A reduction the workgroup cannot combine.
func.func @i64_sum(%x: memref<4x16xi64>, %out: memref<4xi64>) {
  scf.forall (%r) in (4) {
    %xs = memref.subview %x[%r, 0] [1, 16] [1, 1] : memref<4x16xi64> to memref<1x16xi64, strided<[16, 1], offset: ?>>
    %os = memref.subview %out[%r] [1] [1] : memref<4xi64> to memref<1xi64, strided<[1], offset: ?>>
    // expected-error @below {{in a row kernel must be an f32 or i32 add, mul, min or max reduction}}
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%xs : memref<1x16xi64, strided<[16, 1], offset: ?>>) outs(%os : memref<1xi64, strided<[1], offset: ?>>) {
    ^bb0(%in: i64, %o: i64):
      %s = arith.addi %in, %o : i64
      linalg.yield %s : i64
    }
  } {fx.row_kernel}
  return
}

// -----

func.func @unsupported(%x: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%r) in (4) {
    // expected-error @below {{'scf.for' op is not supported in a row kernel}}
    scf.for %i = %c0 to %c1 step %c1 {
    }
  } {fx.row_kernel}
  return
}

// -----

// A reduction that leaves more than one value per row.
func.func @two_values_per_row(%x: memref<4x2x16xf32>, %out: memref<4x2xf32>) {
  scf.forall (%r) in (4) {
    %xs = memref.subview %x[%r, 0, 0] [1, 2, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<1x2x16xf32, strided<[32, 16, 1], offset: ?>>
    %os = memref.subview %out[%r, 0] [1, 2] [1, 1] : memref<4x2xf32> to memref<1x2xf32, strided<[2, 1], offset: ?>>
    // expected-error @below {{in a row kernel must reduce to one value per row}}
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xs : memref<1x2x16xf32, strided<[32, 16, 1], offset: ?>>) outs(%os : memref<1x2xf32, strided<[2, 1], offset: ?>>) {
    ^bb0(%in: f32, %o: f32):
      %s = arith.addf %in, %o : f32
      linalg.yield %s : f32
    }
  } {fx.row_kernel}
  return
}

// -----

// Rows of a dynamic count (a dynamic batch): the host launches min(rows,
// max-workgroups) workgroups and each strides over the rows by the grid.
// CHECK-LABEL: func @dynamic_rows
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?x16xf32>, %[[N:[a-z0-9]+]]: index
// CHECK: %[[GROUPS:.*]] = arith.minui %[[N]], %c2
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%[[GX:.*]] = %[[GROUPS]]
// CHECK: scf.for %[[ROW:.*]] = %[[BX]] to %[[N]] step %[[GX]]
// CHECK: memref.subview %[[X]]
func.func @dynamic_rows(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %n: index) {
  scf.forall (%r) in (%n) {
    %xs = memref.subview %x[%r, 0] [1, 16] [1, 1] : memref<?x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %ys = memref.subview %y[%r, 0] [1, 16] [1, 1] : memref<?x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<1x16xf32, strided<[16, 1], offset: ?>>) outs(%ys : memref<1x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%in: f32, %o: f32):
      %e = math.exp %in : f32
      linalg.yield %e : f32
    }
  } {fx.row_kernel}
  return
}

// -----

// A dynamic lower bound is not a row count.
func.func @dynamic_lower_bound(%x: memref<?x16xf32>, %lb: index) {
  // expected-error @below {{row kernel has a dynamic lower bound or step, which the Vulkan pipeline cannot map}}
  scf.forall (%r) = (%lb) to (8) step (1) {
  } {fx.row_kernel}
  return
}

// -----

// An elementwise op of two outputs.
func.func @two_outputs(%x: memref<4x16xf32>, %y: memref<4x16xf32>, %z: memref<4x16xf32>) {
  scf.forall (%r) in (4) {
    %xs = memref.subview %x[%r, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %ys = memref.subview %y[%r, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %zs = memref.subview %z[%r, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    // expected-error @below {{in a row kernel must have one output}}
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<1x16xf32, strided<[16, 1], offset: ?>>) outs(%ys, %zs : memref<1x16xf32, strided<[16, 1], offset: ?>>, memref<1x16xf32, strided<[16, 1], offset: ?>>) {
    ^bb0(%in: f32, %a: f32, %b: f32):
      linalg.yield %in, %in : f32, f32
    }
  } {fx.row_kernel}
  return
}

// -----

// Many short rows (40000 of 49: a global average pooling): a thread per
// row, 128 rows to a workgroup, the row's sum in the thread alone (no
// subgroup reduction, no workgroup memory, no barrier). On a grid of 2
// workgroups, the threads stride over the rows by 256; on a full grid
// (313 workgroups), the last one's threads past row 40000 do nothing.
// CHECK-LABEL: func.func @short_rows
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c2{{[_0-9]*}}, %{{.*}}, %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{[_0-9]*}}
// CHECK-NOT: memref.alloc()
// CHECK: %[[FIRST:.*]] = arith.muli %[[BX]], %c128
// CHECK: %[[ROW0:.*]] = arith.addi %[[FIRST]], %[[TX]]
// CHECK: scf.for %{{.*}} = %[[ROW0]] to %c40000{{[_0-9]*}} step %c256
// CHECK-NOT: gpu.subgroup_reduce
// CHECK-NOT: gpu.barrier
// CHECK: arith.divf
// CHECK: memref.store
// CHECK: gpu.terminator
// FULLGRID-LABEL: func.func @short_rows
// FULLGRID: gpu.launch blocks({{.*}}) in ({{.*}} = %c313{{[_0-9]*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c128{{[_0-9]*}},
// FULLGRID: arith.cmpi ult, %{{.*}}, %c40000
// FULLGRID-NEXT: scf.if
// FULLGRID-NOT: gpu.barrier
// FULLGRID: arith.divf
func.func @short_rows(%x: memref<40000x49xf32>, %y: memref<40000xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  scf.forall (%r) in (40000) {
    %row = memref.subview %x[%r, 0] [1, 49] [1, 1] : memref<40000x49xf32> to memref<1x49xf32, strided<[49, 1], offset: ?>>
    %sum = memref.alloc() : memref<1xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<1xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%row : memref<1x49xf32, strided<[49, 1], offset: ?>>) outs(%sum : memref<1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = arith.addf %in, %out : f32
      linalg.yield %a : f32
    }
    %out = memref.subview %y[%r] [1] [1] : memref<40000xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sum : memref<1xf32>) outs(%out : memref<1xf32, strided<[1], offset: ?>>) {
    ^bb0(%in: f32, %o: f32):
      %d = arith.divf %in, %n : f32
      linalg.yield %d : f32
    }
  } {fx.dispatch = 0 : i64, fx.row_kernel}
  return
}
