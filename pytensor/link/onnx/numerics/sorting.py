"""Algorithms on sorted values: binary search, lexicographic order, groups.

`searchsorted` runs one bisection for all the searched values at once;
`lexicographic_order` sorts the rows of a matrix with one stable sort per
column; `group_starts`, `group_counts` and `group_of_each_element` read the
groups of equal elements of a sorted array (``numpy.unique``). NaN sort
after every other value, as in NumPy.
"""

import numpy as np
from pytensor.tensor.extra_ops import Unique

from pytensor.link.onnx.kernels import widened_kernel_dtype
from pytensor.link.onnx.numerics.ordered_dtypes import ordered
from pytensor.link.onnx.value import Value, arange, concat, minimum, where


def is_float(value: Value) -> bool:
    return np.dtype(value.dtype).kind == "f"


def sorts_before(a: Value, b: Value) -> Value:
    """``a < b`` in NumPy's sort order, where NaN is above everything else."""
    if a.dtype == "bool":
        a, b = a.cast("uint8"), b.cast("uint8")
    less = a < b
    if not is_float(a):
        return less
    return less | (b.isnan() & ~a.isnan())


def bisection_loop_body(x: Value, v: Value, last: Value, side: str, shape, before):
    """The body of a ``Loop`` halving the ``[low, high)`` ranges of `searchsorted`."""
    body = x.builder.loop_body()
    low, high = (
        body.value(body.add_input(name, "int64", shape), "int64")
        for name in ("low", "high")
    )
    middle = (low + high) / 2
    pivot = x.into(body).take(minimum(middle, last.into(body)), axis=0)
    v = v.into(body)
    go_right = before(pivot, v) if side == "left" else ~before(v, pivot)
    active = low < high
    low = where(active & go_right, middle + 1, low)
    high = where(active & ~go_right, middle, high)
    body.add_output((low < high).any().name, "more", "bool", ())
    body.add_output(low.name, "low", "int64", shape)
    body.add_output(high.name, "high", "int64", shape)
    return body.make_model("bisection_body").graph


def searchsorted(
    x: Value, v: Value, side: str, v_ndim: int, before=sorts_before
) -> Value:
    """``numpy.searchsorted(x, v, side)`` for a sorted vector ``x`` of ``v``'s dtype.

    ``v_ndim`` is the number of dimensions of ``v`` (the leading ones if
    ``before``, ``a < b`` in the sort order, compares values along more, as
    complex numbers held as real pairs).
    """
    length = x.shape(0, 1).squeeze([0])
    v_shape = v.shape(0, v_ndim)
    low = length.constant(0).expand(v_shape)
    high = length.expand(v_shape)
    shape = (None,) * v_ndim
    low, _ = low.apply_multi(
        "Loop",
        None,
        (low < high).any(),
        low,
        high,
        dtypes=("int64", "int64"),
        body=bisection_loop_body(x, v, length - 1, side, shape, before),
    )
    return low


def rows_order_loop_body(rows: Value, n_columns: Value, argsort):
    """The body of a ``Loop`` stably sorting row indices by one more column,
    from the last column to the first."""
    body = rows.builder.loop_body()
    iteration, condition = (
        body.value(info.name, dtype)
        for info, dtype in zip(body.inputs, ("int64", "bool"), strict=True)
    )
    order = body.value(body.add_input("rows_order", "int64", (None,)), "int64")
    column = rows.into(body).take(n_columns.into(body) - iteration - 1, axis=1)
    key = column.take(order, axis=0)
    new_order = order.take(argsort(key), axis=0)
    body.add_output(
        condition.apply("Identity", condition).name, "condition", "bool", ()
    )
    body.add_output(new_order.name, "rows_order", "int64", (None,))
    return body.make_model("rows_order_body").graph


def lexicographic_order(rows: Value, argsort) -> Value:
    """The stable lexicographic order of the rows of the matrix ``rows``.

    One stable sort per column, from the last column to the first;
    ``argsort`` maps a vector of ``rows``' dtype to its stable sorting order.
    """
    n_rows = rows.shape(0, 1).squeeze([0])
    n_columns = rows.shape(1, 2).squeeze([0])
    body = rows_order_loop_body(rows, n_columns, argsort)
    return n_columns.apply("Loop", n_columns, None, arange(n_rows), body=body)


