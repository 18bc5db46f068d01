"""Least-squares solutions by the SVD, as LAPACK's ``gelsd``."""

import numpy as np

from pytensor.link.onnx.numerics.linalg.decomposition.svd import thin_svd
from pytensor.link.onnx.numerics.linalg.stacks import mT
from pytensor.link.onnx.value import Value, where


def least_squares(a: Value, b: Value, rcond: Value):
    """``numpy.linalg.lstsq(a, b, rcond)`` for a stack of one matrix ``a`` and
    one matrix ``b``: singular values below ``rcond`` times the largest count
    as zeros (an ``rcond`` outside ``(0, 1)`` means the machine precision, as
    in LAPACK's ``gelsd``).

    Returns
    -------
    x
        The solution, ``(1, n, k)``.
    squares
        ``(1, 1, k)``: the sums of squared residuals, if ``a`` has full rank
        ``n < m``; else ``(1, 1, 0)``.
    rank
        ``(1, 1, 1)`` int64: the effective rank of ``a``.
    singular_values
        ``(1, 1, min(m, n))``.
    """
    m, n = a.dim(1), a.dim(2)
    singular_values, w, v, k = thin_svd(a, transposed=False)
    outside = (rcond <= 0) | (rcond >= 1)
    rcond = where(outside, float(np.finfo(a.dtype).eps), rcond)
    kept = singular_values > singular_values.max([2]) * rcond
    rank = kept.cast("int64").sum([2])
    weights = where(kept, 1 / where(kept, singular_values, 1) ** 2, 0)
    x = (v.slice(0, k, axis=2) * weights) @ (mT(w) @ b)
    residuals = b - a @ x
    squares = (residuals * residuals).sum([1])
    full_rank = rank.squeeze([0, 1, 2]).eq(n) & (m > n)
    n_residuals = where(full_rank, squares.shape(2), squares.indices([0]))
    return x, squares.slice(0, n_residuals, axis=2), rank, singular_values
