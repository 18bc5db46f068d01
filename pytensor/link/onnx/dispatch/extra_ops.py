"""Converters for the Ops of ``pytensor.tensor.extra_ops``.

ONNX has a ``CumSum`` but no cumulative product, ``repeat``, ``searchsorted``
or NaN-aware ``unique``: those are the algorithms of
`pytensor.link.onnx.numerics.cumulative` and `~pytensor.link.onnx.numerics.sorting`
(doubling steps, a binary search, prefix sums, scatters and a stable sort),
with NumPy's results for every dtype, NaN and empty input.
"""

import numpy as np
from pytensor.tensor.extra_ops import (
    Bartlett,
    CpuContiguous,
    CumOp,
    FillDiagonal,
    FillDiagonalOffset,
    RavelMultiIndex,
    Repeat,
    SearchsortedOp,
    Unique,
    UnravelIndex,
)

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.numerics.cumulative import (
    prefix_product,
    run_positions,
    sequential_product,
)
from pytensor.link.onnx.numerics.indexing import bounded_index, require_in_range
from pytensor.link.onnx.numerics.sorting import (
    group_starts,
    lexicographic_order,
    searchsorted,
    stable_argsort,
    unique_outputs,
)
from pytensor.link.onnx.value import (
    Value,
    arange,
    concat,
    maximum,
    minimum,
    where,
)


def input_values(builder, variables, names, dtype=None):
    """The values ``names`` of ``variables``, cast to ``dtype`` if given."""
    return [
        builder.value(name, var.type.dtype).cast(dtype or var.type.dtype)
        for name, var in zip(names, variables, strict=True)
    ]


# CumOp


@onnx_funcify.register(CumOp)
def onnx_funcify_CumOp(op, node, builder, inputs, **kwargs):
    # The result has the input's dtype, wrapping like NumPy's fixed-width
    # arithmetic (NumPy's own cumsum would return int64 for small integers).
    # int64 arithmetic wraps to the same bits as every narrower or unsigned
    # integer type, and casts to bool as the logical or/and would give.
    dtype = node.outputs[0].type.dtype
    [x] = input_values(
        builder, node.inputs, inputs, dtype if np.dtype(dtype).kind == "f" else "int64"
    )
    x_type = node.inputs[0].type
    length = x_type.shape[op.axis]
    if op.mode == "add":
        result = x.apply("CumSum", x, x.constant(op.axis, "int64"))
    elif x.dtype == "int64":
        result = prefix_product(x, op.axis, x_type.ndim, length)
    else:
        result = sequential_product(x, op.axis, x_type.ndim, length)
    return [result.cast(dtype).name]


# Repeat


def broadcast_counts(counts: Value, length: Value) -> Value:
    """``counts`` broadcast to ``length`` elements like NumPy (a single count
    is repeated); any other length mismatch reads zeros instead of failing."""
    n_counts = counts.shape()
    padded = concat([counts, counts.indices([0])], axis=0)
    in_range = minimum(arange(length.squeeze([0])), n_counts)
    return padded.take(where(n_counts.eq(n_counts.indices([1])), 0, in_range), axis=0)


@onnx_funcify.register(Repeat)
def onnx_funcify_Repeat(op, node, builder, inputs, **kwargs):
    x, counts = input_values(builder, node.inputs, inputs)
    counts = counts.cast("int64")
    length = x.shape(op.axis, op.axis + 1)
    if builder.keep_checks:
        builder.require(
            counts >= 0, ValueError, "repeats may not contain negative values."
        )
        n_counts = counts.shape()
        builder.require(
            n_counts.eq(length) | n_counts.eq(n_counts.indices([1])),
            ValueError,
            "repeats must have one element or one per element of the repeated axis",
        )
    # Invalid repeats still give valid positions, so that the checks can raise
    counts = broadcast_counts(maximum(counts, counts.constant(0)), length)
    return [x.take(run_positions(counts), axis=op.axis).name]


