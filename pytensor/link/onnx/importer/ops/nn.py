"""Neural-network ops: Conv, pooling, normalizations, Softmax, Dropout."""

import itertools

import numpy as np
import pytensor.tensor as pt
from pytensor.tensor.special import log_softmax, softmax

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import (
    as_dtype,
    as_int64,
    like,
    normalize_axis,
)


def coerced_2d(function):
    """Apply ``function`` along axis 1 of ``x`` flattened to 2-D at ``axis`` (opset < 13)."""

    def handler(node, x):
        axis = normalize_axis(node.attr("axis", 1), x.ndim)
        shape = x.shape
        rows = pt.prod(pt.as_tensor(shape)[:axis]) if axis else 1
        flat = pt.reshape(x, (rows, -1), ndim=2)
        return pt.reshape(function(flat, 1), shape, ndim=x.ndim)

    return handler


def with_axis_attribute(function):
    def handler(node, x):
        return function(x, normalize_axis(node.attr("axis", -1), x.ndim))

    return handler


def hardmax(x, axis):
    index = pt.expand_dims(pt.argmax(x, axis=axis), axis)
    positions = pt.arange(x.shape[axis]).reshape(
        [-1 if d == axis else 1 for d in range(x.ndim)]
    )
    return as_dtype(pt.eq(positions, index), x.dtype)


def softmax_any_float(x, axis):
    if x.dtype != "float16":
        return softmax(x, axis=axis)
    # PyTensor's Softmax runs its inner graph in the default mode, which may
    # lack float16 (Numba); this is the float16 arithmetic of ONNX's reference.
    exp = pt.exp(x - pt.max(x, axis=axis, keepdims=True))
    return exp / pt.sum(exp, axis=axis, keepdims=True)


def log_softmax_any_float(x, axis):
    if x.dtype != "float16":
        return log_softmax(x, axis=axis)
    return pt.log(softmax_any_float(x, axis))


for op_type, function in [
    ("Softmax", softmax_any_float),
    ("LogSoftmax", log_softmax_any_float),
    ("Hardmax", hardmax),
]:
    onnx_op(op_type, until=12)(coerced_2d(function))
    onnx_op(op_type, since=13)(with_axis_attribute(function))


def pad_spatial(x, before, after, value):
    """``x`` with ``before``/``after`` entries of ``value`` around its spatial dims."""
    if all(isinstance(p, int) and p == 0 for p in [*before, *after]):
        return x
    shape = [x.shape[0], x.shape[1]]
    inner = [slice(None), slice(None)]
    for i, (b, a) in enumerate(zip(before, after, strict=True)):
        shape.append(x.shape[2 + i] + b + a)
        inner.append(slice(b, b + x.shape[2 + i]))
    filled = pt.alloc(pt.constant(np.asarray(value, dtype=x.dtype)), *shape)
    return pt.set_subtensor(filled[tuple(inner)], x)


