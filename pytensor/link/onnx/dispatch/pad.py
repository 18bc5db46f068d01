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
from pytensor.link.onnx.dispatch.shape import (
    dim_size,
    int64_constant,
    int64_max,
    int64_min,
)


def per_axis_pairs(builder, value, var, ndim, dtype):
    """A function ``(axis, side) -> value`` for an input broadcastable to ``(ndim, 2)``.

    The values are ``dtype`` tensors of one element; constants stay constant.
    """
    if isinstance(var, Constant):
        table = np.broadcast_to(np.asarray(var.data, dtype=dtype), (ndim, 2))
        return lambda axis, side: builder.constant([table[axis, side]], dtype)
    value = builder.cast(value, var.type.dtype, dtype)
    table = builder.add("Expand", [value, int64_constant(builder, [ndim, 2])])
    flat = builder.add("Reshape", [table, int64_constant(builder, [-1])])
    return lambda axis, side: builder.add(
        "Gather", [flat, int64_constant(builder, [2 * axis + side])]
    )


def static_widths(var, ndim):
    """The pad widths as a ``(ndim, 2)`` array if they are constant, else None."""
    if not isinstance(var, Constant):
        return None
    return np.broadcast_to(np.asarray(var.data), (ndim, 2))


def scalar(builder, vector):
    return builder.add("Squeeze", [vector, int64_constant(builder, [0])])


# Index modes: the position along the axis each padded position copies.
# `t` ranges over [-before, n + after); `n` is the length of the axis.


def edge_source(builder, t, n):
    last = builder.add("Sub", [n, int64_constant(builder, [1], "one")])
    clipped = int64_min(builder, t, last)
    return int64_max(builder, clipped, int64_constant(builder, [0], "zero"))


def periodic(builder, t, period):
    """``t mod period`` in ``[0, period)``; a period of 0 (empty axis) counts as 1."""
    period = int64_max(builder, period, int64_constant(builder, [1], "one"))
    return builder.add("Mod", [t, period], fmod=0)


def mirrored(builder, t, n, period, last):
    """``u = t mod period`` where ``u < n``, else ``last - u``: a mirrored sweep."""
    within = periodic(builder, t, period)
    going_up = builder.add("Less", [within, n])
    going_down = builder.add("Sub", [last, within])
    return builder.add("Where", [going_up, within, going_down])


def wrap_source(builder, t, n):
    return periodic(builder, t, n)


def symmetric_source(builder, t, n):
    period = builder.add("Add", [n, n])
    last = builder.add("Sub", [period, int64_constant(builder, [1], "one")])
    return mirrored(builder, t, n, period, last)


def reflect_source(builder, t, n):
    period = builder.add(
        "Mul",
        [
            builder.add("Sub", [n, int64_constant(builder, [1], "one")]),
            int64_constant(builder, [2], "two"),
        ],
    )
    return mirrored(builder, t, n, period, period)


SOURCE_POSITIONS = {
    "edge": edge_source,
    "wrap": wrap_source,
    "symmetric": symmetric_source,
    "reflect": reflect_source,
}


def pad_by_gather(builder, x, axis, before, after, source):
    n = dim_size(builder, x, axis)
    start = builder.add("Neg", [before])
    end = builder.add("Add", [n, after])
    step = builder.constant(1, "int64")
    t = builder.add(
        "Range", [scalar(builder, start), scalar(builder, end), step], hint="t"
    )
    return builder.add("Gather", [x, source(builder, t, n)], axis=axis, hint="padded")


# Block modes: the blocks concatenated before and after the axis.


def filled(builder, x, axis, width, value):
    """A block like ``x`` but of ``width`` along ``axis``, filled with ``value`` (broadcast)."""
    shape = builder.add(
        "Concat",
        [
            builder.add("Shape", [x], end=axis, hint="shape_before"),
            width,
            builder.add("Shape", [x], start=axis + 1, hint="shape_after"),
        ],
        axis=0,
        hint="block_shape",
    )
    return builder.add("Expand", [value, shape], hint="block")


def along(builder, x, axis, start, end):
    """``x[start:end]`` along ``axis``; bounds are int64 vectors of one element."""
    return builder.add("Slice", [x, start, end, int64_constant(builder, [axis])])


def edges(builder, x, axis):
    """The first and last slices of ``x`` along ``axis``, keeping the axis."""
    zero, one = (
        int64_constant(builder, [0], "zero"),
        int64_constant(builder, [1], "one"),
    )
    last = int64_constant(builder, [-1])
    end = int64_constant(builder, [np.iinfo(np.int64).max], "end")
    return along(builder, x, axis, zero, one), along(builder, x, axis, last, end)


def constant_blocks(builder, x, axis, before, after, ndim, dtype, values):
    return (
        filled(builder, x, axis, before, values(axis, 0)),
        filled(builder, x, axis, after, values(axis, 1)),
    )


