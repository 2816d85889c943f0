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
