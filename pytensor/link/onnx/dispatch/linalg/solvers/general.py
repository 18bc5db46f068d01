"""Converter of ``solve`` for every ``assume_a``: LU with partial pivoting,
Cholesky for positive definite matrices."""

from pytensor.link.onnx.dispatch.linalg.ops import Solve
from pytensor.link.onnx.dispatch.linalg.shared import (
    as_given,
    linear_system,
    register_stacked,
    static_order,
)
from pytensor.link.onnx.numerics.linalg.solvers.cholesky import (
    positive_definite_solve,
)
from pytensor.link.onnx.numerics.linalg.solvers.general import solve
from pytensor.link.onnx.numerics.linalg.stacks import (
    mT,
    nan_where,
    symmetric_from,
    tridiagonal_band,
)


@register_stacked(Solve)
def solve_stacked(op, node, a, b):
    a, b = linear_system(op, node, a, b, "Input a needs to be a square matrix.")
    size = static_order(node.inputs[0])
    if op.assume_a == "pos":
        x, failed = positive_definite_solve(a if op.lower else mT(a), b, size)
    else:
        if op.assume_a in ("sym", "her"):
            a = symmetric_from(a, op.lower)
        elif op.assume_a == "tridiagonal":
            a = tridiagonal_band(a)
        x, failed = solve(a, b, size)
    return [as_given(nan_where(failed, x), op.b_ndim)]