def group_starts(in_order: Value, by_rows: bool) -> Value:
    """Whether each element (row) of the sorted ``in_order`` differs from the previous.

    NaN elements are equal, like ``numpy.unique``'s ``equal_nan=True``; rows
    with NaN are compared elementwise, like NumPy's structured arrays.
    """
    previous, current = in_order.slice(0, -1, 0), in_order.slice(1)
    differs = current.ne(previous)
    if by_rows:
        differs = differs.any_along([1], keepdims=False)
    elif is_float(in_order):
        differs = differs & ~(current.isnan() & previous.isnan())
    first = in_order.constant([True], "bool")
    return concat([first, differs], axis=0).slice(0, in_order.shape(0, 1), 0)


def group_counts(is_start: Value) -> Value:
    """The length of each group of elements, given where the groups start."""
    length = is_start.shape()
    positions = arange(length.squeeze([0]))
    starts = positions.apply("Compress", positions, is_start, axis=0)
    return concat([starts.slice(1), length], axis=0) - starts


def group_of_each_element(is_start: Value, order: Value) -> Value:
    """The group of each element in the original order (``unique``'s inverse)."""
    as_int64 = is_start.cast("int64")
    group_in_order = as_int64.apply("CumSum", as_int64, as_int64.constant(0)) - 1
    # order is a permutation: scatter every element back to its position
    return group_in_order.apply(
        "ScatterElements", group_in_order, order, group_in_order
    )


def sort_key(builder, x, dtype):
    """Values with a TopK kernel that order like ``x``; NaN keys are +inf."""
    if np.dtype(dtype).kind == "f":
        x = builder.value(x, dtype)
        return where(x.isnan(), np.inf, x).name
    if dtype == "uint64":
        return ordered(builder, x, dtype, "TopK")[0]
    return builder.cast(x, dtype, widened_kernel_dtype("TopK", dtype, builder.opset))


def ascending_order(builder, key, axis):
    """The stable ascending order of ``key`` along ``axis``.

    ONNX's TopK breaks ties by the lower index, so it is a stable sort for
    keys without NaN.
    """
    length = builder.add("Shape", [key], start=axis, end=axis + 1, hint="dim")
    _, order = builder.add_multi(
        "TopK", [key, length], n_outputs=2, axis=axis, largest=0, sorted=1
    )
    return order


def stable_argsort(builder, x, dtype, axis):
    """``numpy.argsort(x, axis, kind="stable")`` of the ``dtype`` tensor ``x``.

    NaN sort last, in their order in ``x``, as in NumPy.

    Parameters
    ----------
    builder
        The ``ONNXGraphBuilder`` of the model.
    x
        Name of the tensor to sort.
    dtype
        Its dtype.
    axis
        The non-negative axis to sort along.

    Returns
    -------
    str
        Name of the int64 indices that sort ``x`` along ``axis``.
    """
    order = ascending_order(builder, sort_key(builder, x, dtype), axis)
    if np.dtype(dtype).kind != "f":
        return order
    # The keys of NaN and +inf are equal: move NaN after +inf, keeping the order
    is_nan = builder.cast(builder.add("IsNaN", [x]), "bool", "uint8")
    is_nan_in_order = builder.add("GatherElements", [is_nan, order], axis=axis)
    nan_last = ascending_order(builder, is_nan_in_order, axis)
    return builder.add("GatherElements", [order, nan_last], axis=axis, hint="argsort")


def unique_outputs(op: Unique, uniques: Value, order: Value, is_start: Value):
    """The outputs of ``op`` given the ``uniques``, the stable sorting
    ``order`` and where in it each group of equal elements starts."""
    outputs = [uniques]
    if op.return_index:
        outputs.append(order.apply("Compress", order, is_start, axis=0))
    if op.return_inverse:
        outputs.append(group_of_each_element(is_start, order))
    if op.return_counts:
        outputs.append(group_counts(is_start))
    return [output.name for output in outputs]
