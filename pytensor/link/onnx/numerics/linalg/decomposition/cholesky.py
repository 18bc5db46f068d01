"""Cholesky decomposition, column by column (LAPACK's ``potf2``)."""

from pytensor.link.onnx.numerics.linalg.stacks import (
    loop,
    mT,
    nan_where,
    none_of,
    positions,
)
from pytensor.link.onnx.value import Value, where


def cholesky(a: Value):
    """The lower Cholesky factor of ``a`` from its lower triangle (``potf2``).

    Also returns whether ``a`` is not positive definite, ``(batch, 1, 1)`` bool.
    """
    n = a.dim(1)
    rows, columns = positions(n, 1), positions(n, 2)

    def step(k, factor, failed):
        rows_, columns_ = rows.into(k.builder), columns.into(k.builder)
        at_k = k.unsqueeze([0])
        column = a.into(k.builder).take(at_k, axis=2)
        column = column - factor @ mT(factor.take(at_k, axis=1))
        pivot = column.take(at_k, axis=1)
        positive = pivot > 0
        root = where(positive, pivot, 1).sqrt()
        column = where(rows_ > k, column / root, where(rows_.eq(k), root, 0))
        return where(columns_.eq(k), column, factor), failed | ~positive

    return loop(n, [a.full_like(0), none_of(a)], step, hint="cholesky")


def cholesky_of_triangle(a: Value, lower: bool):
    """The Cholesky factor (lower or upper) of the triangle of ``a``, NaN where it fails."""
    factor, failed = cholesky(a if lower else mT(a))
    factor = nan_where(failed, factor)
    return factor if lower else mT(factor)
