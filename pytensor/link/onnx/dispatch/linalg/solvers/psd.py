"""Converter of ``cho_solve``: solves with a Cholesky factor."""

from pytensor.link.onnx.dispatch.linalg.ops import CholeskySolve
from pytensor.link.onnx.dispatch.linalg.shared import (
    as_given,
    linear_system,
    register_stacked,
    static_order,
)
from pytensor.link.onnx.numerics.linalg.solvers.cholesky import cholesky_solve
from pytensor.link.onnx.numerics.linalg.stacks import mT


@register_stacked(CholeskySolve)
def cholesky_solve_stacked(op, node, c, b):
    c, b = linear_system(op, node, c, b, "The factored matrix c is not square.")
    x = cholesky_solve(c if op.lower else mT(c), b, static_order(node.inputs[0]))
    return [as_given(x, op.b_ndim)]
