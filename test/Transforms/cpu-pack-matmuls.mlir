// RUN: fx-opt %s -split-input-file --fx-cpu-pack-matmuls="block=32 min-rows=8 threads=2 k-block=128" | FileCheck %s

// A dispatch region's column block (768 columns at a multiple of 768) of a
// `linear` weight [1536, 384]: the weight is packed into 48 panels
// [48][384][32] at the top of the function; the tile loops over its 24
// panels, the first one its offset / 32, each panel's matmul in 3 blocks
// of k (128).
// CHECK-DAG: #[[$PACK:.*]] = affine_map<(d0, d1, d2) -> (d0 * 32 + d2, d1)>
// CHECK-DAG: #[[$PANEL:.*]] = affine_map<()[s0, s1] -> (s0 + s1 floordiv 32)>
// CHECK-LABEL: func.func @region(
// CHECK-SAME: %[[X:.*]]: tensor<196x384xf32>, %[[W:.*]]: tensor<1536x384xf32> {fx.param = "w"}
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$PACK]], {{.*}}]{{.*}} ins(%[[W]] : tensor<1536x384xf32>) outs(%{{.*}} : tensor<48x384x32xf32>)
// CHECK: scf.forall (%[[IV:.*]]) = (0) to (1536) step (768)
// CHECK: %[[C:.*]] = linalg.fill
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c24 step %c1 iter_args(%[[ACC:.*]] = %[[C]])
// CHECK: %[[B:.*]] = affine.apply #[[$PANEL]]()[%[[J]], %[[IV]]]
// CHECK: %[[PANELW:.*]] = tensor.extract_slice %[[P]][%[[B]], 0, 0] [1, 384, 32] [1, 1, 1] : tensor<48x384x32xf32> to tensor<384x32xf32>
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[ACC]][0, %{{.*}}] [196, 32] [1, 1]
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c384 step %c128 iter_args(%[[PART:.*]] = %[[OUT]])
// CHECK: %[[XB:.*]] = tensor.extract_slice %[[X]][0, %[[K]]] [196, 128] [1, 1]
// CHECK: %[[WB:.*]] = tensor.extract_slice %[[PANELW]][%[[K]], 0] [128, 32] [1, 1]
// CHECK: linalg.matmul ins(%[[XB]], %[[WB]] : tensor<196x128xf32>, tensor<128x32xf32>) outs(%[[PART]] : tensor<196x32xf32>)
// CHECK: tensor.insert_slice
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.addf
#nk = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
func.func @region(%x: tensor<196x384xf32>, %w: tensor<1536x384xf32> {fx.param = "w"},
                  %bias: tensor<1536xf32>) -> tensor<196x1536xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<196x1536xf32>
  %r = scf.forall (%i) = (0) to (1536) step (768) shared_outs(%out = %empty) -> (tensor<196x1536xf32>) {
    %ws = tensor.extract_slice %w[%i, 0] [768, 384] [1, 1] : tensor<1536x384xf32> to tensor<768x384xf32>
    %bs = tensor.extract_slice %bias[%i] [768] [1] : tensor<1536xf32> to tensor<768xf32>
    %os = tensor.extract_slice %out[0, %i] [196, 768] [1, 1] : tensor<196x1536xf32> to tensor<196x768xf32>
    %e = tensor.empty() : tensor<196x768xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<196x768xf32>) -> tensor<196x768xf32>
    %m = linalg.matmul indexing_maps = #nk ins(%x, %ws : tensor<196x384xf32>, tensor<768x384xf32>) outs(%f : tensor<196x768xf32>) -> tensor<196x768xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%m, %bs : tensor<196x768xf32>, tensor<768xf32>) outs(%os : tensor<196x768xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<196x768xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %g into %out[0, %i] [196, 768] [1, 1] : tensor<196x768xf32> into tensor<196x1536xf32>
    }
  }
  return %r : tensor<196x1536xf32>
}

// -----

