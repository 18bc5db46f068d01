"""Signal processing: DFT and transposed convolution."""

import numpy as np
import pytensor.tensor as pt
from pytensor.ifelse import ifelse

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import (
    as_dtype,
    constant_value,
    normalize_axis,
    run_time_axes,
    scalar,
    static_ints,
)


def fit_length(x, axis, length):
    """``x`` cut or zero-padded to ``length`` along ``axis``."""
    before = (slice(None),) * axis
    cut = x[(*before, slice(0, length))]
    missing = pt.maximum(length - cut.shape[axis], 0)
    zeros_shape = [missing if d == axis else cut.shape[d] for d in range(x.ndim)]
    return pt.concatenate([cut, pt.zeros(zeros_shape, dtype=x.dtype)], axis=axis)


@onnx_op("DFT")
def dft(node, x, length=None, axis_input=None):
    def along(axis):
        inverse, onesided = node.attr("inverse", 0), node.attr("onesided", 0)
        return dft_along(x, length, axis, inverse, onesided)

    if node.opset < 20:
        return along(normalize_axis(node.attr("axis", 1), x.ndim))
    if axis_input is None:
        return along(x.ndim - 2)
    if constant_value(axis_input) is not None:
        return along(normalize_axis(static_ints(axis_input, "axis")[0], x.ndim))
    axis = run_time_axes(scalar(axis_input), x.ndim)
    result = along(x.ndim - 2)
    for d in range(x.ndim - 2):
        result = ifelse(pt.eq(axis, d), along(d), result)
    return result


def dft_along(x, length, axis, inverse=False, onesided=False):
    """The DFT of the complex ``x`` (last dim: real and imaginary parts, or real
    only) along ``axis``, optionally cut or zero-padded to ``length``."""
    real = x[..., 0]
    imaginary = x[..., 1] if x.type.shape[-1] == 2 else pt.zeros_like(real)
    if inverse and onesided:
        return inverse_real_dft(x, real, imaginary, length, axis)
    if length is not None:
        n = as_dtype(scalar(length), "int64")
        real, imaginary = fit_length(real, axis, n), fit_length(imaginary, axis, n)
    n = real.shape[axis]
    outputs = n // 2 + 1 if onesided else n
    angle = as_dtype(pt.arange(outputs)[:, None] * pt.arange(n)[None, :] % n, "float64")
    angle = angle * (2 * np.pi / as_dtype(n, "float64")) * (1 if inverse else -1)
    cos, sin = as_dtype(pt.cos(angle), x.dtype), as_dtype(pt.sin(angle), x.dtype)

    out_real = transform(real, cos, axis) - transform(imaginary, sin, axis)
    out_imaginary = transform(real, sin, axis) + transform(imaginary, cos, axis)
    result = pt.stack([out_real, out_imaginary], axis=-1)
    return as_dtype(result / as_dtype(n, x.dtype), x.dtype) if inverse else result


@onnx_op("STFT", since=17)
def stft(node, signal, frame_step, window=None, frame_length=None):
    if frame_length is not None:
        length = as_dtype(scalar(frame_length), "int64")
    elif window is not None:
        length = window.shape[0]
    else:
        length = signal.shape[-2]
    step = as_dtype(scalar(frame_step), "int64")
    frames = 1 + (signal.shape[1] - length) // step
    index = pt.arange(frames)[:, None] * step + pt.arange(length)[None, :]
    framed = signal[:, index]
    if window is not None:
        framed = framed * as_dtype(window, signal.dtype)[:, None]
    return dft_along(framed, None, 2, onesided=node.attr("onesided", 1))


