"""Determinants from the LU decomposition.

The factorization, the product of the diagonal of ``U`` and the sign of the
permutation are one operation (`~pytensor.link.onnx.numerics.linalg.blocks.chosen_once`):
for a dynamic size the matrix is padded with the identity, which adds
diagonal elements 1 and no row swap, so its determinant is unchanged.
"""

import numpy as np

from pytensor.link.onnx.numerics.linalg.blocks import chosen_once, static
from pytensor.link.onnx.numerics.linalg.decomposition.lu import lu_factor
from pytensor.link.onnx.numerics.linalg.stacks import diagonal, positions
from pytensor.link.onnx.value import Value, where


def determinant_factors(a: Value, size):
    """The diagonal of ``U`` in ``a = P @ L @ U`` as rows, and the sign of
    ``P`` (``(batch, 1, 1)``), for the static ``size`` (or `BLOCKED`) of ``a``."""
    lu, _, pivots, _ = lu_factor(a, size)
    size = static(size)
    steps = (
        positions(a.dim(1), 1)
        if size is None
        else a.indices(np.arange(size)[None, :, None])
    )
    one = a.constant(1.0, a.dtype)
    swap_signs = where(pivots.eq(steps), one, -one)
    return diagonal(lu, 1, size), swap_signs.prod([1])


def determinant(a: Value, size: int | None = None) -> Value:
    """The determinants of the square stack ``a``, ``(batch, 1, 1)``."""

    def determinants(a, size):
        u_diagonal, sign = determinant_factors(a, size)
        return [sign * u_diagonal.prod([2])]

    [result] = chosen_once(determinants, size, [(a, True)], [[]])
    return result


def sign_and_log_determinant(a: Value, size: int | None = None):
    """The signs and the logarithms of the absolute values of the determinants
    of the square stack ``a``, ``(batch, 1, 1)`` each, as ``numpy.linalg.slogdet``."""

    def signs_and_logs(a, size):
        u_diagonal, sign = determinant_factors(a, size)
        signs = u_diagonal.apply("Sign", u_diagonal)
        return [sign * signs.prod([2]), abs(u_diagonal).log().sum([2])]

    return tuple(chosen_once(signs_and_logs, size, [(a, True)], [[], []]))
