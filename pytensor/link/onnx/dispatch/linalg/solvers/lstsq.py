"""Converters of ``lstsq`` and ``tensorsolve``, Ops of arbitrary rank without
``Blockwise``."""

import numpy as np

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.linalg.ops import Lstsq, TensorSolve
from pytensor.link.onnx.dispatch.linalg.shared import (
    float_inputs,
    output_dtype,
    square_matrix,
)
from pytensor.link.onnx.numerics.linalg.solvers.general import solve
from pytensor.link.onnx.numerics.linalg.solvers.least_squares import least_squares


@onnx_funcify.register(TensorSolve)
def onnx_funcify_TensorSolve(op, node, builder, inputs, **kwargs):
    a, b = float_inputs(builder, node, inputs)
    a_var, b_var = node.inputs
    if a_var.type.ndim - b_var.type.ndim != node.outputs[0].type.ndim:
        raise NotImplementedError(
            "the Op declares a matrix output, but numpy.linalg.tensorsolve "
            f"returns {a_var.type.ndim - b_var.type.ndim} dimensions here"
        )
    ndim = a_var.type.ndim
    if op.axes is not None:
        moved = [axis % ndim for axis in op.axes]
        a = a.transpose([axis for axis in range(ndim) if axis not in moved] + moved)
    matrix, _, trailing = square_matrix(a, b_var.type.ndim, ndim)
    x, singular = solve(matrix, b.reshape(b.indices([1, -1, 1])))
    builder.require(~singular, np.linalg.LinAlgError, "Singular matrix")
    return [x.reshape(trailing).name]


@onnx_funcify.register(Lstsq)
def onnx_funcify_Lstsq(op, node, builder, inputs, **kwargs):
    if (ndim := node.inputs[0].type.ndim) != 2:
        return raising_on_every_call(
            builder,
            node,
            np.linalg.LinAlgError,
            f"{ndim}-dimensional array given. Array must be two-dimensional",
        )
    if node.inputs[1].type.ndim != 2:
        raise NotImplementedError(
            "the Op declares a matrix solution, so only a matrix of right-hand "
            "sides is supported"
        )
    a, b, rcond = (
        builder.value(name, var.type.dtype).cast("float64")
        for name, var in zip(inputs, node.inputs, strict=True)
    )
    x, squares, rank, singular_values = least_squares(
        a.unsqueeze([0]), b.unsqueeze([0]), rcond
    )
    return [
        x.squeeze([0]).name,
        squares.squeeze([0, 1]).name,
        rank.squeeze([0, 1, 2]).cast(output_dtype(node, 2)).name,
        singular_values.squeeze([0, 1]).name,
    ]


def raising_on_every_call(builder, node, exc_type, message) -> list[str]:
    """Outputs for a node whose ``perform`` raises ``exc_type(message)`` for
    any input its types allow: each call raises it, as in PyTensor. A model
    without runtime checks (an export) can't raise, so it is refused."""
    if not builder.keep_checks:
        raise NotImplementedError(f"{node.op} raises on every call: {message}")
    never = builder.value(builder.constant(False, "bool"), "bool")
    builder.require(never, exc_type, message, is_scalar=True)
    return [
        builder.constant(np.zeros((0,) * out.type.ndim, out.type.dtype), out.type.dtype)
        for out in node.outputs
    ]
