// RUN: fx-opt %s -split-input-file -verify-diagnostics

// Every diagnostic of the FX verifiers and result type inference, one case
// each. Diagnostics of the shared helpers (FXTypeUtils.cpp) are tested once,
// through one representative op. When result type inference fails, the
// InferTypeOpInterface verifier adds "failed to infer returned types" on the
// same op, so those cases expect two errors.

//===----------------------------------------------------------------------===//
// ODS type constraints
//===----------------------------------------------------------------------===//

func.func @silu_integer_input(%x: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point (f32, f16, bf16) values, but got 'tensor<4xi64>'}}
  %0 = fx.silu %x : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @where_float_condition(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = fx.where %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @relu_unranked_input(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of numeric (f32, f16, bf16, i64, i32) values, but got 'tensor<*xf32>'}}
  %0 = fx.relu %x : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @relu_bool_input(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of numeric (f32, f16, bf16, i64, i32) values, but got 'tensor<4xi1>'}}
  %0 = fx.relu %x : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @exp_f64_input(%x: tensor<4xf64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of f32, f16, bf16, i64, i32 or i1 values, but got 'tensor<4xf64>'}}
  %0 = fx.exp %x : (tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @embedding_float_indices(%w: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of integer (i64, i32) values, but got 'tensor<3xf32>'}}
  %0 = fx.embedding %w, %i : (tensor<10x4xf32>, tensor<3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @arange_bool_result() {
  // expected-error @+1 {{result #0 must be ranked tensor of numeric (f32, f16, bf16, i64, i32) values, but got 'tensor<2xi1>'}}
  %0 = fx.arange {end = 2.0 : f64} : tensor<2xi1>
  return
}

// -----

func.func @max_pool2d_with_indices_i32_indices(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{result #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<1x1x2x2xi32>'}}
  %0:2 = fx.max_pool2d_with_indices %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi32>)
  return
}

// -----

func.func @mean_integer_dtype_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'dtype' failed to satisfy constraint}}
  %0 = fx.mean %x {dtype = i64} : (tensor<4xf32>) -> tensor<i64>
  return
}

// -----

