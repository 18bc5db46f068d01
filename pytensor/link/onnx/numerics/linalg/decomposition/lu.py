"""LU decomposition with partial pivoting, blocked (LAPACK's ``getrf``), and
its permutations.

A ``Loop`` runs over blocks of `BLOCK` columns (fewer for a static size,
`~pytensor.link.onnx.numerics.linalg.blocks.block_size`) (Golub and Van Loan, *Matrix
Computations*, 4th ed., section 3.4.9). Each iteration factors the panel of
the block's columns with straight-line code, one step of ``getf2`` per
column: the pivot is the first largest absolute value in the column on or
below the diagonal, as LAPACK's ``idamax`` picks it, and the panel's own
rows are swapped as LAPACK swaps them; the rows of the rest of the matrix
then follow in one ``Gather``, the block row right of the panel is solved
with the inverse of the panel's unit lower triangle, and the trailing matrix
is updated with one ``MatMul``. A matrix of at most `BLOCK` rows is one
panel, without a ``Loop``
(`~pytensor.link.onnx.numerics.linalg.blocks.by_size`).
"""

import numpy as np

from pytensor.link.onnx.numerics.linalg.blocks import (
    block_loop,
    block_size,
    by_size,
    cut,
    lower_triangular_inverse,
    padded,
    padded_to,
    static,
    unstacked,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal,
    identity,
    loop,
    lower_triangle,
    positions,
    stack_shape,
    static_masks,
    upper_triangle,
)
from pytensor.link.onnx.value import Value, arange, concat, where


def swap_rows(x: Value, k: Value, p: Value, rows: Value) -> Value:
    """``x`` with row ``k`` (a vector of one index) and row ``p`` (one per stack) swapped."""
    row_k = x.take(k, axis=1)
    row_p = x.take_along(p.expand(row_k.shape()), axis=1)
    return where(rows.eq(k), row_p, where(rows.eq(p), row_k, x))


def factor_panel(panel: Value, columns: int, width: int, height: int | None = None):
    """``getf2`` on the first ``columns`` columns of the stack ``panel`` of
    ``m >= columns`` rows (``height``, if static) and ``width`` columns,
    unrolled.

    A last column after these holds the number of each row (as a float):
    the steps move it with its row and leave it as it is.

    Returns ``panel`` with its rows in the order of the pivoting, ``L`` below
    the diagonal of its first ``columns`` columns and ``U`` on and above it,
    the rest of its columns eliminated; and the pivots ``(batch, columns,
    1)`` int64: row ``c`` was swapped with row ``c + pivots[c]``.
    """
    rows = arange(panel.dim(1)).unsqueeze([0, 2]) if height is None else None
    at = np.arange(width + 1)
    done, pivots, rest = [], [], panel
    for c in range(columns):
        candidates = abs(rest.slice(c, c + 1, axis=2))
        p = candidates.apply("ArgMax", candidates, axis=1, keepdims=1)
        pivot_row = rest.take_rows(p)
        if height is not None:
            candidates_at = rest.indices(np.arange(height - c)[None, :, None])
        else:
            candidates_at = rows.slice(0, -c, axis=1) if c else rows
        swapped = where(candidates_at.eq(p), rest.slice(0, 1, axis=1), rest)
        rest = swapped.slice(1, None, axis=1)
        pivot = pivot_row.slice(c, c + 1, axis=2)
        multipliers = rest.slice(c, c + 1, axis=2) / where(pivot.eq(0), 1, pivot)
        right = rest.constant(((at > c) & (at < width)).astype(rest.dtype))
        update = rest - multipliers @ (pivot_row * right)
        rest = where(rest.constant(at == c, "bool"), multipliers, update)
        done.append(pivot_row)
        pivots.append(p)
    if not pivots:
        return rest, None
    return concat([*done, rest], axis=1), concat(pivots, axis=1)


def lu_factor(a: Value, size: int | None = None):
    """LU decomposition with partial pivoting of the square stack ``a`` (of
    ``size`` rows if static), as LAPACK's ``getrf``.

    Returns
    -------
    lu
        ``L`` (unit lower triangular, below the diagonal) and ``U`` in one matrix.
    permutation
        ``(batch, n, 1)`` int64: row ``i`` of ``L @ U`` is row
        ``permutation[i]`` of ``a``.
    pivots
        ``(batch, n, 1)`` int64: LAPACK's ``ipiv`` (0-based), row ``i`` was
        swapped with row ``pivots[i]``.
    singular
        ``(batch, 1, 1)`` bool: whether a pivot is exactly zero.
    """
    n = a.dim(1)

    def unrolled(bound):
        lu, permutation, pivots = factor_square(
            padded_to(a, bound, square=True, size=size), bound
        )
        if size == bound:
            return [lu, permutation, pivots]
        return [cut(lu, n, [1, 2]), cut(permutation, n, [1]), cut(pivots, n, [1])]

    lu, permutation, pivots = by_size(
        n, size, unrolled, lambda: blocked(a, n, block_size(size), static(size))
    )
    return lu, permutation, pivots, diagonal(lu, 2).eq(0).any_along([1])


