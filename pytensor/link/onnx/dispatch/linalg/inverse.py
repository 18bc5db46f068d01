"""Converters of the inverses and pseudo-inverses, by LU with partial
pivoting and by the Jacobi SVD (`pytensor.link.onnx.numerics.linalg.inverse`)."""

import numpy as np

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.linalg.ops import MatrixInverse, MatrixPinv, TensorInv
from pytensor.link.onnx.dispatch.linalg.shared import (
    float_inputs,
    is_wide,
    output_dtype,
    register_stacked,
    square_input,
    square_matrix,
    static_order,
)
from pytensor.link.onnx.numerics.linalg.inverse import (
    hermitian_pseudo_inverse,
    inverse,
    pseudo_inverse,
)
from pytensor.link.onnx.value import Value, concat


def checked_inverse(a: Value, size: int | None = None) -> Value:
    """The inverse of the square stack ``a`` (of ``size`` rows if static);
    raises ``LinAlgError`` if singular."""
    a_inverse, singular = inverse(a, size)
    a.builder.require(~singular, np.linalg.LinAlgError, "Singular matrix")
    return a_inverse


@register_stacked(MatrixInverse)
def matrix_inverse_stacked(op, node, a):
    a = square_input(node, a, output_dtype(node))
    return [checked_inverse(a, static_order(node.inputs[0]))]


@register_stacked(MatrixPinv)
def matrix_pinv_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    if op.hermitian:
        return [hermitian_pseudo_inverse(a)]
    return [pseudo_inverse(a, is_wide(node.inputs[0]))]


@onnx_funcify.register(TensorInv)
def onnx_funcify_TensorInv(op, node, builder, inputs, **kwargs):
    [a] = float_inputs(builder, node, inputs)
    matrix, leading, trailing = square_matrix(a, op.ind, node.inputs[0].type.ndim)
    result = checked_inverse(matrix)
    return [result.reshape(concat([trailing, leading], axis=0)).name]
