"""Converters for the Ops of ``pytensor.tensor.extra_ops``.

ONNX has a ``CumSum`` but no cumulative product, ``repeat``, ``searchsorted``
or NaN-aware ``unique``: those are built from ``Loop``s (doubling steps, a
binary search), prefix sums, scatters and a stable sort (`stable_argsort`),
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
from pytensor.link.onnx.dispatch.scalar import compare, is_float, where
from pytensor.link.onnx.dispatch.shape import (
    add_runtime_check,
    any_true,
    dim_size,
    int64_constant,
    int64_max,
    int64_min,
)
from pytensor.link.onnx.dispatch.sort import stable_argsort


INT64_MAX = int(np.iinfo(np.int64).max)


def to_scalar(builder, vector):
    """The only element of a one-element vector, as a 0-d tensor."""
    return builder.add("Squeeze", [vector, int64_constant(builder, [0])])


def arange(builder, length):
    """``numpy.arange(length)`` (int64) for a 0-d int64 ``length``."""
    zero, one = builder.constant(0, "int64"), builder.constant(1, "int64")
    return builder.add("Range", [zero, length, one], hint="arange")


def along_axis(builder, x, start, end=INT64_MAX, axis=0):
    """``x[start:end]`` along ``axis``.

    ``start`` and ``end`` are ints or int64 vectors of one element.
    """
    start, end = (
        int64_constant(builder, [bound]) if isinstance(bound, int) else bound
        for bound in (start, end)
    )
    return builder.add("Slice", [x, start, end, int64_constant(builder, [axis])])


def stack(builder, scalars):
    """A vector of the 0-d values ``scalars``."""
    axis = int64_constant(builder, [0])
    elements = [builder.add("Unsqueeze", [scalar, axis]) for scalar in scalars]
    return builder.add("Concat", elements, axis=0)


# CumOp


def accumulation_dtype(dtype):
    """The dtype of cumulative sums and products of ``dtype`` values.

    int64 arithmetic wraps to the same bits as every narrower or unsigned
    integer type, and casts to ``bool`` as the logical or/and would give.
    """
    return dtype if is_float(dtype) else "int64"


def multiply_shifted(builder, y, shift, axis, dtype):
    """``y`` times ``y`` shifted by ``shift`` along ``axis``, with ones shifted in.

    ``shift`` is an int64 vector of one element.
    """
    length = dim_size(builder, y, axis)
    head = along_axis(builder, y, 0, builder.add("Sub", [length, shift]), axis)
    pads = builder.add("Concat", [shift, int64_constant(builder, [0])], axis=0)
    one = builder.constant(1, dtype)
    axes = int64_constant(builder, [axis])
    shifted = builder.add("Pad", [head, pads, one, axes], hint="shifted")
    return builder.add("Mul", [y, shifted], hint="partial_products")


def doubling_loop_body(builder, axis, ndim, dtype):
    """The body of a ``Loop`` doing one step of `prefix_product`."""
    body = builder.loop_body()
    y = body.add_input("partial_products", dtype, (None,) * ndim)
    shift = body.add_input("shift", "int64", (1,))
    product = multiply_shifted(body, y, shift, axis, dtype)
    doubled = body.add("Add", [shift, shift], hint="shift")
    more = body.add("Less", [doubled, dim_size(body, y, axis)])
    body.add_output(to_scalar(body, more), "more", "bool", ())
    body.add_output(product, "partial_products", dtype, (None,) * ndim)
    body.add_output(doubled, "shift", "int64", (1,))
    return body.make_model("prefix_product_body").graph


def prefix_product(builder, x, axis, ndim, dtype, length):
    """The cumulative product of ``x`` along ``axis`` (Hillis-Steele doubling).

    Step ``k`` multiplies every element by the element ``2**k`` before it, so
    ``ceil(log2(length))`` steps suffice: unrolled if ``length`` is known,
    else a ``Loop``.
    """
    if length is not None:
        shift = 1
        while shift < length:
            shift_vector = int64_constant(builder, [shift])
            x = multiply_shifted(builder, x, shift_vector, axis, dtype)
            shift *= 2
        return x
    longer_than_one = builder.add(
        "Greater", [dim_size(builder, x, axis), int64_constant(builder, [1])]
    )
    product, _ = builder.add_multi(
        "Loop",
        ["", to_scalar(builder, longer_than_one), x, int64_constant(builder, [1])],
        n_outputs=2,
        body=doubling_loop_body(builder, axis, ndim, dtype),
        hint="cumprod",
    )
    return product


@onnx_funcify.register(CumOp)
def onnx_funcify_CumOp(op, node, builder, inputs, **kwargs):
    # The result has the input's dtype, wrapping like NumPy's fixed-width
    # arithmetic (NumPy's own cumsum would return int64 for small integers).
    [x] = inputs
    x_type = node.inputs[0].type
    dtype = node.outputs[0].type.dtype
    compute = accumulation_dtype(dtype)
    x = builder.cast(x, x_type.dtype, compute)
    if op.mode == "add":
        result = builder.add("CumSum", [x, builder.constant(op.axis, "int64")])
    else:
        length = x_type.shape[op.axis]
        result = prefix_product(builder, x, op.axis, x_type.ndim, compute, length)
    return [builder.cast(result, compute, dtype)]


# Repeat


def broadcast_counts(builder, counts, length):
    """``counts`` broadcast to ``length`` elements like NumPy (a single count
    is repeated); any other length mismatch reads zeros instead of failing."""
    n_counts = builder.add("Shape", [counts])
    padded = builder.add("Concat", [counts, int64_constant(builder, [0])], axis=0)
    single = builder.add("Equal", [n_counts, int64_constant(builder, [1])])
    in_range = int64_min(builder, arange(builder, to_scalar(builder, length)), n_counts)
    index = builder.add("Where", [single, builder.constant(0, "int64"), in_range])
    return builder.add("Gather", [padded, index], hint="counts")


def source_positions(builder, counts):
    """``numpy.repeat(numpy.arange(len(counts)), counts)`` for non-negative int64 ``counts``.

    Marks where each element's run ends with a scatter-add; the number of
    marks at or before a position is the element it repeats.
    """
    axis = builder.constant(0, "int64")
    ends = builder.add("CumSum", [counts, axis], hint="ends")
    with_zero = builder.add("Concat", [int64_constant(builder, [0]), ends], axis=0)
    total = along_axis(builder, with_zero, -1)
    length = builder.add("Add", [total, int64_constant(builder, [1])])
    zeros = builder.add("Expand", [builder.constant(0, "int64"), length])
    ones = builder.add(
        "Expand", [builder.constant(1, "int64"), builder.add("Shape", [ends])]
    )
    marks = builder.add("ScatterElements", [zeros, ends, ones], reduction="add")
    marks = along_axis(builder, marks, 0, total)
    return builder.add("CumSum", [marks, axis], hint="source")


@onnx_funcify.register(Repeat)
def onnx_funcify_Repeat(op, node, builder, inputs, **kwargs):
    x, repeats = inputs
    length = dim_size(builder, x, op.axis)
    counts = builder.cast(repeats, node.inputs[1].type.dtype, "int64")
    zero = builder.constant(0, "int64")
    if builder.keep_checks:
        add_runtime_check(
            builder,
            builder.add("GreaterOrEqual", [counts, zero]),
            ValueError,
            "repeats may not contain negative values.",
        )
        n_counts = builder.add("Shape", [counts])
        one_per_element = builder.add("Equal", [n_counts, length])
        single = builder.add("Equal", [n_counts, int64_constant(builder, [1])])
        add_runtime_check(
            builder,
            builder.add("Or", [one_per_element, single]),
            ValueError,
            "repeats must have one element or one per element of the repeated axis",
        )
    # Invalid repeats still give valid positions, so that the checks can raise
    counts = broadcast_counts(builder, int64_max(builder, counts, zero), length)
    source = source_positions(builder, counts)
    return [builder.add("Gather", [x, source], axis=op.axis, hint="repeated")]


# Unique


def rows_order_loop_body(builder, rows, n_columns, dtype):
    """The body of a ``Loop`` stably sorting row indices by one more column,
    from the last column to the first."""
    body = builder.loop_body()
    [iteration, condition] = [info.name for info in body.inputs]
    order = body.add_input("rows_order", "int64", (None,))
    from_the_end = body.add("Sub", [n_columns, iteration])
    column_index = body.add("Sub", [from_the_end, body.constant(1, "int64")])
    column = body.add("Gather", [rows, column_index], axis=1, hint="column")
    key = body.add("Gather", [column, order], hint="key")
    new_order = body.add("Gather", [order, stable_argsort(body, key, dtype, 0)])
    body.add_output(body.add("Identity", [condition]), "condition", "bool", ())
    body.add_output(new_order, "rows_order", "int64", (None,))
    return body.make_model("rows_order_body").graph


def lexicographic_order(builder, rows, dtype):
    """The stable lexicographic order of the rows of the matrix ``rows``.

    One stable sort per column, from the last column to the first.
    """
    n_rows = to_scalar(builder, builder.add("Shape", [rows], end=1))
    n_columns = to_scalar(builder, builder.add("Shape", [rows], start=1, end=2))
    body = rows_order_loop_body(builder, rows, n_columns, dtype)
    return builder.add(
        "Loop", [n_columns, "", arange(builder, n_rows)], body=body, hint="order"
    )


def starts_new_group(builder, in_order, dtype, by_rows):
    """Whether each element (row) of the sorted ``in_order`` differs from the previous.

    NaN elements are equal, like ``numpy.unique``'s ``equal_nan=True``; rows
    with NaN are compared elementwise, like NumPy's structured arrays.
    """
    previous, current = (
        along_axis(builder, in_order, 0, -1),
        along_axis(builder, in_order, 1),
    )
    differs = builder.add("Not", [builder.add("Equal", [current, previous])])
    if by_rows:
        differs = any_true(builder, differs, axis=1)
    elif is_float(dtype):
        both_nan = builder.add(
            "And", [builder.add("IsNaN", [current]), builder.add("IsNaN", [previous])]
        )
        differs = builder.add("And", [differs, builder.add("Not", [both_nan])])
    first = builder.constant([True], "bool")
    length = builder.add("Shape", [in_order], end=1)
    return along_axis(
        builder, builder.add("Concat", [first, differs], axis=0), 0, length
    )


def move_axis_first(builder, x, axis, ndim):
    """``x`` with ``axis`` moved first, and the permutation of axes that did it."""
    permutation = [axis, *(i for i in range(ndim) if i != axis)]
    if axis == 0:
        return x, permutation
    return builder.add("Transpose", [x], perm=permutation), permutation


def rows_to_subarrays(builder, rows, moved, permutation):
    """Reshape unique ``rows`` back to sub-arrays of ``moved`` along the original axis."""
    n_rows = builder.add("Shape", [rows], end=1)
    shape = builder.add(
        "Concat", [n_rows, builder.add("Shape", [moved], start=1)], axis=0
    )
    subarrays = builder.add("Reshape", [rows, shape], allowzero=1)
    inverse = np.argsort(permutation).tolist()
    return builder.add("Transpose", [subarrays], perm=inverse, hint="unique")


def group_counts(builder, is_start):
    """The length of each group of elements, given where the groups start."""
    positions = arange(builder, to_scalar(builder, builder.add("Shape", [is_start])))
    starts = builder.add("Compress", [positions, is_start], axis=0)
    length = builder.add("Shape", [is_start])
    next_starts = builder.add(
        "Concat", [along_axis(builder, starts, 1), length], axis=0
    )
    return builder.add("Sub", [next_starts, starts], hint="counts")


def group_of_each_element(builder, is_start, order):
    """The group of each element in the original order (``unique``'s inverse)."""
    as_int64 = builder.cast(is_start, "bool", "int64")
    count = builder.add("CumSum", [as_int64, builder.constant(0, "int64")])
    group_in_order = builder.add("Sub", [count, builder.constant(1, "int64")])
    # order is a permutation: scatter every element back to its position
    return builder.add("ScatterElements", [group_in_order, order, group_in_order])


@onnx_funcify.register(Unique)
def onnx_funcify_Unique(op, node, builder, inputs, **kwargs):
    [x] = inputs
    dtype, ndim = node.inputs[0].type.dtype, node.inputs[0].type.ndim
    # NumPy compares sub-arrays only for an axis of a 2+ dimensional array
    by_rows = op.axis is not None and ndim > 1
    if by_rows:
        moved, permutation = move_axis_first(builder, x, op.axis, ndim)
        elements = builder.add("Flatten", [moved], axis=1, hint="rows")
        order = lexicographic_order(builder, elements, dtype)
    else:
        elements = builder.add("Reshape", [x, int64_constant(builder, [-1])])
        order = stable_argsort(builder, elements, dtype, 0)
    in_order = builder.add("Gather", [elements, order], axis=0, hint="sorted")
    is_start = starts_new_group(builder, in_order, dtype, by_rows)

    uniques = builder.add("Compress", [in_order, is_start], axis=0, hint="unique")
    if by_rows:
        uniques = rows_to_subarrays(builder, uniques, moved, permutation)
    outputs = [uniques]
    if op.return_index:
        outputs.append(builder.add("Compress", [order, is_start], axis=0, hint="index"))
    if op.return_inverse:
        outputs.append(group_of_each_element(builder, is_start, order))
    if op.return_counts:
        outputs.append(group_counts(builder, is_start))
    return outputs


# SearchsortedOp


def sorts_before(builder, a, b, dtype):
    """``a < b`` in NumPy's sort order, where NaN is above everything else."""
    less = compare(builder, "Less", a, b, dtype)
    if not is_float(dtype):
        return less
    only_b_is_nan = builder.add(
        "And",
        [builder.add("IsNaN", [b]), builder.add("Not", [builder.add("IsNaN", [a])])],
    )
    return builder.add("Or", [less, only_b_is_nan])


def bisection_loop_body(builder, x, v, last, dtype, side, shape):
    """The body of a ``Loop`` halving the ``[low, high)`` ranges of ``searchsorted``."""
    body = builder.loop_body()
    low = body.add_input("low", "int64", shape)
    high = body.add_input("high", "int64", shape)
    middle = body.add("Div", [body.add("Add", [low, high]), body.constant(2, "int64")])
    pivot = body.add("Gather", [x, int64_min(body, middle, last)], hint="pivot")
    if side == "left":
        go_right = sorts_before(body, pivot, v, dtype)
    else:
        go_right = body.add("Not", [sorts_before(body, v, pivot, dtype)])
    active = body.add("Less", [low, high])
    step_right = body.add("And", [active, go_right])
    step_left = body.add("And", [active, body.add("Not", [go_right])])
    after_middle = body.add("Add", [middle, body.constant(1, "int64")])
    low = body.add("Where", [step_right, after_middle, low], hint="low")
    high = body.add("Where", [step_left, middle, high], hint="high")
    body.add_output(any_true(body, body.add("Less", [low, high])), "more", "bool", ())
    body.add_output(low, "low", "int64", shape)
    body.add_output(high, "high", "int64", shape)
    return body.make_model("bisection_body").graph


@onnx_funcify.register(SearchsortedOp)
def onnx_funcify_SearchsortedOp(op, node, builder, inputs, **kwargs):
    # A binary search for all of `v` at once, in the common dtype of x and v
    x, v, *sorter = inputs
    x_var, v_var = node.inputs[:2]
    dtype = str(np.result_type(x_var.type.dtype, v_var.type.dtype))
    x = builder.cast(x, x_var.type.dtype, dtype)
    v = builder.cast(v, v_var.type.dtype, dtype)
    if sorter:
        indices = builder.cast(sorter[0], node.inputs[2].type.dtype, "int64")
        x = builder.add("Gather", [x, indices], axis=0)
    length = to_scalar(builder, builder.add("Shape", [x]))
    last = builder.add("Sub", [length, builder.constant(1, "int64")])
    v_shape = builder.add("Shape", [v])
    low = builder.add("Expand", [builder.constant(0, "int64"), v_shape], hint="low")
    high = builder.add("Expand", [length, v_shape], hint="high")
    shape = (None,) * v_var.type.ndim
    low, _ = builder.add_multi(
        "Loop",
        ["", any_true(builder, builder.add("Less", [low, high])), low, high],
        n_outputs=2,
        body=bisection_loop_body(builder, x, v, last, dtype, op.side, shape),
        hint="indices",
    )
    return [low]


# FillDiagonal, FillDiagonalOffset


def positions_along(builder, x, axis, ndim):
    """The int64 index along ``axis`` of each element of ``x``, broadcastable to ``x``."""
    positions = arange(builder, to_scalar(builder, dim_size(builder, x, axis)))
    other_axes = [i for i in range(ndim) if i != axis]
    if not other_axes:
        return positions
    return builder.add("Unsqueeze", [positions, int64_constant(builder, other_axes)])


@onnx_funcify.register(FillDiagonal)
def onnx_funcify_FillDiagonal(op, node, builder, inputs, **kwargs):
    a, value = inputs
    dtype, ndim = node.inputs[0].type.dtype, node.inputs[0].type.ndim
    rows = positions_along(builder, a, 0, ndim)
    on_diagonal = builder.add("Equal", [rows, positions_along(builder, a, 1, ndim)])
    for axis in range(2, ndim):
        same = builder.add("Equal", [rows, positions_along(builder, a, axis, ndim)])
        on_diagonal = builder.add("And", [on_diagonal, same])
    if ndim > 2 and builder.keep_checks:
        shape, first = builder.add("Shape", [a]), builder.add("Shape", [a], end=1)
        add_runtime_check(
            builder,
            builder.add("Equal", [shape, first]),
            ValueError,
            "All dimensions of input must be of equal length",
        )
    return [where(builder, on_diagonal, value, a, dtype)]


def flat_slice_bounds(builder, start, end, size):
    """``start`` and ``end`` of ``flat[start:end]`` made explicit as Python does."""
    zero = builder.constant(0, "int64")
    start = int64_min(builder, start, size)
    from_the_end = int64_max(builder, builder.add("Add", [end, size]), zero)
    is_negative = builder.add("Less", [end, zero])
    end = builder.add(
        "Where", [is_negative, from_the_end, int64_min(builder, end, size)]
    )
    return start, end


def in_flat_slice(builder, flat, start, end, step):
    """Whether the flat positions ``flat`` are in ``start:end:step`` (explicit bounds)."""
    from_start = builder.add("Sub", [flat, start])
    zero = builder.constant(0, "int64")
    on_step = builder.add(
        "Equal", [builder.add("Mod", [from_start, step], fmod=0), zero]
    )
    after_start = builder.add("GreaterOrEqual", [from_start, zero])
    before_end = builder.add("Less", [flat, end])
    return builder.add("And", [builder.add("And", [after_start, before_end]), on_step])


@onnx_funcify.register(FillDiagonalOffset)
def onnx_funcify_FillDiagonalOffset(op, node, builder, inputs, **kwargs):
    # PyTensor assigns `a.flat[start:end:step] = val`. An offset beyond the
    # matrix makes `end` negative, which Python's slicing counts from the end.
    a, value, offset = inputs
    offset = builder.cast(offset, node.inputs[2].type.dtype, "int64")
    height = to_scalar(builder, dim_size(builder, a, 0))
    width = to_scalar(builder, dim_size(builder, a, 1))
    above = builder.add("GreaterOrEqual", [offset, builder.constant(0, "int64")])
    below_start = builder.add("Mul", [builder.add("Neg", [offset]), width])
    start = builder.add("Where", [above, offset, below_start])
    available = builder.add(
        "Where",
        [
            above,
            builder.add("Sub", [width, offset]),
            builder.add("Add", [height, offset]),
        ],
    )
    n_steps = int64_min(builder, int64_min(builder, height, width), available)
    step = builder.add("Add", [width, builder.constant(1, "int64")])
    end = builder.add("Add", [start, builder.add("Mul", [step, n_steps])])
    size = builder.add("Mul", [height, width])
    start, end = flat_slice_bounds(builder, start, end, size)

    rows, columns = (positions_along(builder, a, axis, 2) for axis in (0, 1))
    flat = builder.add("Add", [builder.add("Mul", [rows, width]), columns])
    selected = in_flat_slice(builder, flat, start, end, step)
    return [where(builder, selected, value, a, node.inputs[0].type.dtype)]


# Bartlett


@onnx_funcify.register(Bartlett)
def onnx_funcify_Bartlett(op, node, builder, inputs, **kwargs):
    # numpy.bartlett, operation for operation
    [m] = inputs
    m = builder.cast(m, node.inputs[0].type.dtype, "float64")
    zero, one, two = (builder.constant(v, "float64") for v in (0, 1, 2))
    n = builder.add("Range", [builder.add("Sub", [one, m]), m, two])
    ratio = builder.add("Div", [n, builder.add("Sub", [m, one])])
    rising = builder.add("LessOrEqual", [n, zero])
    window = builder.add(
        "Where",
        [rising, builder.add("Add", [one, ratio]), builder.add("Sub", [one, ratio])],
    )
    # M == 1 divides 0 by 0 above; NumPy returns [1.0]
    is_one = builder.add("Equal", [m, one])
    return [builder.add("Where", [is_one, one, window], hint="bartlett")]


# RavelMultiIndex, UnravelIndex


def dims_and_strides(builder, dims, dims_dtype, n_dims, order):
    """The elements of the shape vector ``dims`` and the strides of that
    shape in ``order`` ("C" or "F"), as 0-d int64 values (exact products)."""
    dims = builder.cast(dims, dims_dtype, "int64")
    lengths = [
        builder.add("Gather", [dims, builder.constant(i, "int64")], hint="dim")
        for i in range(n_dims)
    ]
    fastest_first = lengths if order == "F" else lengths[::-1]
    strides = [builder.constant(1, "int64")]
    for length in fastest_first[:-1]:
        strides.append(builder.add("Mul", [strides[-1], length], hint="stride"))
    return lengths, strides if order == "F" else strides[::-1]


def check_in_range(builder, index, end, message):
    """Make the function raise ``ValueError(message)`` unless ``0 <= index < end``."""
    if not builder.keep_checks:
        return
    in_range = builder.add(
        "And",
        [
            builder.add("GreaterOrEqual", [index, builder.constant(0, "int64")]),
            builder.add("Less", [index, end]),
        ],
    )
    add_runtime_check(builder, in_range, ValueError, message)


def bounded_index(builder, index, length, mode):
    """``index`` wrapped or clipped into ``[0, length)`` as ``numpy.ravel_multi_index``'s ``mode``."""
    if mode == "raise":
        check_in_range(builder, index, length, "invalid entry in coordinates array")
        return index
    one = builder.constant(1, "int64")
    if mode == "wrap":
        return builder.add("Mod", [index, int64_max(builder, length, one)], fmod=0)
    last = builder.add("Sub", [length, one])
    clipped_above = int64_min(builder, index, last)
    return int64_max(builder, clipped_above, builder.constant(0, "int64"))


@onnx_funcify.register(RavelMultiIndex)
def onnx_funcify_RavelMultiIndex(op, node, builder, inputs, **kwargs):
    *multi_index, dims = inputs
    lengths, strides = dims_and_strides(
        builder, dims, node.inputs[-1].type.dtype, len(multi_index), op.order
    )
    if builder.keep_checks and op.mode != "raise":
        add_runtime_check(
            builder,
            builder.add(
                "Greater", [stack(builder, lengths), builder.constant(0, "int64")]
            ),
            ValueError,
            "cannot unravel if shape has zero entries (is empty).",
        )
    flat = None
    for index, var, length, stride in zip(
        multi_index, node.inputs[:-1], lengths, strides, strict=True
    ):
        index = builder.cast(index, var.type.dtype, "int64")
        index = bounded_index(builder, index, length, op.mode)
        term = builder.add("Mul", [index, stride])
        flat = term if flat is None else builder.add("Add", [flat, term])
    return [flat]


@onnx_funcify.register(UnravelIndex)
def onnx_funcify_UnravelIndex(op, node, builder, inputs, **kwargs):
    indices, dims = inputs
    lengths, strides = dims_and_strides(
        builder, dims, node.inputs[1].type.dtype, len(node.outputs), op.order
    )
    indices = builder.cast(indices, node.inputs[0].type.dtype, "int64")
    if builder.keep_checks:
        slowest = 0 if op.order == "C" else -1
        size = builder.add("Mul", [strides[slowest], lengths[slowest]])
        message = "index out of bounds for the unraveled shape"
        check_in_range(builder, indices, size, message)
    one = builder.constant(1, "int64")
    # An empty shape fails the check; Max avoids dividing by zero regardless
    return [
        builder.add(
            "Mod",
            [
                builder.add("Div", [indices, int64_max(builder, stride, one)]),
                int64_max(builder, length, one),
            ],
            fmod=0,
            hint="coordinate",
        )
        for length, stride in zip(lengths, strides, strict=True)
    ]


@onnx_funcify.register(CpuContiguous)
def onnx_funcify_CpuContiguous(op, node, builder, inputs, **kwargs):
    return list(inputs)
