"""Reductions (ReduceSum, ...), ArgMax/ArgMin and cumulative sums and products.

Reduction axes may be a run-time input: each candidate axis is then reduced
and broadcast back where the axes select it, and the selected axes are cut to
length one (and dropped without ``keepdims``).
"""

import numpy as np
import pytensor.tensor as pt
from pytensor.ifelse import ifelse

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import (
    as_dtype,
    constant_value,
    like,
    normalize_axis,
    run_time_axes,
    static_ints,
)


def total(x, axis):
    acc = "float64" if x.dtype.startswith("float") else x.dtype
    return pt.sum(x, axis=axis, dtype=x.dtype, acc_dtype=acc, keepdims=True)


def extreme(function, empty):
    def reduce(x, axis):
        if any(x.type.shape[a] == 0 for a in axis):
            shape = [1 if d in axis else x.shape[d] for d in range(x.ndim)]
            return pt.alloc(like(empty(x.dtype), x), *shape)
        return function(x, axis=axis, keepdims=True)

    return reduce


def lowest(dtype):
    if np.dtype(dtype) == bool:
        return False
    return -np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def highest(dtype):
    if np.dtype(dtype) == bool:
        return True
    return np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).max


def product(x, axis):
    return pt.prod(x, axis=axis, dtype=x.dtype, keepdims=True)


def log_sum_exp(x, axis):
    peak = extreme(pt.max, lowest)(x, axis)
    peak = pt.switch(pt.isinf(peak), like(0, x), peak)
    return pt.log(total(pt.exp(x - peak), axis)) + peak


# (prepare the input, reduce it keeping dims, finish with the input and count)
REDUCTIONS = {
    "ReduceSum": (None, total, None),
    "ReduceMean": (None, total, lambda s, count: s / as_dtype(count, s.dtype)),
    "ReduceMax": (None, extreme(pt.max, lowest), None),
    "ReduceMin": (None, extreme(pt.min, highest), None),
    "ReduceProd": (None, product, None),
    "ReduceL1": (pt.abs, total, None),
    "ReduceL2": (lambda x: x * x, total, lambda s, count: pt.sqrt(s)),
    "ReduceSumSquare": (lambda x: x * x, total, None),
    "ReduceLogSum": (None, total, lambda s, count: pt.log(s)),
    "ReduceLogSumExp": (None, log_sum_exp, None),
}


def axis_mask(node, x, axes_input):
    """Whether each dim is reduced (a boolean scalar if the axes come at run
    time) and how many are, or ``(None, 0)`` for no reduction."""
    value = constant_value(axes_input)
    if value is None and axes_input is not None and axes_input.type.shape[0] != 0:
        axes = pt.switch(axes_input < 0, axes_input + x.ndim, axes_input)
        return [pt.any(pt.eq(axes, d)) for d in range(x.ndim)], axes.type.shape[0]
    axes = node.attr("axes", []) if axes_input is None else ravel_or_empty(value)
    axes = {normalize_axis(int(a), x.ndim) for a in axes}
    if not axes and node.attr("noop_with_empty_axes", 0):
        return None, 0
    axes = axes or set(range(x.ndim))
    return [d in axes for d in range(x.ndim)], len(axes)


def ravel_or_empty(value):
    return [] if value is None else value.ravel()


def reduction(prepare, reduce, finish):
    def handler(node, x, axes_input=None):
        mask, count = axis_mask(node, x, axes_input)
        if mask is None:
            return x
        y = x if prepare is None else as_dtype(prepare(x), x.dtype)
        y = reduce_masked(y, mask, reduce)
        if finish is not None:
            sizes = [selected_size(x, d, m) for d, m in enumerate(mask)]
            y = finish(y, pt.prod(pt.stack(sizes)) if sizes else pt.constant(1))
        y = as_dtype(y, x.dtype)
        if node.attr("keepdims", 1):
            return y
        if count is None:
            raise NotImplementedError(f"{node.label}: run-time axes of unknown count")
        return drop_axes(y, mask, x.ndim - count)

    return handler


def selected_size(x, d, selected):
    if isinstance(selected, bool):
        return x.shape[d] if selected else pt.constant(1, dtype="int64")
    return pt.switch(selected, x.shape[d], 1)


def reduce_masked(x, mask, reduce):
    static = [d for d, m in enumerate(mask) if m is True]
    if all(isinstance(m, bool) for m in mask):
        return reduce(x, tuple(static)) if static else x
    for d, selected in enumerate(mask):
        x = ifelse(selected, reduce(x, (d,)), x)
    return x


def drop_axes(y, mask, ndim):
    if all(isinstance(m, bool) for m in mask):
        return y.reshape([y.shape[d] for d, m in enumerate(mask) if not m], ndim=ndim)
    keep = pt.nonzero(pt.stack([pt.invert(pt.as_tensor(m)) for m in mask]))[0]
    return y.reshape(pt.as_tensor(y.shape)[keep], ndim=ndim)


for op_type, parts in REDUCTIONS.items():
    onnx_op(op_type)(reduction(*parts))


def arg_reduction(function):
    def handler(node, x):
        axis = normalize_axis(node.attr("axis", 0), x.ndim)
        if node.attr("select_last_index", 0):
            index = x.shape[axis] - 1 - function(flip(x, axis), axis=axis)
        else:
            index = function(x, axis=axis)
        index = as_dtype(index, "int64")
        return pt.expand_dims(index, axis) if node.attr("keepdims", 1) else index

    return handler


onnx_op("ArgMax")(arg_reduction(pt.argmax))
onnx_op("ArgMin")(arg_reduction(pt.argmin))


def flip(x, axis):
    return x[(slice(None),) * axis + (slice(None, None, -1),)]


def wide(x):
    """``x`` as a 64-bit integer if it is a narrower one: PyTensor's Python
    implementation of cumsum returns int64 for int32 inputs."""
    if x.dtype.startswith("int"):
        return as_dtype(x, "int64")
    return as_dtype(x, "uint64") if x.dtype.startswith("uint") else x


def cumulative(function, identity):
    def along(node, x, axis):
        if node.attr("reverse", 0):
            x = flip(x, axis)
        result = function(wide(x), axis=axis)
        if node.attr("exclusive", 0):
            before = (slice(None),) * axis
            start = pt.full_like(x[(*before, slice(0, 1))], like(identity, x))
            result = pt.concatenate(
                [start, result[(*before, slice(None, -1))]], axis=axis
            )
        if node.attr("reverse", 0):
            result = flip(result, axis)
        return as_dtype(result, x.dtype)

    def handler(node, x, axis_input):
        if constant_value(axis_input) is not None:
            return along(node, x, normalize_axis(static_ints(axis_input)[0], x.ndim))
        axis = run_time_axes(
            axis_input.ravel()[0] if axis_input.ndim else axis_input, x.ndim
        )
        result = along(node, x, x.ndim - 1)
        for d in reversed(range(x.ndim - 1)):
            result = ifelse(pt.eq(axis, d), along(node, x, d), result)
        return result

    return handler


onnx_op("CumSum")(cumulative(pt.cumsum, 0))
onnx_op("CumProd")(cumulative(pt.cumprod, 1))
