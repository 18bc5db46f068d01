"""Converter of the matrix exponential, by scaling and squaring of Padé
approximants (`pytensor.link.onnx.numerics.linalg.expm`)."""

from pytensor.link.onnx.dispatch.linalg.ops import Expm
from pytensor.link.onnx.dispatch.linalg.shared import (
    check_square,
    float_output_dtype,
    register_stacked,
)
from pytensor.link.onnx.numerics.linalg.expm import expm


@register_stacked(Expm)
def expm_stacked(op, node, a):
    a = a.cast(float_output_dtype(node))
    a = check_square(a, node.inputs[0], "expected a square matrix")
    return [expm(a)]