def with_row_numbers(x: Value) -> Value:
    """``x`` with a last column holding the number of each row, as a float."""
    numbers = arange(x.dim(1)).unsqueeze([0, 2]).cast(x.dtype)
    return concat([x, numbers.expand(stack_shape(x, x.shape(1, 2), 1))], axis=2)


def split_row_numbers(x: Value, width: int):
    """The first ``width`` columns of ``x`` and the row numbers after them, int64."""
    return x.slice(0, width, axis=2), x.slice(width, None, axis=2).cast("int64")


def factor_square(a: Value, size: int):
    """`lu_factor`'s ``lu``, ``permutation`` and ``pivots`` of the stack ``a``
    of static ``size``: one unrolled panel."""
    factored, pivots = factor_panel(with_row_numbers(a), size - 1, size, size)
    lu, permutation = split_row_numbers(factored, size)
    last = permutation.slice(0, 1, axis=1) * 0 + (size - 1)
    if size == 1:
        return lu, permutation, last
    steps = a.indices(np.arange(size - 1)[None, :, None])
    return lu, permutation, concat([pivots + steps, last], axis=1)


def blocked(a: Value, n: Value, block: int, size: int | None = None):
    """`lu_factor`'s ``lu``, ``permutation`` and ``pivots`` of the stack ``a``
    of ``n`` rows (``size`` if static), by `block_loop` over its blocks of
    columns.

    The ``Loop`` carries the rows not yet finished, all their columns, and
    their numbers in ``a``; each iteration finishes ``block`` of them.
    """

    def step(j, rows, numbers):
        on_diagonal, lower = static_masks(j, block)
        start = (j * block).unsqueeze([0])
        panel = with_row_numbers(rows.slice(start, start + block, axis=2))
        factored, pivots = factor_panel(panel, block, block)
        panel, permutation = split_row_numbers(factored, block)
        rows = rows.take_rows(permutation)
        numbers = numbers.take_rows(permutation)
        left = rows.slice(0, start, axis=2)
        right = rows.slice(start + block, None, axis=2)
        top, below = panel.slice(0, block, axis=1), panel.slice(block, None, axis=1)
        unit_lower = where(on_diagonal, 1, where(lower, top, 0))
        u12 = lower_triangular_inverse(unit_lower, block) @ right.slice(0, block, 1)
        trailing = right.slice(block, None, axis=1) - below @ u12
        finished = concat([left.slice(0, block, axis=1), top, u12], axis=2)
        rows = concat([left.slice(block, None, axis=1), below, trailing], axis=2)
        steps = j.indices(np.arange(block)[None, :, None])
        return (
            rows,
            numbers.slice(block, None, axis=1),
            finished,
            numbers.slice(0, block, axis=1),
            pivots + steps + start,
        )

    x = padded(a, block, square=True, size=size)
    numbers = positions(x.dim(1), 1).expand(stack_shape(x, x.shape(1, 2), 1))
    _, _, lu, permutation, pivots = block_loop(
        n, block, size, [x, numbers], step, hint="lu"
    )
    return [
        cut(unstacked(lu, n, axis=1), n, [2]),
        unstacked(permutation, n, axis=1),
        unstacked(pivots, n, axis=1),
    ]


def lu_parts(lu: Value):
    """The unit lower triangular ``L`` and the upper triangular ``U`` of an `lu_factor`."""
    n = lu.dim(1)
    lower = lower_triangle(lu, strict=True) + identity(n, n, lu.dtype)
    return lower, upper_triangle(lu)


def inverse_permutation(permutation: Value) -> Value:
    """The permutation undoing the stack of permutations ``(batch, n, 1)``."""
    in_order = positions(permutation.dim(1), 1).expand(permutation.shape())
    return in_order.apply("ScatterElements", in_order, permutation, in_order, axis=1)


def permutation_of_pivots(pivots: Value) -> Value:
    """The rows ``(batch, n, 1)`` in the order that LAPACK's ``pivots`` swap them to.

    ``pivots`` is a ``(batch, n, 1)`` int64 stack: row ``i`` swapped with row
    ``pivots[i]``, for ``i`` from 0 up.
    """
    rows = positions(pivots.dim(1), 1)
    in_order = rows.expand(pivots.shape())

    def step(i, swapped):
        at_i = i.unsqueeze([0])
        other = pivots.into(i.builder).take(at_i, axis=1)
        return [swap_rows(swapped, at_i, other, rows.into(i.builder))]

    [swapped] = loop(pivots.dim(1), [in_order], step, hint="permutation")
    return swapped
