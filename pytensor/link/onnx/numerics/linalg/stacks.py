"""Building blocks on stacks of matrices ``(batch, rows, columns)``.

Every algorithm of `pytensor.link.onnx.numerics.linalg` works on a stack, so
that one graph serves one matrix (a stack of one) and a batch of them.
"""

import numpy as np

from pytensor.link.onnx.value import Value, arange, concat, where


def mT(x: Value) -> Value:
    """The transpose of each matrix of the stack ``x``."""
    return x.transpose([0, 2, 1])


def full(x: Value, value, dims) -> Value:
    """An array of ``value`` (of ``x``'s dtype) shaped ``(batch of x, *dims)``.

    ``dims`` are ints or int64 vectors of one element.
    """
    return x.constant(value, x.dtype).expand(stack_shape(x, *dims))


def stack_shape(x: Value, *dims) -> Value:
    """The shape ``(batch of x, *dims)``; ``dims`` are ints or int64 vectors of one element."""
    batch = x.shape(0, 1)
    return concat(
        [
            batch,
            *(batch.indices([dim]) if isinstance(dim, int) else dim for dim in dims),
        ],
        axis=0,
    )


def positions(length: Value, axis: int) -> Value:
    """``arange(length)`` along ``axis`` of an array of rank 3 with other lengths 1."""
    return arange(length).unsqueeze([other for other in range(3) if other != axis])


def diagonal_mask(rows: Value, columns: Value) -> Value:
    """Whether each element of a ``(1, rows, columns)`` matrix is on its diagonal."""
    return positions(rows, 1).eq(positions(columns, 2))


def identity(rows: Value, columns: Value, dtype) -> Value:
    """The ``(1, rows, columns)`` identity matrix for 0-d int64 lengths."""
    return diagonal_mask(rows, columns).cast(dtype)


def static_masks(x: Value, size: int):
    """The masks of the diagonal and of the lower triangle of ``(1, size,
    size)`` matrices, as constants of ``x``'s graph."""
    return (
        x.constant(np.eye(size, dtype=bool)[None], "bool"),
        x.constant(np.tri(size, dtype=bool)[None], "bool"),
    )


def diagonal(x: Value, axis: int, size: int | None = None) -> Value:
    """The diagonal of the square stack ``x`` (of ``size`` rows if static) as
    columns (``axis=2``) or rows (1)."""
    if size is not None:
        return where(static_masks(x, size)[0], x, 0).sum([axis])
    n = x.dim(1)
    return where(diagonal_mask(n, n), x, 0).sum([axis])


def off_diagonal(x: Value) -> Value:
    """Whether each element of the square stack ``x`` is off its diagonal."""
    n = x.dim(1)
    return ~diagonal_mask(n, n)


def has_zero_on_diagonal(t: Value) -> Value:
    """Whether the diagonal of each stack has a zero, ``(batch, 1, 1)`` bool."""
    return diagonal(t, 2).eq(0).any_along([1])


def lower_triangle(x: Value, strict=False) -> Value:
    rows, columns = positions(x.dim(1), 1), positions(x.dim(2), 2)
    return where(rows > columns if strict else rows >= columns, x, 0)


def upper_triangle(x: Value, strict=False) -> Value:
    rows, columns = positions(x.dim(1), 1), positions(x.dim(2), 2)
    return where(rows < columns if strict else rows <= columns, x, 0)


def tridiagonal_band(x: Value) -> Value:
    """``x`` with zeros outside its diagonal and the two next to it."""
    rows, columns = positions(x.dim(1), 1), positions(x.dim(2), 2)
    return where(abs(rows - columns) <= 1, x, 0)


def symmetric_from(x: Value, lower: bool) -> Value:
    """The symmetric matrix with the lower (or upper) triangle of ``x``."""
    triangle = lower_triangle(x) if lower else upper_triangle(x)
    strict = lower_triangle(x, strict=True) if lower else upper_triangle(x, True)
    return triangle + mT(strict)


def gradient_of_triangle(gradient: Value, lower: bool) -> Value:
    """The gradient with respect to the triangle that `symmetric_from` reads."""
    if lower:
        return lower_triangle(gradient) + mT(upper_triangle(gradient, strict=True))
    return upper_triangle(gradient) + mT(lower_triangle(gradient, strict=True))


def none_of(x: Value) -> Value:
    """``False`` for each stack of ``x``, a ``(batch, 1, 1)`` bool."""
    return x.constant(False, "bool").expand(stack_shape(x, 1, 1))


def nan_where(condition: Value, x: Value) -> Value:
    """``x`` with NaN in the stacks where ``condition`` (a ``(batch, 1, 1)`` bool) holds."""
    return where(condition, np.nan, x)


def sort(x: Value, n: Value, ascending: bool):
    """The rows ``(batch, 1, n)`` of ``x`` sorted, and the order that sorts them."""
    return x.apply_multi(
        "TopK",
        x,
        n.unsqueeze([0]),
        dtypes=(x.dtype, "int64"),
        axis=2,
        largest=int(not ascending),
        sorted=1,
    )


def loop(trip_count: Value, states, step, *, more=None, hint="loop"):
    """Run ``step`` in an ONNX ``Loop`` and return the final ``states``, followed
    by its scan outputs.

    Parameters
    ----------
    trip_count
        A 0-d int64 array: the number of iterations (at most, with ``more``).
    states
        Arrays of rank 3 that the iterations update.
    step
        ``step(iteration, *states)`` adds the nodes of one iteration to the
        loop body, in which values of the enclosing graph must be read
        through `Value.into`, and returns the new states, preceded by a 0-d
        bool (whether to go on) if ``more`` is given, and followed by the scan
        outputs of the iteration: arrays of rank 3 of one shape in every
        iteration, returned stacked along a new leading axis.
    more
        A 0-d bool array: whether to run the first iteration.
    """
    builder = states[0].builder
    body = builder.loop_body(f"{hint}_body")
    iteration, condition = (
        body.value(info.name, dtype)
        for info, dtype in zip(body.inputs, ("int64", "bool"), strict=True)
    )
    inner = [
        body.value(body.add_input(hint, state.dtype, (None,) * 3), state.dtype)
        for state in states
    ]
    results = list(step(iteration, *inner))
    if more is not None:
        condition, *results = results
    body.add_output(condition.name, "more", "bool", ())
    for result in results:
        body.add_output(result.name, hint, result.dtype, (None,) * 3)
    outputs = builder.add_multi(
        "Loop",
        [trip_count.name, "" if more is None else more.name]
        + [state.name for state in states],
        n_outputs=len(results),
        body=body.make_graph(),
        hint=hint,
    )
    return [
        builder.value(name, result.dtype)
        for name, result in zip(outputs, results, strict=True)
    ]


def unrolled_loop(trip_count: int, states, step):
    """`loop` for a static ``trip_count`` without ``more``, as straight-line code."""
    scans = []
    for i in range(trip_count):
        iteration = states[0].indices(i)
        results = list(step(iteration, *states))
        states, scan = results[: len(states)], results[len(states) :]
        scans.append([x.unsqueeze([0]) for x in scan])
    stacked = [concat(list(parts), axis=0) for parts in zip(*scans, strict=True)]
    return [*states, *stacked]