// A matmul outside dispatch regions by a transposed parameter (as
// fx-form-dispatch-regions transposes small `linear` weights): the packing
// reads the parameter itself, and the panels are shared among the threads
// by an scf.forall. k = 96 stays one block.
// CHECK-DAG: #[[$PACK:.*]] = affine_map<(d0, d1, d2) -> (d0 * 32 + d2, d1)>
// CHECK-LABEL: func.func @transposed(
// CHECK-SAME: %[[X:.*]]: tensor<256x96xf32>, %[[W:.*]]: tensor<384x96xf32> {fx.param = "w"}
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$PACK]], {{.*}}]{{.*}} ins(%[[W]] : tensor<384x96xf32>) outs(%{{.*}} : tensor<12x96x32xf32>)
// CHECK: scf.forall (%[[J:.*]]) in (12) shared_outs(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[PANELW:.*]] = tensor.extract_slice %[[P]][%[[J]], 0, 0] [1, 96, 32] [1, 1, 1]
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[ACC]][0, %{{.*}}] [256, 32] [1, 1]
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[X]], %[[PANELW]] : tensor<256x96xf32>, tensor<96x32xf32>) outs(%[[OUT]] : tensor<256x32xf32>)
// CHECK: tensor.parallel_insert_slice %[[M]] into %[[ACC]][0, %{{.*}}] [256, 32] [1, 1]
func.func @transposed(%x: tensor<256x96xf32>, %w: tensor<384x96xf32> {fx.param = "w"}) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %te = tensor.empty() : tensor<96x384xf32>
  %t = linalg.transpose ins(%w : tensor<384x96xf32>) outs(%te : tensor<96x384xf32>) permutation = [1, 0]
  %m = linalg.matmul ins(%x, %t : tensor<256x96xf32>, tensor<96x384xf32>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %m : tensor<256x384xf32>
}

// -----

// A [K, N] parameter of 136 columns, a dynamic number of rows: the weight
// is padded to 5 panels (160 columns) and packed along its rows; the
// matmul of the first 128 columns reads 4 panels. k = 300 is blocked by
// 100, the largest divisor from 64 to 128.
// CHECK-DAG: #[[$PACKKN:.*]] = affine_map<(d0, d1, d2) -> (d1, d0 * 32 + d2)>
// CHECK-LABEL: func.func @kn_dynamic(
// CHECK: %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 24]
// CHECK: linalg.generic {indexing_maps = [#[[$PACKKN]], {{.*}}]{{.*}} ins(%[[PAD]] : tensor<300x160xf32>) outs(%{{.*}} : tensor<5x300x32xf32>)
// CHECK: scf.forall (%{{.*}}) in (4)
// CHECK: scf.for %{{.*}} = %{{.*}} to %c300 step %c100
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x100xf32>, tensor<100x32xf32>) outs(%{{.*}} : tensor<?x32xf32>)
func.func @kn_dynamic(%x: tensor<?x300xf32>, %w: tensor<300x136xf32> {fx.param = "w"}, %init: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %ws = tensor.extract_slice %w[0, 0] [300, 128] [1, 1] : tensor<300x136xf32> to tensor<300x128xf32>
  %m = linalg.matmul ins(%x, %ws : tensor<?x300xf32>, tensor<300x128xf32>) outs(%init : tensor<?x128xf32>) -> tensor<?x128xf32>
  return %m : tensor<?x128xf32>
}

// -----

