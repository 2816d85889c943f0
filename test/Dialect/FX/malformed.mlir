// Malformed input gives a located error and a non-zero exit, never a crash.
// RUN: fx-opt %s -split-input-file -verify-diagnostics
// RUN: not fx-opt %s -split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT

// EXIT: malformed.mlir:[[#@LINE+3]]:18: error: expected ':'
func.func @missing_colon(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = fx.relu %x (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'fx.frobnicate' is unknown}}
  %0 = fx.frobnicate %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown_generic_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{unregistered operation 'fx.frobnicate' found in dialect ('fx')}}
  %0 = "fx.frobnicate"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @too_few_types(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{number of operands and types do not match: got 2 operands and 1 types}}
  %0 = fx.add %x, %y : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @type_of_wrong_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected '<' in memref type}}
  %0 = fx.relu %x : (tensor<4xf32>) -> memref
  return
}

// -----

func.func @operand_type_mismatch(%x: tensor<4xf32>) {
  // expected-error @+2 {{use of value '%x' expects different type than prior uses: 'tensor<4xf16>' vs 'tensor<4xf32>'}}
  // expected-note @-2 {{prior use here}}
  %0 = fx.relu %x : (tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @undefined_value() {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = fx.relu %nope : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown_enum_case(%x: tensor<4xf32>) {
  // expected-error @+2 {{expected ::mlir::fx::GeluApproximate to be one of: none, tanh}}
  // expected-error @+1 {{failed to parse FX_GeluApproximateAttr parameter 'value'}}
  %0 = fx.gelu %x {approximate = #fx.gelu_approximate<fast>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @attribute_of_wrong_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{attribute 'alpha' failed to satisfy constraint: 64-bit float attribute}}
  %0 = fx.add %x, %x {alpha = "two"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @missing_required_attribute(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires attribute 'size'}}
  %0 = fx.view %x : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown_attribute_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown attribute `nonsense` in dialect `fx`}}
  %0 = fx.relu %x {a = #fx.nonsense} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unterminated(%x: tensor<4xf32>) {
  %0 = fx.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{expected '>' in tensor type}}
  return %0 : tensor<4xf32
}