@onnx_op("MelWeightMatrix", since=17)
def mel_weight_matrix(node, bins, dft_length, sample_rate, lower_hertz, upper_hertz):
    """Triangular filters between mel-spaced DFT bins, as ONNX's reference."""
    bins, dft_length, sample_rate = (
        as_dtype(scalar(v), "int64") for v in (bins, dft_length, sample_rate)
    )

    def to_mel(hertz):
        return as_dtype(2595 * pt.log1p(hertz / 700), "float64") / np.log(10)

    low, high = to_mel(scalar(lower_hertz)), to_mel(scalar(upper_hertz))
    mels = (
        as_dtype(pt.arange(bins + 2), "float64")
        * ((high - low) / as_dtype(bins + 2, "float64"))
        + low
    )
    hertz = 700 * pt.expm1(mels / 2595 * np.log(10))
    edges = as_dtype(
        pt.floor(
            as_dtype(dft_length + 1, "float64")
            * hertz
            / as_dtype(sample_rate, "float64")
        ),
        "int64",
    )
    left, center, right = edges[:-2], edges[1:-1], edges[2:]
    j = pt.arange(dft_length // 2 + 1)[:, None]
    flat = pt.eq(center, left)
    rising = pt.switch(
        flat,
        as_dtype(pt.eq(j, center), "float64"),
        as_dtype(j - left, "float64")
        / as_dtype(pt.switch(flat, 1, center - left), "float64"),
    )
    rising = pt.switch((j >= left) & (j <= center), rising, 0)
    falling = as_dtype(right - j, "float64") / as_dtype(
        pt.maximum(right - center, 1), "float64"
    )
    weights = pt.switch((j >= center) & (j < right), falling, rising)
    return as_dtype(weights, node.dtype(node.attr("output_datatype", 1)))


def transform(values, matrix, axis):
    """``values`` multiplied along ``axis`` by ``matrix`` (outputs, inputs)."""
    return pt.moveaxis(pt.tensordot(values, matrix, axes=[[axis], [1]]), -1, axis)


def inverse_real_dft(x, real, imaginary, length, axis):
    """The real signal whose one-sided spectrum is ``real + i imaginary`` (the
    other half follows by Hermitian symmetry), with a last axis of length 1."""
    if length is None:
        n = 2 * (real.shape[axis] - 1)
    else:
        n = as_dtype(scalar(length), "int64")
    used = n // 2 + 1
    real, imaginary = fit_length(real, axis, used), fit_length(imaginary, axis, used)
    frequencies = pt.arange(used)
    twice = pt.switch(pt.eq(frequencies, 0) | pt.eq(2 * frequencies, n), 1, 2)
    weight = as_dtype(twice, x.dtype).reshape(
        [-1 if d == axis else 1 for d in range(x.ndim - 1)]
    )
    angle = as_dtype(pt.arange(n)[:, None] * frequencies[None, :] % n, "float64")
    angle = angle * (2 * np.pi / as_dtype(n, "float64"))
    cos, sin = as_dtype(pt.cos(angle), x.dtype), as_dtype(pt.sin(angle), x.dtype)

    signal = transform(real * weight, cos, axis) - transform(
        imaginary * weight, sin, axis
    )
    return as_dtype(signal / as_dtype(n, x.dtype), x.dtype)[..., None]


def uncropped_lengths(x, kernel, strides, dilations, output_padding):
    """The spatial lengths of a transposed convolution of ``x`` before cropping."""
    return [
        strides[i] * (x.shape[2 + i] - 1)
        + output_padding[i]
        + (kernel[i] - 1) * dilations[i]
        + 1
        for i in range(len(kernel))
    ]


def transposed_pads(node, x, kernel, strides, dilations, output_padding):
    """Begin and end pads of each spatial dim, from the attributes."""
    n = len(kernel)
    lengths = [x.shape[2 + i] for i in range(n)]
    full = uncropped_lengths(x, kernel, strides, dilations, output_padding)
    output_shape = node.attr("output_shape")
    auto_pad = node.attr("auto_pad", "NOTSET")
    if output_shape is None and auto_pad in ("NOTSET", "VALID"):
        pads = node.attr("pads") or [0] * (2 * n)
        return list(pads[:n]), list(pads[n:])
    if output_shape is None:
        output_shape = [lengths[i] * strides[i] for i in range(n)]
    total = [full[i] - output_shape[-n + i] for i in range(n)]
    if auto_pad == "SAME_UPPER":
        return [t // 2 for t in total], [t - t // 2 for t in total]
    return [t - t // 2 for t in total], [t // 2 for t in total]


@onnx_op("ConvTranspose")
def conv_transpose(node, x, w, bias=None):
    kernel = node.attr("kernel_shape") or list(w.type.shape[2:])
    n = len(kernel)
    strides = node.attr("strides") or [1] * n
    dilations = node.attr("dilations") or [1] * n
    output_padding = node.attr("output_padding") or [0] * n
    groups = node.attr("group", 1)
    before, after = transposed_pads(node, x, kernel, strides, dilations, output_padding)
    channels_in = x.shape[1] // groups
    parts = []
    for g in range(groups):
        xg = x[:, g * channels_in : (g + 1) * channels_in]
        wg = w[g * channels_in : (g + 1) * channels_in]
        parts.append(scatter_kernel(xg, wg, kernel, strides, dilations, output_padding))
    y = pt.concatenate(parts, axis=1) if groups > 1 else parts[0]
    for i in range(n):
        y = crop_or_pad(y, 2 + i, before[i], after[i])
    if bias is not None:
        y = y + bias.reshape((-1,) + (1,) * n)
    return as_dtype(y, x.dtype)


def crop_or_pad(y, axis, before, after):
    """``y`` without ``before``/``after`` entries at the ends of ``axis``, with
    zeros added where they are negative (an ``output_shape`` larger than the
    transposed convolution's)."""
    if not (isinstance(before, int) and isinstance(after, int)):
        zeros = [pt.maximum(-before, 0), pt.maximum(-after, 0)]
        padding = [
            pt.zeros([z if d == axis else y.shape[d] for d in range(y.ndim)], y.dtype)
            for z in zeros
        ]
        y = pt.concatenate([padding[0], y, padding[1]], axis=axis)
        before, after = pt.maximum(before, 0), pt.maximum(after, 0)
    index = [slice(None)] * y.ndim
    index[axis] = slice(before, y.shape[axis] - after)
    return y[tuple(index)]


def scatter_kernel(x, w, kernel, strides, dilations, output_padding):
    """The uncropped transposed convolution of ``x`` (N, C, ...) with ``w`` (C, M, ...)."""
    lengths = [x.shape[2 + i] for i in range(len(kernel))]
    full = uncropped_lengths(x, kernel, strides, dilations, output_padding)
    y = pt.zeros((x.shape[0], w.shape[1], *full), dtype=x.dtype)
    for offset in np.ndindex(*kernel):
        term = pt.tensordot(x, w[(slice(None), slice(None), *offset)], axes=[[1], [0]])
        term = pt.moveaxis(term, -1, 1)
        index = tuple(
            slice(o * d, o * d + s * (length - 1) + 1, s)
            for o, d, s, length in zip(offset, dilations, strides, lengths, strict=True)
        )
        y = pt.inc_subtensor(y[(slice(None), slice(None), *index)], term)
    return y
