"""Linear quantization: QuantizeLinear, DequantizeLinear and the QLinear ops."""

import numpy as np
import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, normalize_axis


def broadcast_parameter(parameter, x, node):
    """A per-tensor, per-axis or blocked ``parameter`` shaped to broadcast with ``x``."""
    if parameter.ndim == 0 or (parameter.ndim == 1 and parameter.type.shape[0] == 1):
        return parameter.ravel()[0] if parameter.ndim else parameter
    axis = normalize_axis(node.attr("axis", 1), x.ndim)
    block = node.attr("block_size", 0)
    if block:
        parameter = pt.repeat(parameter, block, axis=axis)
        parameter = parameter[(slice(None),) * axis + (slice(0, x.shape[axis]),)]
        return parameter
    return parameter.reshape([-1 if d == axis else 1 for d in range(x.ndim)])


@onnx_op("DequantizeLinear")
def dequantize(node, x, scale, zero_point=None):
    scale = broadcast_parameter(scale, x, node)
    values = (
        as_dtype(x, "float64")
        if zero_point is None
        else (
            as_dtype(x, "float64")
            - as_dtype(broadcast_parameter(zero_point, x, node), "float64")
        )
    )
    dtype = (
        node.dtype(node.attr("output_dtype"))
        if node.attr("output_dtype")
        else scale.dtype
    )
    return as_dtype(values * as_dtype(scale, "float64"), dtype)


@onnx_op("QuantizeLinear")
def quantize(node, x, scale, zero_point=None):
    if zero_point is not None:
        dtype = zero_point.dtype
    elif node.attr("output_dtype"):
        dtype = node.dtype(node.attr("output_dtype"))
    else:
        dtype = np.dtype("uint8")
    scaled = x / as_dtype(broadcast_parameter(scale, x, node), x.dtype)
    values = pt.round(scaled, mode="half_to_even")
    if zero_point is not None:
        values = values + as_dtype(broadcast_parameter(zero_point, x, node), x.dtype)
    info = np.iinfo(dtype)
    return as_dtype(pt.clip(values, info.min, info.max), dtype)


def saturated_integer(values, dtype):
    info = np.iinfo(dtype)
    return as_dtype(
        pt.clip(pt.round(values, mode="half_to_even"), info.min, info.max), dtype
    )


@onnx_op("QLinearMatMul")
def qlinear_matmul(node, a, a_scale, a_zero, b, b_scale, b_zero, y_scale, y_zero):
    real_a = as_dtype(a, "float64") - as_dtype(a_zero, "float64")
    real_b = as_dtype(b, "float64") - as_dtype(b_zero, "float64")
    product = (
        pt.matmul(real_a, real_b)
        * as_dtype(a_scale, "float64")
        * as_dtype(b_scale, "float64")
    )
    scaled = product / as_dtype(y_scale, "float64") + as_dtype(y_zero, "float64")
    return saturated_integer(scaled, y_zero.dtype)
