"""Converter for ``pytensor.tensor.pad.Pad`` (``pt.pad``), all its modes.

Axes are padded one after the other, as NumPy and PyTensor do, so that the
corners of later axes see the padding of earlier ones. "edge", "wrap",
"reflect" and "symmetric" gather the source position of every padded
position along the axis (any width, also wider than the axis); "constant",
"linear_ramp", "maximum", "minimum" and "mean" concatenate computed blocks
before and after it. ONNX's own ``Pad`` has neither per-side values nor, at
opset 18, "wrap".
"""

import numpy as np
from pytensor.graph.basic import Constant
from pytensor.tensor.pad import Pad

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.operands import cannot_hold_nan
from pytensor.link.onnx.value import concat, maximum, minimum, where


def per_axis_pairs(builder, value, var, ndim, dtype):
    """A function ``(axis, side) -> value`` for an input broadcastable to ``(ndim, 2)``.

    The values are ``dtype`` tensors of one element; constants stay constant.
    """
    if isinstance(var, Constant):
        table = np.broadcast_to(np.asarray(var.data, dtype=dtype), (ndim, 2))
        return lambda axis, side: builder.value(
            builder.constant([table[axis, side]], dtype), dtype
        )
    value = builder.value(value, var.type.dtype).cast(dtype)
    flat = value.expand(value.indices([ndim, 2])).reshape(value.indices([-1]))
    return lambda axis, side: flat.take([2 * axis + side], axis=0)


def static_widths(var, ndim):
    """The pad widths as a ``(ndim, 2)`` array if they are constant, else None."""
    if not isinstance(var, Constant):
        return None
    return np.broadcast_to(np.asarray(var.data), (ndim, 2))


# Index modes: the position along the axis each padded position copies.
# `t` ranges over [-before, n + after); `n` is the length of the axis.


def edge_source(t, n):
    return maximum(minimum(t, n - 1), 0)


def periodic(t, period):
    """``t mod period`` in ``[0, period)``; a period of 0 (empty axis) counts as 1."""
    return t % maximum(period, 1)


def mirrored(t, n, period, last):
    """``u = t mod period`` where ``u < n``, else ``last - u``: a mirrored sweep."""
    within = periodic(t, period)
    return where(within < n, within, last - within)


def symmetric_source(t, n):
    period = n + n
    return mirrored(t, n, period, period - 1)


def reflect_source(t, n):
    period = (n - 1) * 2
    return mirrored(t, n, period, period)


SOURCE_POSITIONS = {
    "edge": edge_source,
    "wrap": periodic,
    "symmetric": symmetric_source,
    "reflect": reflect_source,
}


def pad_by_gather(x, axis, before, after, source):
    n = x.shape(axis, axis + 1)
    start, end = (-before).squeeze([0]), (n + after).squeeze([0])
    t = start.apply("Range", start, end, 1)
    return x.take(source(t, n), axis=axis)


# Block modes: the blocks concatenated before and after the axis.


def filled(x, axis, width, value):
    """A block like ``x`` but of ``width`` along ``axis``, filled with ``value`` (broadcast)."""
    shape = concat([x.shape(0, axis), width, x.shape(axis + 1)], axis=0)
    return value.expand(shape)


def constant_blocks(x, axis, before, after, ndim, values):
    return (
        filled(x, axis, before, values(axis, 0)),
        filled(x, axis, after, values(axis, 1)),
    )


def ramp(edge, end_value, width, positions, axis, ndim):
    """``linspace(end_value, edge, width, endpoint=False)`` along ``axis``, at ``positions``.

    Computed as PyTensor's ``linspace``: ``positions * (edge - end) / width + end``.
    """
    other_axes = [a for a in range(ndim) if a != axis]
    positions = positions.cast(edge.dtype)
    if other_axes:
        positions = positions.unsqueeze(other_axes)
    return positions * (edge - end_value) / width.cast(edge.dtype) + end_value


