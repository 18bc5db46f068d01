"""Converter of ``solve_triangular``: forward and back substitution."""

from pytensor.link.onnx.dispatch.linalg.ops import SolveTriangular
from pytensor.link.onnx.dispatch.linalg.shared import (
    as_given,
    linear_system,
    register_stacked,
    static_order,
)
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.numerics.linalg.stacks import has_zero_on_diagonal, nan_where


@register_stacked(SolveTriangular)
def solve_triangular_stacked(op, node, a, b):
    a, b = linear_system(op, node, a, b, "expected square matrix")
    x = substitute(
        a,
        b,
        lower=op.lower,
        unit_diagonal=op.unit_diagonal,
        size=static_order(node.inputs[0]),
    )
    if not op.unit_diagonal:
        x = nan_where(has_zero_on_diagonal(a), x)
    return [as_given(x, op.b_ndim)]
