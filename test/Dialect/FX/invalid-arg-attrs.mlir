// RUN: fx-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'fx.param' on argument 0 must be a non-empty string naming a model parameter}}
func.func @param_not_a_string(%w: tensor<4xf32> {fx.param = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{'fx.param' on argument 1 must be a non-empty string naming a model parameter}}
func.func @param_empty(%x: tensor<4xf32>, %w: tensor<4xf32> {fx.param = ""}) {
  return
}

// -----

// expected-error @+1 {{unknown FX argument attribute 'fx.parameter'}}
func.func @unknown_arg_attr(%w: tensor<4xf32> {fx.parameter = "w"}) {
  return
}

// -----

// expected-error @+1 {{'fx.prepared' on argument 0 must be a non-negative integer}}
func.func @prepared_not_an_index(%w: tensor<4xf32> {fx.prepared = "w"}) {
  return
}

// -----

// expected-error @+1 {{'fx.argument' on argument 0 must be a non-negative integer}}
func.func @argument_negative(%w: tensor<4xf32> {fx.argument = -1 : i64}) {
  return
}