func.func @transpose_missing_dim_attr(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{requires attribute 'dim1'}}
  %0 = fx.transpose %x {dim0 = 0 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Result types contradicting inference
//===----------------------------------------------------------------------===//

func.func @relu_result_shape_mismatch(%x: tensor<4xf32>) {
  // expected-error @+2 {{'fx.relu' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.relu %x : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @add_result_dtype_mismatch(%a: tensor<4xi64>, %b: tensor<4xi64>) {
  // expected-error @+2 {{'fx.add' op inferred type(s) 'tensor<4xi64>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.add %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @sigmoid_integer_keeps_dtype(%x: tensor<4xi64>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.sigmoid %x : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @mm_result_rank_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x16xf32>' are incompatible with return type(s) of operation 'tensor<64xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.mm %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @split_result_count_mismatch(%x: tensor<6xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2xf32>', 'tensor<2xf32>', 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>', 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = fx.split %x {split_sizes = array<i64: 2, 2, 2>} : (tensor<6xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shared helpers (FXTypeUtils.cpp)
//===----------------------------------------------------------------------===//

func.func @add_shapes_not_broadcastable(%a: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'fx.add' op operand shapes [4, 3] and [4] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.add %a, %b : (tensor<4x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @where_condition_not_broadcastable(%c: tensor<5xi1>, %a: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes [5] and [4] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.where %c, %a, %a : (tensor<5xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @softmax_dim_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'fx.softmax' op dim 2 is out of range (expected [-2, 1])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.softmax %x {dim = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @convolution_stride_wrong_length(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects stride to have 2 entries, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @convolution_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects padding entries to be at least 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, -1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @convolution_bias_wrong_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<15xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects bias of shape [16], got [15]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w, %b {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<15xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Creation ops
//===----------------------------------------------------------------------===//

func.func @full_dynamic_shape() {
  // expected-error @+1 {{'fx.full' op expects a static result shape, got 'tensor<?x3xf32>'}}
  %0 = fx.full {fill_value = 1.0 : f64} : tensor<?x3xf32>
  return
}

// -----

func.func @zeros_dynamic_shape() {
  // expected-error @+1 {{'fx.zeros' op expects a static result shape}}
  %0 = fx.zeros : tensor<?xi64>
  return
}

// -----

func.func @ones_dynamic_shape() {
  // expected-error @+1 {{'fx.ones' op expects a static result shape}}
  %0 = fx.ones : tensor<2x?xf16>
  return
}

// -----

func.func @full_fractional_value_in_integer_tensor() {
  // expected-error @+1 {{'fx.full' op fill value 5.000000e-01 is not representable in 'i64'}}
  %0 = fx.full {fill_value = 0.5 : f64} : tensor<2xi64>
  return
}

// -----

func.func @full_non_bool_value_in_bool_tensor() {
  // expected-error @+1 {{'fx.full' op fill value 2.000000e+00 is not representable in 'i1'}}
  %0 = fx.full {fill_value = 2.0 : f64} : tensor<2xi1>
  return
}

// -----

func.func @full_value_overflows_i32() {
  // expected-error @+1 {{is not representable in 'i32'}}
  %0 = fx.full {fill_value = 2147483648.0 : f64} : tensor<2xi32>
  return
}

// -----

func.func @arange_zero_step() {
  // expected-error @+1 {{'fx.arange' op expects a non-zero step}}
  %0 = fx.arange {end = 4.0 : f64, step = 0.0 : f64} : tensor<4xi64>
  return
}

// -----

func.func @arange_step_points_away_from_end() {
  // expected-error @+1 {{'fx.arange' op expects step -1.000000e+00 to point from start 0.000000e+00 towards end 4.000000e+00}}
  %0 = fx.arange {end = 4.0 : f64, step = -1.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @arange_2d_result() {
  // expected-error @+1 {{'fx.arange' op expects a 1-D result, got rank 2}}
  %0 = fx.arange {end = 4.0 : f64} : tensor<2x2xi64>
  return
}

// -----

func.func @arange_wrong_element_count() {
  // expected-error @+1 {{'fx.arange' op expects a result of 4 elements for start 0.000000e+00, end 1.000000e+01, step 3.000000e+00, got 'tensor<3xi64>'}}
  %0 = fx.arange {start = 0.0 : f64, end = 10.0 : f64, step = 3.0 : f64} : tensor<3xi64>
  return
}

// -----

func.func @arange_dynamic_result() {
  // expected-error @+1 {{'fx.arange' op expects a result of 4 elements}}
  %0 = fx.arange {end = 4.0 : f64} : tensor<?xf32>
  return
}

// -----

func.func @convert_element_type_shape_change(%x: tensor<4xf32>) {
  // expected-error @+1 {{'fx.convert_element_type' op expects the result shape [5] to match the input shape [4]}}
  %0 = fx.convert_element_type %x : (tensor<4xf32>) -> tensor<5xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

func.func @hardtanh_min_above_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'fx.hardtanh' op requires min_val <= max_val, got 2.000000e+00 > 1.000000e+00}}
  %0 = fx.hardtanh %x {min_val = 2.0 : f64, max_val = 1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @add_fractional_alpha_integer_result(%a: tensor<4xi64>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'fx.add' op requires an integral alpha for integer and bool results, got 5.000000e-01}}
  %0 = fx.add %a, %b {alpha = 0.5 : f64} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @add_fractional_alpha_bool_result(%a: tensor<4xi1>, %b: tensor<4xi1>) {
  // expected-error @+1 {{'fx.add' op requires an integral alpha for integer and bool results, got 5.000000e-01}}
  %0 = fx.add %a, %b {alpha = 0.5 : f64} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @sub_fractional_alpha_integer_result(%a: tensor<4xi32>, %b: tensor<i64>) {
  // expected-error @+1 {{'fx.sub' op requires an integral alpha for integer and bool results, got 1.500000e+00}}
  %0 = fx.sub %a, %b {alpha = 1.5 : f64} : (tensor<4xi32>, tensor<i64>) -> tensor<4xi32>
  return
}

// -----

func.func @sub_bool_operands(%a: tensor<4xi1>, %b: tensor<4xi1>) {
  // expected-error @+1 {{'fx.sub' op does not support bool operands, as in ATen}}
  %0 = fx.sub %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @sub_one_bool_operand(%a: tensor<4xf32>, %b: tensor<4xi1>) {
  // expected-error @+1 {{'fx.sub' op does not support bool operands, as in ATen}}
  %0 = fx.sub %a, %b : (tensor<4xf32>, tensor<4xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @clamp_without_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{'fx.clamp' op requires at least one of min and max}}
  %0 = fx.clamp %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @clamp_fractional_bound_integer_tensor(%x: tensor<4xi64>) {
  // expected-error @+1 {{'fx.clamp' op requires integral bounds for integer tensors}}
  %0 = fx.clamp %x {min = 0.0 : f64, max = 2.5 : f64} : (tensor<4xi64>) -> tensor<4xi64>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

func.func @mm_self_not_matrix(%a: tensor<8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+2 {{'fx.mm' op expects self to have rank 2, got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.mm %a, %b : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @mm_mat2_not_matrix(%a: tensor<4x8xf32>, %b: tensor<2x8x16xf32>) {
  // expected-error @+2 {{'fx.mm' op expects mat2 to have rank 2, got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.mm %a, %b : (tensor<4x8xf32>, tensor<2x8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @mm_dtype_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x16xf16>) {
  // expected-error @+2 {{'fx.mm' op expects self and mat2 to have the same dtype, got 'f32' and 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.mm %a, %b : (tensor<4x8xf32>, tensor<8x16xf16>) -> tensor<4x16xf32>
  return
}

// -----

func.func @mm_contraction_mismatch(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>) {
  // expected-error @+2 {{'fx.mm' op contraction size mismatch: self dimension 1 is 8 but mat2 dimension 0 is 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.mm %a, %b : (tensor<4x8xf32>, tensor<7x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @bmm_batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x16xf32>) {
  // expected-error @+2 {{'fx.bmm' op batch size mismatch: 2 vs 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.bmm %a, %b : (tensor<2x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

func.func @addmm_self_dtype_mismatch(%s: tensor<16xf16>, %a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+2 {{'fx.addmm' op expects self to have the dtype of mat1, got 'f16' and 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.addmm %s, %a, %b : (tensor<16xf16>, tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @addmm_self_rank_3(%s: tensor<1x4x16xf32>, %a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+2 {{'fx.addmm' op expects self to have rank at most 2, got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.addmm %s, %a, %b : (tensor<1x4x16xf32>, tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @addmm_self_not_broadcastable(%s: tensor<15xf32>, %a: tensor<4x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+2 {{'fx.addmm' op operand shapes [15] and [4, 16] are not broadcast-compatible}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.addmm %s, %a, %b : (tensor<15xf32>, tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @linear_rank0_input(%x: tensor<f32>, %w: tensor<16x8xf32>) {
  // expected-error @+2 {{'fx.linear' op expects input to have rank at least 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.linear %x, %w : (tensor<f32>, tensor<16x8xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @linear_bias_wrong_shape(%x: tensor<2x8xf32>, %w: tensor<16x8xf32>, %b: tensor<15xf32>) {
  // expected-error @+2 {{'fx.linear' op expects bias of shape [16], got 'tensor<15xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.linear %x, %w, %b : (tensor<2x8xf32>, tensor<16x8xf32>, tensor<15xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_bias_dtype_mismatch(%x: tensor<2x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf16>) {
  // expected-error @+2 {{'fx.linear' op expects bias to have the dtype of input, got 'f16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.linear %x, %w, %b : (tensor<2x8xf32>, tensor<16x8xf32>, tensor<16xf16>) -> tensor<2x16xf32>
  return
}

// -----

func.func @linear_weight_rank_1(%x: tensor<2x8xf32>, %w: tensor<8xf32>) {
  // expected-error @+2 {{'fx.linear' op expects weight to have rank 2, got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.linear %x, %w : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @linear_contraction_mismatch(%x: tensor<2x5x8xf32>, %w: tensor<16x7xf32>) {
  // expected-error @+2 {{'fx.linear' op contraction size mismatch: input dimension 2 is 8 but weight dimension 1 is 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.linear %x, %w : (tensor<2x5x8xf32>, tensor<16x7xf32>) -> tensor<2x5x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

func.func @convolution_input_rank_2(%x: tensor<3x8xf32>, %w: tensor<16x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects input of rank 3, 4 or 5 ([N, C, *spatial]), got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64>, padding = array<i64>, dilation = array<i64>, output_padding = array<i64>} : (tensor<3x8xf32>, tensor<16x3xf32>) -> tensor<3x16xf32>
  return
}

// -----

func.func @convolution_weight_rank_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects weight of rank 4, got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<16x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @convolution_dtype_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xbf16>) {
  // expected-error @+2 {{'fx.convolution' op expects input and weight to have the same dtype, got 'f32' and 'bf16'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xbf16>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @convolution_zero_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects groups to be at least 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 0 : i64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @convolution_out_channels_not_divisible_by_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<15x2x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects weight dimension 0 (15) to be divisible by groups (2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<15x2x3x3xf32>) -> tensor<1x15x6x6xf32>
  return
}

// -----

func.func @convolution_groups_not_dividing_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects 4 input channels to match weight dimension 1 times groups (6)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @convolution_transposed_channel_mismatch(%x: tensor<1x4x8x8xf32>, %w: tensor<3x16x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects 4 input channels to match weight dimension 0 (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, transposed = true} : (tensor<1x4x8x8xf32>, tensor<3x16x3x3xf32>) -> tensor<1x16x10x10xf32>
  return
}

// -----

func.func @convolution_output_padding_too_large(%x: tensor<1x4x8x8xf32>, %w: tensor<4x16x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op expects output_padding (2) to be smaller than stride or dilation in spatial dimension 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 1, 2>, transposed = true} : (tensor<1x4x8x8xf32>, tensor<4x16x3x3xf32>) -> tensor<1x16x18x19xf32>
  return
}

// -----

func.func @convolution_kernel_larger_than_input(%x: tensor<1x3x2x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op computed output size is less than 1 in spatial dimension 0 (input 2, kernel 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>} : (tensor<1x3x2x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x0x6xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

func.func @max_pool2d_input_rank_2(%x: tensor<8x8xf32>) {
  // expected-error @+2 {{'fx.max_pool2d' op expects input of rank 3 or 4 ([C, H, W] or [N, C, H, W]), got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @max_pool2d_padding_over_half_kernel(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'fx.max_pool2d' op expects padding (2) to be at most half of the effective kernel size (3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x10x10xf32>
  return
}

// -----

func.func @max_pool2d_kernel_larger_than_input(%x: tensor<1x1x8x2xf32>) {
  // expected-error @+2 {{'fx.max_pool2d' op computed output size is less than 1 in spatial dimension 1 (input 2, kernel 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.max_pool2d %x {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x8x2xf32>) -> tensor<1x1x6x0xf32>
  return
}

// -----

func.func @max_pool2d_zero_stride(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'fx.max_pool2d' op expects stride entries to be at least 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.max_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 0, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @avg_pool2d_zero_divisor_override(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'fx.avg_pool2d' op expects a non-zero divisor_override}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.avg_pool2d %x {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>, divisor_override = 0 : i64} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return
}

// -----

func.func @adaptive_avg_pool2d_input_rank_5(%x: tensor<1x1x1x8x8xf32>) {
  // expected-error @+2 {{'fx.adaptive_avg_pool2d' op expects input of rank 3 or 4 ([C, H, W] or [N, C, H, W]), got rank 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>} : (tensor<1x1x1x8x8xf32>) -> tensor<1x1x1x1x1xf32>
  return
}

// -----

func.func @adaptive_avg_pool2d_output_size_wrong_length(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+2 {{'fx.adaptive_avg_pool2d' op expects output_size to have 2 entries, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.adaptive_avg_pool2d %x {output_size = array<i64: 1>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x1x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

func.func @batch_norm_input_rank_1(%x: tensor<16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>) {
  // expected-error @+2 {{'fx.batch_norm' op expects input of rank at least 2 ([N, C, ...]), got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.batch_norm %x, %m, %v : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// -----

func.func @batch_norm_negative_eps(%x: tensor<2x16xf32>, %m: tensor<16xf32>, %v: tensor<16xf32>) {
  // expected-error @+2 {{'fx.batch_norm' op expects a non-negative eps, got -1.000000e-05}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.batch_norm %x, %m, %v {eps = -1.0e-05 : f64} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return
}

// -----

func.func @batch_norm_running_var_wrong_shape(%x: tensor<2x16x4x4xf32>, %m: tensor<16xf32>, %v: tensor<8xf32>) {
  // expected-error @+2 {{'fx.batch_norm' op expects running_var of shape [16], got [8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.batch_norm %x, %m, %v : (tensor<2x16x4x4xf32>, tensor<16xf32>, tensor<8xf32>) -> tensor<2x16x4x4xf32>
  return
}

// -----

func.func @layer_norm_empty_normalized_shape(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'fx.layer_norm' op expects a non-empty normalized_shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.layer_norm %x {normalized_shape = array<i64>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_trailing_dims_mismatch(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'fx.layer_norm' op expects the trailing dimensions of input [2, 8] to be normalized_shape [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.layer_norm %x {normalized_shape = array<i64: 4>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_normalized_shape_longer_than_input(%x: tensor<8xf32>) {
  // expected-error @+2 {{'fx.layer_norm' op expects the trailing dimensions of input [8] to be normalized_shape [2, 8]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.layer_norm %x {normalized_shape = array<i64: 2, 8>} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @layer_norm_weight_wrong_shape(%x: tensor<2x8xf32>, %w: tensor<4xf32>) {
  // expected-error @+2 {{'fx.layer_norm' op expects weight of shape [8], got [4]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.layer_norm %x weight(%w) {normalized_shape = array<i64: 8>} : (tensor<2x8xf32>, tensor<4xf32>) -> tensor<2x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Embedding and attention
//===----------------------------------------------------------------------===//

func.func @embedding_weight_rank_1(%w: tensor<10xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'fx.embedding' op expects weight of rank 2 ([num_embeddings, embedding_dim]), got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.embedding %w, %i : (tensor<10xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @embedding_padding_idx_out_of_range(%w: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'fx.embedding' op padding_idx 10 is out of range for 10 embeddings}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.embedding %w, %i {padding_idx = 10 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return
}

// -----

func.func @sdpa_query_rank_1(%q: tensor<8xf32>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects query of rank at least 2 ([..., L, E]), got rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %q, %q : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @sdpa_rank_mismatch(%q: tensor<2x4x8xf32>, %k: tensor<4x8xf32>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects query, key and value to have the same rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %k, %k : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @sdpa_dtype_mismatch(%q: tensor<4x8xf32>, %k: tensor<4x8xf16>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects query, key and value to have the same dtype}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %k, %k : (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @sdpa_batch_mismatch(%q: tensor<2x4x16x8xf32>, %k: tensor<2x3x16x8xf32>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects query, key and value to have the same batch dimensions, dimension 1 differs}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %k, %k : (tensor<2x4x16x8xf32>, tensor<2x3x16x8xf32>, tensor<2x3x16x8xf32>) -> tensor<2x4x16x8xf32>
  return
}

// -----

func.func @sdpa_embedding_size_mismatch(%q: tensor<16x8xf32>, %k: tensor<16x4xf32>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects query and key to have the same embedding size, got 8 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %k, %k : (tensor<16x8xf32>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
  return
}

// -----

func.func @sdpa_sequence_length_mismatch(%q: tensor<16x8xf32>, %k: tensor<12x8xf32>, %v: tensor<10x8xf32>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects key and value to have the same sequence length, got 12 and 10}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %k, %v : (tensor<16x8xf32>, tensor<12x8xf32>, tensor<10x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @sdpa_nonzero_dropout(%q: tensor<16x8xf32>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op supports only dropout_p = 0 (inference)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %q, %q {dropout_p = 0.1 : f64} : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

func.func @sdpa_mask_and_causal(%q: tensor<16x8xf32>, %m: tensor<16x16xi1>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects either attn_mask or is_causal, not both}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %q, %q mask(%m) {is_causal = true} : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xi1>) -> tensor<16x8xf32>
  return
}

// -----

func.func @sdpa_mask_dtype_mismatch(%q: tensor<16x8xf32>, %m: tensor<16x16xi64>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects attn_mask of dtype i1 or the query dtype, got 'i64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %q, %q mask(%m) : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xi64>) -> tensor<16x8xf32>
  return
}

// -----

func.func @sdpa_mask_not_broadcastable(%q: tensor<2x16x8xf32>, %k: tensor<2x12x8xf32>, %m: tensor<16x16xi1>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects attn_mask [16, 16] to broadcast to the attention scores [2, 16, 12]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %k, %k mask(%m) : (tensor<2x16x8xf32>, tensor<2x12x8xf32>, tensor<2x12x8xf32>, tensor<16x16xi1>) -> tensor<2x16x8xf32>
  return
}

// -----

func.func @sdpa_mask_rank_above_scores(%q: tensor<16x8xf32>, %m: tensor<1x16x16xf32>) {
  // expected-error @+2 {{'fx.scaled_dot_product_attention' op expects attn_mask [1, 16, 16] to broadcast to the attention scores [16, 16]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.scaled_dot_product_attention %q, %q, %q mask(%m) : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<1x16x16xf32>) -> tensor<16x8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

func.func @sum_repeated_dim(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'fx.sum' op expects dim 0 to appear at most once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.sum %x {dim = array<i64: 0, -2>} : (tensor<4x8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @mean_integer_input_without_dtype(%x: tensor<4xi64>) {
  // expected-error @+2 {{'fx.mean' op expects a floating-point input or dtype, got 'i64'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.mean %x : (tensor<4xi64>) -> tensor<i64>
  return
}

// -----

func.func @amax_dim_out_of_range(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'fx.amax' op dim -3 is out of range (expected [-2, 1])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.amax %x {dim = array<i64: -3>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

func.func @view_two_inferred_sizes(%x: tensor<4x2xf32>) {
  // expected-error @+2 {{'fx.view' op expects at most one -1 in size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.view %x {size = array<i64: -1, -1>} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @view_size_below_minus_one(%x: tensor<4x2xf32>) {
  // expected-error @+2 {{'fx.view' op expects size entries to be at least -1, got -2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.view %x {size = array<i64: -2, 4>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @view_inferred_size_not_integral(%x: tensor<4x2xf32>) {
  // expected-error @+2 {{'fx.view' op shape [-1, 3] is invalid for input of size 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.view %x {size = array<i64: -1, 3>} : (tensor<4x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @view_element_count_mismatch(%x: tensor<4x2xf32>) {
  // expected-error @+2 {{'fx.view' op shape [3, 3] is invalid for input of size 8}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.view %x {size = array<i64: 3, 3>} : (tensor<4x2xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @t_rank_3(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'fx.t' op expects a tensor of rank at most 2, got rank 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.t %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return
}

// -----

func.func @transpose_dim1_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'fx.transpose' op dim1 2 is out of range (expected [-2, 1])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.transpose %x {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @permute_wrong_length(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'fx.permute' op expects dims to have 3 entries, got 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.permute %x {dims = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @permute_repeated_dim(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'fx.permute' op expects dims to be a permutation, but 2 appears twice}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.permute %x {dims = array<i64: 2, 0, -1>} : (tensor<2x3x4xf32>) -> tensor<4x2x4xf32>
  return
}

// -----

func.func @expand_too_few_sizes(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{'fx.expand' op expects size to have at least 2 entries, got 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.expand %x {size = array<i64: 4>} : (tensor<3x1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @expand_size_below_minus_one(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{'fx.expand' op expects size entries to be at least -1, got -2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.expand %x {size = array<i64: 3, -2>} : (tensor<3x1xf32>) -> tensor<3x1xf32>
  return
}

// -----

func.func @expand_inferred_new_leading_dim(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{'fx.expand' op expects an explicit size for new leading dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.expand %x {size = array<i64: -1, 3, 4>} : (tensor<3x1xf32>) -> tensor<1x3x4xf32>
  return
}

// -----

func.func @expand_non_singleton_dim(%x: tensor<3x1xf32>) {
  // expected-error @+2 {{'fx.expand' op cannot expand dimension 0 of size 3 to 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.expand %x {size = array<i64: 4, 4>} : (tensor<3x1xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @squeeze_dynamic_dim(%x: tensor<?x1xf32>) {
  // expected-error @+2 {{'fx.squeeze' op expects dimension 0 to be static: whether it is squeezed decides the result rank}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.squeeze %x : (tensor<?x1xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @unsqueeze_dim_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'fx.unsqueeze' op dim 3 is out of range}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.unsqueeze %x {dim = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

func.func @flatten_start_after_end(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'fx.flatten' op expects start_dim (2) <= end_dim (1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.flatten %x {start_dim = -1 : i64, end_dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @slice_rank_0(%x: tensor<f32>) {
  // expected-error @+2 {{'fx.slice' op expects a tensor of rank at least 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.slice %x : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<10xf32>) {
  // expected-error @+2 {{'fx.slice' op expects a positive step, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.slice %x {step = 0 : i64} : (tensor<10xf32>) -> tensor<10xf32>
  return
}

// -----

func.func @select_index_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+2 {{'fx.select' op index -5 is out of range for dimension 0 of size 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.select %x {dim = 0 : i64, index = -5 : i64} : (tensor<4x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @cat_no_tensors() {
  // expected-error @+2 {{'fx.cat' op expects at least one tensor}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.cat : () -> tensor<1xf32>
  return
}

// -----

func.func @cat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'fx.cat' op expects all tensors to have rank 2, but tensor 1 has rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.cat %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @cat_non_cat_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) {
  // expected-error @+2 {{'fx.cat' op expects tensor 1 to match dimension 1 of the others (3), got 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.cat %a, %b {dim = 0 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @cat_dim_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'fx.cat' op dim -3 is out of range (expected [-2, 1])}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.cat %a, %a {dim = -3 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @stack_no_tensors() {
  // expected-error @+2 {{'fx.stack' op expects at least one tensor}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.stack : () -> tensor<0xf32>
  return
}

// -----

func.func @stack_shape_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+2 {{'fx.stack' op expects all tensors to have the same shape, but tensor 1 has shape [3, 2] and tensor 0 [2, 3]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.stack %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @split_no_sizes(%x: tensor<4xf32>) {
  // expected-error @+2 {{'fx.split' op expects at least one split size}}
  // expected-error @+1 {{failed to infer returned types}}
  fx.split %x {split_sizes = array<i64>} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @split_negative_size(%x: tensor<4xf32>) {
  // expected-error @+2 {{'fx.split' op expects split_sizes entries to be at least 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = fx.split %x {split_sizes = array<i64: 5, -1>} : (tensor<4xf32>) -> (tensor<5xf32>, tensor<0xf32>)
  return
}

// -----

func.func @split_sizes_wrong_sum(%x: tensor<2x10xf32>) {
  // expected-error @+2 {{'fx.split' op expects split_sizes to add up to 10 (the size of dimension 1), got 9}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = fx.split %x {split_sizes = array<i64: 4, 5>, dim = -1 : i64} : (tensor<2x10xf32>) -> (tensor<2x4xf32>, tensor<2x5xf32>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Arithmetic on attribute values must not overflow int64, and integer
// ranges follow ATen's int64 arithmetic.
//===----------------------------------------------------------------------===//

func.func @conv_bias_dtype_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf16>) {
  // expected-error @+2 {{'fx.convolution' op expects bias to have the dtype of input, got 'f16' and 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w, %b {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf16>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @conv_transposed_output_overflows(%x: tensor<1x3x8x8xf32>, %w: tensor<3x4x3x3xf32>) {
  // expected-error @+2 {{'fx.convolution' op computed output size overflows int64 in spatial dimension 0 (input 8, kernel 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.convolution %x, %w {dilation = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, padding = array<i64: 0, 0>, stride = array<i64: 4611686018427387904, 1>, transposed = true} : (tensor<1x3x8x8xf32>, tensor<3x4x3x3xf32>) -> tensor<1x4x?x10xf32>
  return
}

// -----

func.func @max_pool_huge_dilated_kernel(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'fx.max_pool2d' op computed output size is less than 1 in spatial dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.max_pool2d %x {dilation = array<i64: 2, 1>, kernel_size = array<i64: 9223372036854775807, 1>, padding = array<i64: 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x8xf32>
  return
}

// -----

func.func @view_size_product_overflows(%x: tensor<0xf32>) {
  // expected-error @+2 {{'fx.view' op size [4294967296, 4294967296, 4] has more elements than int64 can count}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.view %x {size = array<i64: 4294967296, 4294967296, 4>} : (tensor<0xf32>) -> tensor<4294967296x4294967296x4xf32>
  return
}

// -----

func.func @split_sizes_overflow(%x: tensor<?x4xf32>) {
  // expected-error @+2 {{'fx.split' op split_sizes add up to more than int64 can hold}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = fx.split %x {split_sizes = array<i64: 9223372036854775807, 1>} : (tensor<?x4xf32>) -> (tensor<9223372036854775807x4xf32>, tensor<1x4xf32>)
  return
}

// -----

func.func @sum_repeated_dim_of_scalar(%x: tensor<f32>) {
  // expected-error @+2 {{'fx.sum' op expects dim 0 to appear at most once}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.sum %x {dim = array<i64: 0, -1>} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @layer_norm_negative_normalized_shape(%x: tensor<?xf32>) {
  // expected-error @+2 {{'fx.layer_norm' op expects normalized_shape entries to be at least 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.layer_norm %x {normalized_shape = array<i64: -1>} : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @layer_norm_nan_eps(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'fx.layer_norm' op expects a non-negative eps, got nan}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = fx.layer_norm %x {eps = 0x7FF8000000000000 : f64, normalized_shape = array<i64: 8>} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @arange_infinite_end() {
  // expected-error @+1 {{'fx.arange' op expects finite start, end and step of magnitude below 2^62}}
  %0 = fx.arange {end = 0x7FF0000000000000 : f64} : tensor<4xf32>
  return
}

// -----

func.func @arange_integer_step_truncates_to_zero() {
  // expected-error @+1 {{'fx.arange' op expects a non-zero step after truncation to an integer, got 5.000000e-01}}
  %0 = fx.arange {end = 2.0 : f64, step = 0.5 : f64} : tensor<4xi64>
  return
}

// -----

func.func @arange_integer_step_points_away(%x: tensor<4xf32>) {
  // expected-error @+1 {{'fx.arange' op expects step -1 to point from start 0 towards end 4}}
  %0 = fx.arange {end = 4.0 : f64, step = -1.0 : f64} : tensor<4xi64>
  return
}

// -----

func.func @arange_integer_truncates_bounds() {
  // arange(0, 2.5, dtype=int64) has 2 elements.
  // expected-error @+1 {{'fx.arange' op expects a result of 2 elements for start 0.000000e+00, end 2.500000e+00, step 1.000000e+00, got 'tensor<3xi64>'}}
  %0 = fx.arange {end = 2.5 : f64} : tensor<3xi64>
  return
}
