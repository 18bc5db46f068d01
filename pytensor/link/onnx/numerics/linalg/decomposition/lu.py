"""LU decomposition with partial pivoting (LAPACK's ``getf2``) and its permutations."""

from pytensor.link.onnx.numerics.linalg.stacks import (
    identity,
    loop,
    lower_triangle,
    none_of,
    positions,
    stack_shape,
    upper_triangle,
)
from pytensor.link.onnx.value import Value, where


def swap_rows(x: Value, k: Value, p: Value, rows: Value) -> Value:
    """``x`` with row ``k`` (a vector of one index) and row ``p`` (one per stack) swapped."""
    row_k = x.take(k, axis=1)
    row_p = x.take_along(p.expand(row_k.shape()), axis=1)
    return where(rows.eq(k), row_p, where(rows.eq(p), row_k, x))


def lu_factor(a: Value):
    """LU decomposition with partial pivoting of the square stack ``a`` (``getf2``).

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
    rows, columns = positions(n, 1), positions(n, 2)
    rows_in_order = rows.expand(stack_shape(a, a.shape(1, 2), 1))

    def step(k, lu, permutation, pivots, singular):
        rows_, columns_ = rows.into(k.builder), columns.into(k.builder)
        at_k = k.unsqueeze([0])
        candidates = where(rows_ >= k, abs(lu.take(at_k, axis=2)), -1)
        p = candidates.apply("ArgMax", candidates, axis=1, keepdims=1)
        lu = swap_rows(lu, at_k, p, rows_)
        permutation = swap_rows(permutation, at_k, p, rows_)
        pivots = where(rows_.eq(k), p, pivots)
        pivot_row = lu.take(at_k, axis=1)
        pivot = pivot_row.take(at_k, axis=2)
        is_zero = pivot.eq(0)
        below = rows_ > k
        multipliers = where(below, lu.take(at_k, axis=2) / where(is_zero, 1, pivot), 0)
        lu = lu - multipliers * where(columns_ > k, pivot_row, 0)
        lu = where(columns_.eq(k) & below, multipliers, lu)
        return lu, permutation, pivots, singular | is_zero

    return loop(n, [a, rows_in_order, rows_in_order, none_of(a)], step, hint="lu")


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
