"""Comparing compiled outputs with a reference (eager PyTorch), the one way
every check, benchmark and sweep of this project does it.

    from fx_mlir.testing import compare
    result = compare(actual_arrays, expected_arrays, tol=1e-4)
    if not result.ok: print(result.message)

The relative L2 error is computed over the finite reference elements; a
non-finite reference element (inf, -inf, NaN) must be matched exactly. A
reference that is constant (every element of every output the same value,
e.g. all zeros from a zero-initialized classifier head) proves nothing: any
code that ignores its inputs matches it, so it is refused, never passed.
NumPy only: works in any Python 3 with NumPy.
"""

from dataclasses import dataclass

import numpy as np


@dataclass
class Comparison:
    ok: bool
    rel_l2: float
    message: str


def _as_arrays(values):
    if not isinstance(values, (list, tuple)):
        values = [values]
    arrays = []
    for v in values:
        if hasattr(v, "detach"):  # a torch tensor: no torch import needed
            v = v.detach().cpu().double().numpy()
        arrays.append(np.asarray(v, dtype=np.float64))
    return arrays


def constant_reference(expected):
    """True if every element of every array in `expected` has one value."""
    arrays = [a.ravel() for a in _as_arrays(expected) if a.size]
    if not arrays:
        return True
    first = arrays[0][0]
    return all(np.array_equal(a, np.full_like(a, first), equal_nan=True) for a in arrays)


def _rel_l2_of_finite(actual, expected):
    """Relative L2 error over the reference's finite elements, for arrays of
    matching shapes whose non-finite elements compare() has matched."""
    num = den = 0.0
    for a, e in zip(actual, expected):
        finite = np.isfinite(e)
        d = a[finite] - e[finite]
        num += float(np.sum(d * d))
        den += float(np.sum(e[finite] * e[finite]))
    if den == 0:
        return 0.0 if num == 0 else float("inf")
    return float(np.sqrt(num / den))


def compare(actual, expected, tol=1e-4):
    """Checks `actual` against `expected`: the same number of outputs and
    shapes, non-finite reference elements matched exactly, relative L2 error
    at most `tol`, and a reference that is not constant."""
    actual, expected = _as_arrays(actual), _as_arrays(expected)
    if len(actual) != len(expected):
        return Comparison(False, float("nan"),
                          f"{len(actual)} outputs, the reference has {len(expected)}")
    for i, (a, e) in enumerate(zip(actual, expected)):
        if a.shape != e.shape:
            return Comparison(False, float("nan"),
                              f"output {i} has shape {a.shape}, the reference {e.shape}")
    if constant_reference(expected):
        return Comparison(False, float("nan"),
                          "the reference outputs are constant (every element the same value); "
                          "the comparison would prove nothing")
    for i, (a, e) in enumerate(zip(actual, expected)):
        finite = np.isfinite(e)
        if not np.array_equal(a[~finite], e[~finite], equal_nan=True):
            return Comparison(False, float("inf"),
                              f"output {i}: the reference's non-finite elements (inf/nan) "
                              "are not matched")
    err = _rel_l2_of_finite(actual, expected)
    ok = bool(np.isfinite(err) and err <= tol)
    return Comparison(ok, err, f"rel_l2={err:.3g} (tol {tol:g})")
