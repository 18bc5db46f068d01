"""Converter of the Cholesky decomposition."""

from pytensor.link.onnx.dispatch.linalg.ops import Cholesky
from pytensor.link.onnx.dispatch.linalg.shared import (
    check_square,
    output_dtype,
    register_stacked,
    static_order,
)
from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import (
    cholesky_of_triangle,
)


@register_stacked(Cholesky)
def cholesky_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    a = check_square(a, node.inputs[0], "Input array is expected to be square")
    return [cholesky_of_triangle(a, op.lower, static_order(node.inputs[0]))]