# Unique


def rows_to_subarrays(rows: Value, moved: Value, permutation) -> Value:
    """Reshape unique ``rows`` back to sub-arrays of ``moved`` along the original axis."""
    subarrays = rows.reshape(concat([rows.shape(0, 1), moved.shape(1)], axis=0))
    return subarrays.transpose(np.argsort(permutation).tolist())


@onnx_funcify.register(Unique)
def onnx_funcify_Unique(op, node, builder, inputs, **kwargs):
    [x] = input_values(builder, node.inputs, inputs)
    ndim = node.inputs[0].type.ndim
    # NumPy compares sub-arrays only for an axis of a 2+ dimensional array
    by_rows = op.axis is not None and ndim > 1
    if by_rows:
        permutation = [op.axis, *(i for i in range(ndim) if i != op.axis)]
        moved = x if op.axis == 0 else x.transpose(permutation)
        elements = moved.apply("Flatten", moved, axis=1)
        order = lexicographic_order(elements, argsort)
    else:
        elements = x.apply("Reshape", x, x.indices([-1]))
        order = argsort(elements)
    in_order = elements.take(order, axis=0)
    is_start = group_starts(in_order, by_rows)

    uniques = in_order.apply("Compress", in_order, is_start, axis=0)
    if by_rows:
        uniques = rows_to_subarrays(uniques, moved, permutation)
    return unique_outputs(op, uniques, order, is_start)


def argsort(x: Value) -> Value:
    """The stable sorting order of the vector ``x``."""
    return x.builder.value(stable_argsort(x.builder, x.name, x.dtype, 0), "int64")


# SearchsortedOp


@onnx_funcify.register(SearchsortedOp)
def onnx_funcify_SearchsortedOp(op, node, builder, inputs, **kwargs):
    # A binary search for all of `v` at once, in the common dtype of x and v
    dtype = np.result_type(*(var.type.dtype for var in node.inputs[:2])).name
    x, v = input_values(builder, node.inputs[:2], inputs[:2], dtype)
    if len(inputs) == 3:
        [sorter] = input_values(builder, node.inputs[2:], inputs[2:], "int64")
        x = x.take(sorter, axis=0)
    return [searchsorted(x, v, op.side, node.inputs[1].type.ndim).name]


# FillDiagonal, FillDiagonalOffset


def positions_along(x: Value, axis: int, ndim: int) -> Value:
    """The int64 index along ``axis`` of each element of ``x``, broadcastable to ``x``."""
    positions = arange(x.dim(axis))
    other_axes = [i for i in range(ndim) if i != axis]
    return positions.unsqueeze(other_axes) if other_axes else positions


@onnx_funcify.register(FillDiagonal)
def onnx_funcify_FillDiagonal(op, node, builder, inputs, **kwargs):
    a, value = input_values(builder, node.inputs, inputs)
    ndim = node.inputs[0].type.ndim
    rows = positions_along(a, 0, ndim)
    on_diagonal = rows.eq(positions_along(a, 1, ndim))
    for axis in range(2, ndim):
        on_diagonal = on_diagonal & rows.eq(positions_along(a, axis, ndim))
    if ndim > 2 and builder.keep_checks:
        builder.require(
            a.shape().eq(a.shape(0, 1)),
            ValueError,
            "All dimensions of input must be of equal length",
        )
    return [where(on_diagonal, value.cast(a.dtype), a).name]


def flat_slice_bounds(start: Value, end: Value, size: Value):
    """``start`` and ``end`` of ``flat[start:end]`` made explicit as Python does."""
    from_the_end = maximum(end + size, end.constant(0))
    return minimum(start, size), where(end < 0, from_the_end, minimum(end, size))


def in_flat_slice(flat: Value, start: Value, end: Value, step: Value) -> Value:
    """Whether the flat positions ``flat`` are in ``start:end:step`` (explicit bounds)."""
    from_start = flat - start
    on_step = from_start.apply("Mod", from_start, step, fmod=0).eq(0)
    return ((from_start >= 0) & (flat < end)) & on_step


