# fx_mlir.testing.compare: the comparison every check and benchmark uses.
# RUN: %python %s | FileCheck %s

import numpy as np

from fx_mlir.testing import compare, constant_reference

x = np.arange(6, dtype=np.float32).reshape(2, 3)

# CHECK: same True rel_l2=0
r = compare([x], [x])
print("same", r.ok, r.message)

# CHECK: off False rel_l2=0.33
r = compare([x + np.float32(1)], [x], tol=1e-4)
print("off", r.ok, r.message)

# A constant reference (a zero-initialized head) is refused, whatever the
# actual values.
# CHECK: zeros False the reference outputs are constant
r = compare([np.zeros((2, 3))], [np.zeros((2, 3))])
print("zeros", r.ok, r.message)
# CHECK: ones False the reference outputs are constant
r = compare([np.ones(4), np.ones((2, 2))], [np.ones(4), np.ones((2, 2))])
print("ones", r.ok, r.message)
# CHECK: constant-parts False
print("constant-parts", constant_reference([np.ones(4), np.zeros(2)]))

# Non-finite reference elements must match exactly.
e = np.array([1.0, -np.inf, np.inf, 2.0])
# CHECK: inf True rel_l2=0
r = compare([e.copy()], [e])
print("inf", r.ok, r.message)
# CHECK: nan-for-inf False output 0: the reference's non-finite elements
r = compare([np.array([1.0, np.nan, np.inf, 2.0])], [e])
print("nan-for-inf", r.ok, r.message)

# CHECK: shape False output 0 has shape (3,), the reference (4,)
r = compare([np.ones(3)], [e])
print("shape", r.ok, r.message)
# CHECK: count False 2 outputs, the reference has 1
r = compare([e, e], [e])
print("count", r.ok, r.message)