def linear_ramp_blocks(x, axis, before, after, ndim, end_values):
    first, last = x.slice(0, 1, axis), x.slice(-1, None, axis)
    zero = before.indices(0)
    up = zero.apply("Range", zero, before.squeeze([0]), 1)
    start_down = after.squeeze([0]) - 1
    down = zero.apply("Range", start_down, -1, -1)
    return (
        ramp(first, end_values(axis, 0), before, up, axis, ndim),
        ramp(last, end_values(axis, 1), after, down, axis, ndim),
    )


def statistic(op_type, x, axis, may_hold_nan):
    """``op_type`` (a reduction) of ``x`` along ``axis``, keeping the axis."""
    reduced = x.apply(op_type, x, x.indices([axis]), keepdims=1)
    if op_type != "ReduceMean" and may_hold_nan and np.dtype(x.dtype).kind == "f":
        # onnxruntime's ReduceMax and ReduceMin skip NaN; PyTensor's propagate it
        reduced = where(x.isnan().any_along([axis]), np.nan, reduced)
    return reduced


def stat_blocks(op_type, may_hold_nan=True):
    def blocks(x, axis, before, after, ndim, stat_lengths):
        if stat_lengths is None:
            left = right = statistic(op_type, x, axis, may_hold_nan)
        else:
            n = x.shape(axis, axis + 1)
            left_part = x.slice(0, minimum(stat_lengths(axis, 0), n), axis)
            right_start = n - minimum(stat_lengths(axis, 1), n)
            left = statistic(op_type, left_part, axis, may_hold_nan)
            right_part = x.slice(right_start, n, axis)
            right = statistic(op_type, right_part, axis, may_hold_nan)
        return filled(x, axis, before, left), filled(x, axis, after, right)

    return blocks


EXTREMA = {"maximum": "ReduceMax", "minimum": "ReduceMin"}
BLOCKS = {
    "constant": constant_blocks,
    "linear_ramp": linear_ramp_blocks,
    **{mode: stat_blocks(op_type) for mode, op_type in EXTREMA.items()},
    "mean": stat_blocks("ReduceMean"),
}


def blocks_of(mode, x_var):
    """The blocks of ``mode``; extrema of a NaN-free ``x_var`` skip the NaN check
    (the padding of earlier axes copies its values)."""
    if mode in EXTREMA and cannot_hold_nan(x_var):
        return stat_blocks(EXTREMA[mode], may_hold_nan=False)
    return BLOCKS.get(mode)


@onnx_funcify.register(Pad)
def onnx_funcify_Pad(op, node, builder, inputs, **kwargs):
    x_var, widths_var, *extra_vars = node.inputs
    x, widths, *extra = inputs
    ndim = x_var.type.ndim
    dtype = node.outputs[0].type.dtype
    mode = op.pad_mode
    if mode not in SOURCE_POSITIONS and mode not in BLOCKS:
        raise NotImplementedError(f"the pad mode {mode!r} is not supported")
    x = builder.value(x, x_var.type.dtype).cast(dtype)
    width_of = per_axis_pairs(builder, widths, widths_var, ndim, "int64")
    known_widths = static_widths(widths_var, ndim)
    values, blocks = None, blocks_of(mode, x_var)
    if extra:
        stat = mode in ("maximum", "minimum", "mean")
        values_dtype = "int64" if stat else dtype
        values = per_axis_pairs(builder, extra[0], extra_vars[0], ndim, values_dtype)
    for axis in range(ndim):
        if known_widths is not None and not known_widths[axis].any():
            continue
        before, after = width_of(axis, 0), width_of(axis, 1)
        if mode in SOURCE_POSITIONS:
            x = pad_by_gather(x, axis, before, after, SOURCE_POSITIONS[mode])
        else:
            left, right = blocks(x, axis, before, after, ndim, values)
            x = concat([left, x, right], axis=axis)
    return [x.name]
