"""Converters of the determinants, by LU with partial pivoting
(`pytensor.link.onnx.numerics.linalg.determinant`)."""

from pytensor.link.onnx.dispatch.linalg.ops import Det, SLogDet
from pytensor.link.onnx.dispatch.linalg.shared import (
    output_dtype,
    register_stacked,
    square_input,
    static_order,
)
from pytensor.link.onnx.numerics.linalg.determinant import (
    determinant,
    sign_and_log_determinant,
)


@register_stacked(Det)
def det_stacked(op, node, a):
    a = square_input(node, a, output_dtype(node))
    determinants = determinant(a, static_order(node.inputs[0]))
    return [determinants.squeeze([1, 2])]


@register_stacked(SLogDet)
def slogdet_stacked(op, node, a):
    a = square_input(node, a, output_dtype(node, 1))
    sign, log_abs = sign_and_log_determinant(a, static_order(node.inputs[0]))
    return [
        sign.squeeze([1, 2]).cast(output_dtype(node, 0)),
        log_abs.squeeze([1, 2]),
    ]