// A 4 MiB operand computed at run time (here an input that is not a
// parameter) by 256 rows: packed in the function, on every call, then read
// in panels like a weight. With 128 rows it stays as it is.
// CHECK-LABEL: func.func @activation(
// CHECK-SAME: %[[X:.*]]: tensor<256x1024xf32>, %[[B:.*]]: tensor<1024x1024xf32>,
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<1024x1024xf32>) outs(%{{.*}} : tensor<32x1024x32xf32>)
// CHECK: scf.forall (%[[J:.*]]) in (32)
// CHECK: tensor.extract_slice %[[P]][%[[J]], 0, 0] [1, 1024, 32] [1, 1, 1]
// CHECK: scf.for
// CHECK: linalg.matmul
// CHECK: linalg.matmul ins(%{{.*}}, %[[B]] : tensor<128x1024xf32>, tensor<1024x1024xf32>)
func.func @activation(%x: tensor<256x1024xf32>, %b: tensor<1024x1024xf32>,
                      %x128: tensor<128x1024xf32>, %init: tensor<256x1024xf32>,
                      %init128: tensor<128x1024xf32>) -> (tensor<256x1024xf32>, tensor<128x1024xf32>) {
  %0 = linalg.matmul ins(%x, %b : tensor<256x1024xf32>, tensor<1024x1024xf32>) outs(%init : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %1 = linalg.matmul ins(%x128, %b : tensor<128x1024xf32>, tensor<1024x1024xf32>) outs(%init128 : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %0, %1 : tensor<256x1024xf32>, tensor<128x1024xf32>
}

// -----

// Left alone: a small operand that is not a parameter, too few rows, columns
// that are not whole panels, a column offset inside a panel, and too few
// panels for two threads outside a dispatch region.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: linalg.generic
// CHECK-NOT: scf.for
// CHECK-COUNT-5: linalg.matmul ins
// CHECK-NOT: scf.for
func.func @unchanged(%x: tensor<64x32xf32>, %act: tensor<32x64xf32>, %few: tensor<4x32xf32>,
                     %w: tensor<32x96xf32> {fx.param = "w"}, %init: tensor<64x64xf32>,
                     %init4: tensor<4x64xf32>, %init48: tensor<64x48xf32>,
                     %init32: tensor<64x32xf32>) -> (tensor<64x64xf32>, tensor<4x64xf32>, tensor<64x48xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %0 = linalg.matmul ins(%x, %act : tensor<64x32xf32>, tensor<32x64xf32>) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ws = tensor.extract_slice %w[0, 0] [32, 64] [1, 1] : tensor<32x96xf32> to tensor<32x64xf32>
  %1 = linalg.matmul ins(%few, %ws : tensor<4x32xf32>, tensor<32x64xf32>) outs(%init4 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %w48 = tensor.extract_slice %w[0, 0] [32, 48] [1, 1] : tensor<32x96xf32> to tensor<32x48xf32>
  %2 = linalg.matmul ins(%x, %w48 : tensor<64x32xf32>, tensor<32x48xf32>) outs(%init48 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %w16 = tensor.extract_slice %w[0, 16] [32, 32] [1, 1] : tensor<32x96xf32> to tensor<32x32xf32>
  %3 = linalg.matmul ins(%x, %w16 : tensor<64x32xf32>, tensor<32x32xf32>) outs(%init32 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %w32 = tensor.extract_slice %w[0, 32] [32, 32] [1, 1] : tensor<32x96xf32> to tensor<32x32xf32>
  %4 = linalg.matmul ins(%x, %w32 : tensor<64x32xf32>, tensor<32x32xf32>) outs(%init32 : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0, %1, %2, %3, %4 : tensor<64x64xf32>, tensor<4x64xf32>, tensor<64x48xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// Columns beyond the last whole panel (272 = 8 x 32 + 16; GPT-2's head has
// 50257): the whole panels shared among the threads, then one matmul by the
// first 16 columns of the zero-padded ninth panel into the last 16 columns.
// CHECK-LABEL: func.func @remainder(
// CHECK: %[[PAD:.*]] = tensor.pad
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[PAD]] : tensor<64x288xf32>) outs(%{{.*}} : tensor<9x64x32xf32>)
// CHECK: %[[PANELS:.*]] = scf.forall (%{{.*}}) in (8) shared_outs(%{{.*}} = %arg2)
// CHECK: %[[W:.*]] = tensor.extract_slice %[[P]][8, 0, 0] [1, 64, 16] [1, 1, 1] : tensor<9x64x32xf32> to tensor<64x16xf32>
// CHECK: %[[OUT:.*]] = tensor.extract_slice %[[PANELS]][0, 256] [96, 16] [1, 1]
// CHECK: %[[R:.*]] = linalg.matmul ins(%arg0, %[[W]] : tensor<96x64xf32>, tensor<64x16xf32>) outs(%[[OUT]] : tensor<96x16xf32>)
// CHECK: tensor.insert_slice %[[R]] into %[[PANELS]][0, 256] [96, 16] [1, 1]
func.func @remainder(%x: tensor<96x64xf32>, %w: tensor<64x272xf32> {fx.param = "w"}, %init: tensor<96x272xf32>) -> tensor<96x272xf32> {
  %0 = linalg.matmul ins(%x, %w : tensor<96x64xf32>, tensor<64x272xf32>) outs(%init : tensor<96x272xf32>) -> tensor<96x272xf32>
  return %0 : tensor<96x272xf32>
}