def ceil_div(a, b):
    return -((-a) // b)


class Window:
    """The geometry of a sliding window over the spatial dims of ``x``."""

    def __init__(self, node, x, kernel):
        n = len(kernel)
        self.kernel = list(kernel)
        self.strides = node.attr("strides") or [1] * n
        self.dilations = node.attr("dilations") or [1] * n
        self.extent = [
            d * (k - 1) + 1 for d, k in zip(self.dilations, kernel, strict=True)
        ]
        lengths = [x.shape[2 + i] for i in range(n)]
        static = [x.type.shape[2 + i] for i in range(n)]
        auto_pad = node.attr("auto_pad", "NOTSET")
        pads = node.attr("pads") or [0] * (2 * n)
        self.before, self.after = list(pads[:n]), list(pads[n:])
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            for i in range(n):
                length = static[i] if static[i] is not None else lengths[i]
                total = (
                    (ceil_div(length, self.strides[i]) - 1) * self.strides[i]
                    + self.extent[i]
                    - length
                )
                total = (
                    max(total, 0) if isinstance(total, int) else pt.maximum(total, 0)
                )
                small = total // 2
                large = total - small
                self.before[i], self.after[i] = (
                    (small, large) if auto_pad == "SAME_UPPER" else (large, small)
                )
        elif auto_pad == "VALID":
            self.before, self.after = [0] * n, [0] * n
        self.padded = [lengths[i] + self.before[i] + self.after[i] for i in range(n)]
        self.ceil_extra = [0] * n
        if node.attr("ceil_mode", 0):
            for i in range(n):
                count = ceil_div(self.padded[i] - self.extent[i], self.strides[i]) + 1
                starts_inside = (count - 1) * self.strides[i] < lengths[
                    i
                ] + self.before[i]
                count = pt.switch(starts_inside, count, count - 1)
                self.ceil_extra[i] = pt.maximum(
                    (count - 1) * self.strides[i] + self.extent[i] - self.padded[i], 0
                )
                self.padded[i] = self.padded[i] + self.ceil_extra[i]
        self.out = [
            (self.padded[i] - self.extent[i]) // self.strides[i] + 1 for i in range(n)
        ]

    def pad(self, x, value, explicit_value=None):
        """``x`` padded by the pads (with ``explicit_value``) and ceil-mode ends."""
        explicit = value if explicit_value is None else explicit_value
        x = pad_spatial(x, self.before, self.after, explicit)
        return pad_spatial(x, [0] * len(self.before), self.ceil_extra, value)

    def slices(self, padded_x):
        """One view of ``padded_x`` per kernel offset, each of the output's shape."""
        for offset in itertools.product(*(range(k) for k in self.kernel)):
            index = [slice(None), slice(None)]
            for i, o in enumerate(offset):
                start = o * self.dilations[i]
                index.append(
                    slice(
                        start,
                        start + self.strides[i] * (self.out[i] - 1) + 1,
                        self.strides[i],
                    )
                )
            yield offset, padded_x[tuple(index)]


def kernel_shape(node, w):
    shape = node.attr("kernel_shape") or w.type.shape[2:]
    if any(k is None for k in shape):
        raise NotImplementedError(f"{node.label}: the kernel shape must be static")
    return shape


@onnx_op("Conv")
def conv(node, x, w, bias=None):
    window = Window(node, x, kernel_shape(node, w))
    padded = window.pad(x, 0)
    groups = node.attr("group", 1)
    total = None
    for offset, view in window.slices(padded):
        tap = w[(slice(None), slice(None), *offset)]
        term = grouped_product(view, tap, groups)
        total = term if total is None else total + term
    if bias is not None:
        total = total + bias.reshape((-1,) + (1,) * (x.ndim - 2))
    return as_dtype(total, x.dtype)


def grouped_product(view, tap, groups):
    """Sum over input channels of ``view`` (N, C, *out) times ``tap`` (M, C/groups)."""
    spatial = view.ndim - 2
    if groups == 1:
        product = pt.tensordot(view, tap, axes=[[1], [1]])
        return pt.moveaxis(product, -1, 1)
    n, c = view.shape[0], view.shape[1]
    grouped = view.reshape(
        (n, groups, c // groups, *(view.shape[2 + i] for i in range(spatial))),
        ndim=view.ndim + 1,
    )
    taps = tap.reshape((groups, -1, tap.shape[1]), ndim=3)
    product = grouped[:, :, None] * taps[(None, ...) + (None,) * spatial]
    summed = product.sum(axis=3)
    return summed.reshape(
        (n, -1, *(view.shape[2 + i] for i in range(spatial))), ndim=view.ndim
    )


def pool(node, x, combine, pad_value):
    window = Window(node, x, node.attr("kernel_shape"))
    padded = window.pad(x, pad_value)
    return tree_reduce(combine, [view for _, view in window.slices(padded)]), window


def tree_reduce(combine, values):
    """``combine`` applied pairwise down a balanced tree of ``values``."""
    while len(values) > 1:
        pairs = [combine(a, b) for a, b in zip(values[::2], values[1::2], strict=False)]
        values = pairs + ([values[-1]] if len(values) % 2 else [])
    return values[0]


@onnx_op("MaxPool")
def max_pool(node, x):
    lowest = -np.inf if x.dtype.startswith("float") else np.iinfo(x.dtype).min
    if not node.output_used(1):
        return pool(node, x, pt.maximum, lowest)[0]
    return max_pool_with_indices(node, x, lowest)


def max_pool_with_indices(node, x, lowest):
    """The maxima and their flat indices in ``x`` (row- or column-major spatial
    dims), the first tap in kernel order winning ties."""
    window = Window(node, x, node.attr("kernel_shape"))
    offsets, views = zip(*window.slices(window.pad(x, lowest)), strict=True)
    stacked = pt.stack(views)
    best = pt.argmax(stacked, axis=0)
    spatial = x.ndim - 2
    positions = []
    for d in range(spatial):
        taps = pt.constant(np.array([o[d] * window.dilations[d] for o in offsets]))
        starts = pt.arange(window.out[d]) * window.strides[d] - window.before[d]
        positions.append(taps[best] + pt.shape_padright(starts, spatial - 1 - d))
    order = (
        range(spatial)
        if node.attr("storage_order", 0) == 0
        else reversed(range(spatial))
    )
    planes = (x.shape[0], x.shape[1], *[1] * spatial)
    flat = pt.arange(x.shape[0] * x.shape[1]).reshape(planes, ndim=x.ndim)
    for d in order:
        flat = flat * x.shape[2 + d] + positions[d]
    return [stacked.max(axis=0), as_int64(flat)]


@onnx_op("MaxUnpool", since=9)
def max_unpool(node, x, indices, output_shape=None):
    """``x`` scattered to ``indices`` of the shape MaxPool had; ``output_shape``
    pads that shape with zeros at the end of each dim (as ONNX's reference)."""
    kernel = node.attr("kernel_shape")
    n = len(kernel)
    strides = node.attr("strides") or [1] * n
    pads = node.attr("pads") or [0] * (2 * n)
    shape = [x.shape[0], x.shape[1]] + [
        (x.shape[2 + d] - 1) * strides[d] - pads[d] - pads[n + d] + kernel[d]
        for d in range(n)
    ]
    flat = pt.zeros((pt.prod(pt.stack(shape)),), dtype=x.dtype)
    flat = pt.set_subtensor(flat[indices.ravel()], x.ravel())
    y = flat.reshape(shape, ndim=x.ndim)
    if output_shape is None:
        return y
    padded = pt.zeros([output_shape[d] for d in range(x.ndim)], dtype=x.dtype)
    return pt.set_subtensor(padded[tuple(slice(0, length) for length in shape)], y)


@onnx_op("AveragePool")
def average_pool(node, x):
    total, window = pool(node, x, pt.add, 0)
    ones = pt.ones_like(x[:1, :1])
    included = window.pad(ones, 0, explicit_value=node.attr("count_include_pad", 0))
    count = tree_reduce(pt.add, [view for _, view in window.slices(included)])
    return total / count


@onnx_op("LpPool")
def lp_pool(node, x):
    p = node.attr("p", 2)
    total, _ = pool(node, pt.abs(x) ** like(p, x), pt.add, 0)
    return total ** like(1.0 / p, x)


def global_pool(reduce):
    def handler(node, x):
        axes = tuple(range(2, x.ndim))
        return pt.expand_dims(reduce(x, axes), axes)

    return handler


onnx_op("GlobalAveragePool")(global_pool(lambda x, axes: pt.mean(x, axis=axes)))
onnx_op("GlobalMaxPool")(global_pool(lambda x, axes: pt.max(x, axis=axes)))


@onnx_op("GlobalLpPool")
def global_lp_pool(node, x):
    p = node.attr("p", 2)
    axes = tuple(range(2, x.ndim))
    norm = pt.sum(pt.abs(x) ** like(p, x), axis=axes) ** like(1.0 / p, x)
    return pt.expand_dims(norm, axes)


def per_channel(v, ndim):
    return v.reshape((-1,) + (1,) * (ndim - 2))


@onnx_op("BatchNormalization")
def batch_norm(node, x, scale, bias, mean, var):
    epsilon = like(node.attr("epsilon", 1e-5), x)
    if node.attr("training_mode", 0):
        axes = (0, *range(2, x.ndim))
        batch_mean = pt.mean(x, axis=axes)
        batch_var = pt.var(x, axis=axes)
        momentum = like(node.attr("momentum", 0.9), x)
        y = (x - per_channel(batch_mean, x.ndim)) / pt.sqrt(
            per_channel(batch_var, x.ndim) + epsilon
        )
        y = y * per_channel(scale, x.ndim) + per_channel(bias, x.ndim)
        running_mean = mean * momentum + batch_mean * (1 - momentum)
        running_var = var * momentum + batch_var * (1 - momentum)
        return [
            as_dtype(y, x.dtype),
            as_dtype(running_mean, mean.dtype),
            as_dtype(running_var, var.dtype),
        ]
    normalized = (x - per_channel(mean, x.ndim)) / pt.sqrt(
        per_channel(var, x.ndim) + epsilon
    )
    return as_dtype(
        normalized * per_channel(scale, x.ndim) + per_channel(bias, x.ndim), x.dtype
    )


@onnx_op("InstanceNormalization")
def instance_norm(node, x, scale, bias):
    axes = tuple(range(2, x.ndim))
    mean = pt.mean(x, axis=axes, keepdims=True)
    var = pt.var(x, axis=axes, keepdims=True)
    normalized = (x - mean) / pt.sqrt(var + like(node.attr("epsilon", 1e-5), x))
    return normalized * per_channel(scale, x.ndim) + per_channel(bias, x.ndim)


@onnx_op("LayerNormalization")
def layer_norm(node, x, scale, bias=None):
    axis = normalize_axis(node.attr("axis", -1), x.ndim)
    axes = tuple(range(axis, x.ndim))
    stash = (
        "float32"
        if node.attr("stash_type", 1) == 1 and x.dtype == "float16"
        else x.dtype
    )
    xs = as_dtype(x, stash)
    mean = pt.mean(xs, axis=axes, keepdims=True)
    inv_std = 1 / pt.sqrt(
        pt.mean((xs - mean) ** 2, axis=axes, keepdims=True)
        + like(node.attr("epsilon", 1e-5), xs)
    )
    y = as_dtype((xs - mean) * inv_std, x.dtype) * scale
    if bias is not None:
        y = y + bias
    return [y, mean, inv_std]


@onnx_op("LpNormalization")
def lp_normalization(node, x):
    axis = normalize_axis(node.attr("axis", -1), x.ndim)
    p = node.attr("p", 2)
    norm = (
        pt.sum(pt.abs(x), axis=axis, keepdims=True)
        if p == 1
        else pt.sqrt(pt.sum(x * x, axis=axis, keepdims=True))
    )
    return as_dtype(pt.switch(pt.eq(norm, 0), like(0, x), x / norm), x.dtype)


@onnx_op("LRN")
def lrn(node, x):
    size = node.attr("size")
    alpha, beta = node.attr("alpha", 1e-4), node.attr("beta", 0.75)
    bias = node.attr("bias", 1.0)
    below = (size - 1) // 2
    zeros = pt.zeros_like(x[:, :1])
    padded = pt.concatenate(
        [zeros.repeat(below, axis=1), x * x, zeros.repeat(size - 1 - below, axis=1)],
        axis=1,
    )
    window_sum = sum(padded[:, i : i + x.shape[1]] for i in range(size))
    return x / (like(bias, x) + like(alpha / size, x) * window_sum) ** like(beta, x)
