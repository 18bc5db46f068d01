"""Convolution variants: ConvInteger, QLinearConv, DeformConv and Col2Im.

The integer convolutions accumulate exactly in int32 as ONNX specifies, then
(QLinearConv) rescale in float64 and saturate. DeformConv samples the input
bilinearly at the offset kernel taps (one gather) and contracts the samples
with the weights. Col2Im adds every column entry into its image position with
one ``inc_subtensor``, so image and block shapes may arrive at run time.
"""

import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, as_int64, entries
from pytensor.link.onnx.importer.ops.nn import conv
from pytensor.link.onnx.importer.ops.quantization import saturated_integer
from pytensor.link.onnx.importer.ops.sampling import interpolate


def centered(x, zero_point, per_output_channel=False):
    """``x - zero_point`` in int32; a 1-D ``zero_point`` is per output channel."""
    x = as_dtype(x, "int32")
    if zero_point is None:
        return x
    zero_point = as_dtype(zero_point, "int32")
    if per_output_channel and zero_point.ndim == 1:
        zero_point = zero_point.reshape((-1,) + (1,) * (x.ndim - 1))
    return x - zero_point


def per_channel(v, ndim):
    """A scalar, or a 1-D per-channel value shaped to broadcast over (N, C, ...)."""
    if v.ndim == 0:
        return v
    return v.reshape((-1,) + (1,) * (ndim - 2))


@onnx_op("ConvInteger", since=10)
def conv_integer(node, x, w, x_zero_point=None, w_zero_point=None):
    return conv(node, centered(x, x_zero_point), centered(w, w_zero_point, True))


@onnx_op("QLinearConv", since=10)
def qlinear_conv(
    node, x, x_scale, x_zero, w, w_scale, w_zero, y_scale, y_zero=None, bias=None
):
    total = conv(node, centered(x, x_zero), centered(w, w_zero, True), bias)
    factor = x_scale * per_channel(w_scale, x.ndim) / y_scale
    scaled = as_dtype(total, "float64") * as_dtype(factor, "float64")
    if y_zero is not None:
        scaled = scaled + as_dtype(y_zero, "float64")
    return saturated_integer(scaled, x.dtype if y_zero is None else y_zero.dtype)


@onnx_op("DeformConv", since=19)
def deform_conv(node, x, w, offset, bias=None, mask=None):
    kernel = node.attr("kernel_shape") or list(w.type.shape[2:])
    if any(k is None for k in kernel):
        raise NotImplementedError(f"{node.label}: the kernel shape must be static")
    n = len(kernel)
    strides = node.attr("strides") or [1] * n
    dilations = node.attr("dilations") or [1] * n
    pads = node.attr("pads") or [0] * (2 * n)
    groups, offset_groups = node.attr("group", 1), node.attr("offset_group", 1)
    out = [offset.shape[2 + d] for d in range(n)]
    batch = x.shape[0]
    offset = offset.reshape((batch, offset_groups, *kernel, n, *out), ndim=2 * n + 3)
    if mask is not None:
        mask = mask.reshape((batch, offset_groups, *kernel, *out), ndim=2 * n + 2)
    channels = x.shape[1] // offset_groups
    samples = []
    for g in range(offset_groups):
        positions = [
            kernel_positions(d, kernel, dilations, strides, pads, out)
            + offset[(slice(None), g, *([slice(None)] * n), d)]
            for d in range(n)
        ]
        sampled = interpolate(x[:, g * channels : (g + 1) * channels], positions)
        if mask is not None:
            sampled = sampled * mask[:, g][:, None]
        samples.append(sampled)
    sampled = pt.concatenate(samples, axis=1) if offset_groups > 1 else samples[0]
    y = grouped_contraction(sampled, w, groups, n)
    if bias is not None:
        y = y + per_channel(bias, y.ndim)
    return as_dtype(y, x.dtype)


def kernel_positions(d, kernel, dilations, strides, pads, out):
    """The input coordinate along dim ``d`` of each kernel tap at each output point,
    shaped ``(1, *kernel, *out)``."""
    n = len(kernel)
    shape = [1] * (1 + 2 * n)
    tap_shape, out_shape = list(shape), list(shape)
    tap_shape[1 + d], out_shape[1 + n + d] = -1, -1
    taps = pt.arange(kernel[d]) * dilations[d]
    starts = pt.arange(out[d]) * strides[d] - pads[d]
    return as_dtype(taps.reshape(tap_shape) + starts.reshape(out_shape), "float64")


def grouped_contraction(sampled, w, groups, n):
    """``sum_{c, taps} w[o, c, taps] * sampled[:, c, taps]`` within each group."""
    axes = list(range(1, n + 2))
    per_group_in, per_group_out = sampled.shape[1] // groups, w.shape[0] // groups
    parts = []
    for g in range(groups):
        sampled_g = sampled[:, g * per_group_in : (g + 1) * per_group_in]
        w_g = w[g * per_group_out : (g + 1) * per_group_out]
        product = pt.tensordot(sampled_g, w_g, axes=[axes, axes])
        parts.append(pt.moveaxis(product, -1, 1))
    return pt.concatenate(parts, axis=1) if groups > 1 else parts[0]


@onnx_op("Col2Im", since=18)
def col2im(node, columns, image_shape, block_shape):
    image, block = entries(image_shape), entries(block_shape)
    n = len(image)
    strides = node.attr("strides") or [1] * n
    dilations = node.attr("dilations") or [1] * n
    pads = node.attr("pads") or [0] * (2 * n)
    padded = [image[d] + pads[d] + pads[n + d] for d in range(n)]
    blocks = [
        (padded[d] - dilations[d] * (block[d] - 1) - 1) // strides[d] + 1
        for d in range(n)
    ]
    taps = unravel(pt.arange(product(block)), block)
    starts = unravel(pt.arange(product(blocks)), blocks)
    flat = 0
    for d in range(n):
        position = taps[d][:, None] * dilations[d] + starts[d][None, :] * strides[d]
        flat = flat * padded[d] + position
    batch = columns.shape[0]
    channels = columns.shape[1] // product(block)
    canvas = pt.zeros((batch, channels, product(padded)), dtype=columns.dtype)
    values = columns.reshape((batch, channels, product(block), -1), ndim=4)
    canvas = pt.inc_subtensor(canvas[:, :, flat], values)
    canvas = canvas.reshape((batch, channels, *padded), ndim=n + 2)
    crop = tuple(slice(pads[d], pads[d] + image[d]) for d in range(n))
    return canvas[(slice(None), slice(None), *crop)]


def product(values):
    result = 1
    for v in values:
        result = result * v
    return result


def unravel(flat, lengths):
    """The row-major multi-index of ``flat`` in an array of ``lengths``."""
    index = []
    for length in reversed(lengths):
        index.append(flat % length)
        flat = flat // length
    return [as_int64(i) for i in reversed(index)]