@onnx_funcify.register(FillDiagonalOffset)
def onnx_funcify_FillDiagonalOffset(op, node, builder, inputs, **kwargs):
    # PyTensor assigns `a.flat[start:end:step] = val`. An offset beyond the
    # matrix makes `end` negative, which Python's slicing counts from the end.
    a, value, offset = input_values(builder, node.inputs, inputs)
    offset = offset.cast("int64")
    height, width = a.dim(0), a.dim(1)
    above = offset >= 0
    start = where(above, offset, -offset * width)
    available = where(above, width - offset, height + offset)
    n_steps = minimum(minimum(height, width), available)
    step = width + 1
    start, end = flat_slice_bounds(start, start + step * n_steps, height * width)
    rows, columns = (positions_along(a, axis, 2) for axis in (0, 1))
    selected = in_flat_slice(rows * width + columns, start, end, step)
    return [where(selected, value.cast(a.dtype), a).name]


# Bartlett


@onnx_funcify.register(Bartlett)
def onnx_funcify_Bartlett(op, node, builder, inputs, **kwargs):
    # numpy.bartlett, operation for operation
    [m] = input_values(builder, node.inputs, inputs, "float64")
    one = m.constant(1)
    n = m.apply("Range", one - m, m, m.constant(2))
    ratio = n / (m - one)
    window = where(n <= 0, one + ratio, one - ratio)
    # M == 1 divides 0 by 0 above; NumPy returns [1.0]
    return [where(m.eq(one), one, window).name]


# RavelMultiIndex, UnravelIndex


def dims_and_strides(dims: Value, n_dims: int, order: str):
    """The elements of the shape vector ``dims`` and the strides of that
    shape in ``order`` ("C" or "F"), as 0-d int64 values (exact products)."""
    dims = dims.cast("int64")
    lengths = [dims.take(i, axis=0) for i in range(n_dims)]
    fastest_first = lengths if order == "F" else lengths[::-1]
    strides = [dims.constant(1)]
    for length in fastest_first[:-1]:
        strides.append(strides[-1] * length)
    return lengths, strides if order == "F" else strides[::-1]


@onnx_funcify.register(RavelMultiIndex)
def onnx_funcify_RavelMultiIndex(op, node, builder, inputs, **kwargs):
    *multi_index, dims = input_values(builder, node.inputs, inputs)
    lengths, strides = dims_and_strides(dims, len(multi_index), op.order)
    if builder.keep_checks and op.mode != "raise":
        builder.require(
            concat([length.unsqueeze([0]) for length in lengths], axis=0) > 0,
            ValueError,
            "cannot unravel if shape has zero entries (is empty).",
        )
    flat = None
    for index, length, stride in zip(multi_index, lengths, strides, strict=True):
        term = bounded_index(index.cast("int64"), length, op.mode) * stride
        flat = term if flat is None else flat + term
    return [flat.name]


@onnx_funcify.register(UnravelIndex)
def onnx_funcify_UnravelIndex(op, node, builder, inputs, **kwargs):
    indices, dims = input_values(builder, node.inputs, inputs)
    lengths, strides = dims_and_strides(dims, len(node.outputs), op.order)
    indices = indices.cast("int64")
    if builder.keep_checks:
        slowest = 0 if op.order == "C" else -1
        message = "index out of bounds for the unraveled shape"
        require_in_range(indices, strides[slowest] * lengths[slowest], message)
    # An empty shape fails the check; Max avoids dividing by zero regardless
    return [
        (
            (indices / maximum(stride, stride.constant(1)))
            % maximum(length, length.constant(1))
        ).name
        for length, stride in zip(lengths, strides, strict=True)
    ]


@onnx_funcify.register(CpuContiguous)
def onnx_funcify_CpuContiguous(op, node, builder, inputs, **kwargs):
    return list(inputs)