def ramp(builder, edge, end_value, width, positions, axis, ndim, dtype):
    """``linspace(end_value, edge, width, endpoint=False)`` along ``axis``, at ``positions``.

    Computed as PyTensor's ``linspace``: ``positions * (edge - end) / width + end``.
    """
    other_axes = [a for a in range(ndim) if a != axis]
    positions = builder.cast(positions, "int64", dtype)
    if other_axes:
        positions = builder.add(
            "Unsqueeze", [positions, int64_constant(builder, other_axes)]
        )
    delta = builder.add("Sub", [edge, end_value])
    scaled = builder.add("Mul", [positions, delta])
    divided = builder.add("Div", [scaled, builder.cast(width, "int64", dtype)])
    return builder.add("Add", [divided, end_value], hint="ramp")


def linear_ramp_blocks(builder, x, axis, before, after, ndim, dtype, end_values):
    first, last = edges(builder, x, axis)
    zero, one = builder.constant(0, "int64"), builder.constant(1, "int64")
    up = builder.add("Range", [zero, scalar(builder, before), one])
    start_down = builder.add("Sub", [scalar(builder, after), one])
    minus_one = builder.constant(-1, "int64")
    down = builder.add("Range", [start_down, minus_one, minus_one])
    return (
        ramp(builder, first, end_values(axis, 0), before, up, axis, ndim, dtype),
        ramp(builder, last, end_values(axis, 1), after, down, axis, ndim, dtype),
    )


def statistic(builder, op_type, x, axis, dtype):
    """``op_type`` (a reduction) of ``x`` along ``axis``, keeping the axis."""
    axes = int64_constant(builder, [axis])
    reduced = builder.add(op_type, [x, axes], keepdims=1, hint="statistic")
    if op_type != "ReduceMean" and np.dtype(dtype).kind == "f":
        # onnxruntime's ReduceMax and ReduceMin skip NaN; PyTensor's propagate it
        is_nan = builder.cast(builder.add("IsNaN", [x]), "bool", "uint8")
        has_nan = builder.add("ReduceMax", [is_nan, axes], keepdims=1)
        reduced = builder.add(
            "Where",
            [
                builder.cast(has_nan, "uint8", "bool"),
                builder.constant(np.nan, dtype),
                reduced,
            ],
        )
    return reduced


def stat_blocks(op_type):
    def blocks(builder, x, axis, before, after, ndim, dtype, stat_lengths):
        n = dim_size(builder, x, axis)
        if stat_lengths is None:
            left = right = statistic(builder, op_type, x, axis, dtype)
        else:
            zero = int64_constant(builder, [0], "zero")
            left_end = int64_min(builder, stat_lengths(axis, 0), n)
            left_part = along(builder, x, axis, zero, left_end)
            right_start = builder.add(
                "Sub", [n, int64_min(builder, stat_lengths(axis, 1), n)]
            )
            right_part = along(builder, x, axis, right_start, n)
            left = statistic(builder, op_type, left_part, axis, dtype)
            right = statistic(builder, op_type, right_part, axis, dtype)
        return (
            filled(builder, x, axis, before, left),
            filled(builder, x, axis, after, right),
        )

    return blocks


BLOCKS = {
    "constant": constant_blocks,
    "linear_ramp": linear_ramp_blocks,
    "maximum": stat_blocks("ReduceMax"),
    "minimum": stat_blocks("ReduceMin"),
    "mean": stat_blocks("ReduceMean"),
}


@onnx_funcify.register(Pad)
def onnx_funcify_Pad(op, node, builder, inputs, **kwargs):
    x_var, widths_var, *extra_vars = node.inputs
    x, widths, *extra = inputs
    ndim = x_var.type.ndim
    dtype = node.outputs[0].type.dtype
    mode = op.pad_mode
    if mode not in SOURCE_POSITIONS and mode not in BLOCKS:
        raise NotImplementedError(f"the pad mode {mode!r} is not supported")
    x = builder.cast(x, x_var.type.dtype, dtype)
    width_of = per_axis_pairs(builder, widths, widths_var, ndim, "int64")
    known_widths = static_widths(widths_var, ndim)
    values = None
    if extra:
        values = per_axis_pairs(
            builder,
            extra[0],
            extra_vars[0],
            ndim,
            "int64" if mode in ("maximum", "minimum", "mean") else dtype,
        )
    for axis in range(ndim):
        if known_widths is not None and not known_widths[axis].any():
            continue
        before, after = width_of(axis, 0), width_of(axis, 1)
        if mode in SOURCE_POSITIONS:
            x = pad_by_gather(builder, x, axis, before, after, SOURCE_POSITIONS[mode])
        else:
            left, right = BLOCKS[mode](
                builder, x, axis, before, after, ndim, dtype, values
            )
            x = builder.add("Concat", [left, x, right], axis=axis, hint="padded")
    return [x]
