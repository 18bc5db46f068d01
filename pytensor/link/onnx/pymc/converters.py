"""Converters of the Ops PyMC defines, registered in ``onnx_funcify``.

Imported by `pytensor.link.onnx.pymc.register_converters` once PyMC is.
"""

from pymc.distributions.dist_math import I0e, I1e, SplineWrapper
from pymc.distributions.multivariate import PosDefMatrix
from pymc.math import BatchedDiag, LogDet
from scipy.interpolate import PPoly, UnivariateSpline

import pytensor.link.onnx.pymc.random  # noqa: F401  (registers the samplers)
from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.numerics.bessel_i import scaled_i
from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import (
    is_positive_definite,
)
from pytensor.link.onnx.numerics.linalg.determinant import sign_and_log_determinant
from pytensor.link.onnx.numerics.linalg.stacks import diagonal_mask
from pytensor.link.onnx.numerics.piecewise_polynomial import piecewise_polynomial
from pytensor.link.onnx.value import where


def float64_input(builder, node, inputs):
    return builder.value(inputs[0], node.inputs[0].type.dtype).cast("float64")


@onnx_funcify.register(I0e)
@onnx_funcify.register(I1e)
def onnx_funcify_scaled_bessel_i(op, node, builder, inputs, **kwargs):
    x = float64_input(builder, node, inputs)
    order = 1 if isinstance(op, I1e) else 0
    return [scaled_i(x, order).cast(node.outputs[0].type.dtype).name]


@onnx_funcify.register(PosDefMatrix)
def onnx_funcify_PosDefMatrix(op, node, builder, inputs, **kwargs):
    a = builder.value(inputs[0], node.inputs[0].type.dtype).cast("float64")
    # SciPy's cholesky reads the upper triangle, and refuses NaN and infinity
    builder.require(
        ~(a.isnan() | a.isinf()), ValueError, "array must not contain infs or NaNs"
    )
    size = node.inputs[0].type.shape[0]
    holds = is_positive_definite(a.matrix_transpose().unsqueeze([0]), size)
    return [holds.reshape(holds.indices([])).name]


# What a UnivariateSpline gives outside its base interval, by its ``ext``
EXTRAPOLATE, ZEROS, RAISE, CONSTANT = range(4)


@onnx_funcify.register(SplineWrapper)
def onnx_funcify_SplineWrapper(op, node, builder, inputs, **kwargs):
    spline = op.spline
    if not isinstance(spline, UnivariateSpline):
        raise NotImplementedError(
            "the ONNX backend converts SplineWrapper for SciPy's UnivariateSpline "
            f"(and its subclasses) only, not {type(spline).__name__}"
        )
    ppoly = PPoly.from_spline(spline._eval_args)
    x = float64_input(builder, node, inputs)
    low, high = spline.get_knots()[[0, -1]]
    if spline.ext == CONSTANT:
        x = where(x < low, low, where(x > high, high, x))
    y = piecewise_polynomial(x, ppoly.x, ppoly.c)
    outside = (x < low) | (x > high)
    if spline.ext == ZEROS:
        y = where(outside, 0.0, y)
    elif spline.ext == RAISE:
        builder.require(~outside, ValueError, "Found x value not in the domain")
    return [y.cast(node.outputs[0].type.dtype).name]


@onnx_funcify.register(LogDet)
def onnx_funcify_LogDet(op, node, builder, inputs, **kwargs):
    a = builder.value(inputs[0], node.inputs[0].type.dtype).cast("float64")
    builder.require(
        a.dim(0).eq(a.dim(1)),
        ValueError,
        "the ONNX backend computes LogDet of square matrices only",
        is_scalar=True,
    )
    _, log_determinant = sign_and_log_determinant(a.unsqueeze([0]))
    result = log_determinant.reshape(a.indices([]))
    return [result.cast(node.outputs[0].type.dtype).name]


@onnx_funcify.register(BatchedDiag)
def onnx_funcify_BatchedDiag(op, node, builder, inputs, **kwargs):
    diagonals = builder.value(inputs[0], node.inputs[0].type.dtype)
    length = diagonals.dim(1)
    on_diagonal = diagonal_mask(length, length)
    return [where(on_diagonal, diagonals.unsqueeze([2]), 0).name]
