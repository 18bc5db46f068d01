"""Determinants from the LU decomposition."""

from pytensor.link.onnx.numerics.linalg.decomposition.lu import lu_factor
from pytensor.link.onnx.numerics.linalg.stacks import diagonal, positions
from pytensor.link.onnx.value import Value


def determinant_factors(a: Value, size: int | None = None):
    """The diagonal of ``U`` in ``a = P @ L @ U`` as rows, and the sign of ``P``
    (``(batch, 1, 1)``); ``size``: the static number of rows of ``a``."""
    lu, _, pivots, _ = lu_factor(a, size)
    swaps = pivots.ne(positions(a.dim(1), 1)).cast(a.dtype).sum([1])
    odd = swaps - 2 * (swaps / 2).floor()
    return diagonal(lu, 1), 1 - 2 * odd


def determinant(a: Value, size: int | None = None) -> Value:
    """The determinants of the square stack ``a``, ``(batch, 1, 1)``."""
    u_diagonal, sign = determinant_factors(a, size)
    return sign * u_diagonal.prod([2])


def sign_and_log_determinant(a: Value, size: int | None = None):
    """The signs and the logarithms of the absolute values of the determinants
    of the square stack ``a``, ``(batch, 1, 1)`` each, as ``numpy.linalg.slogdet``."""
    u_diagonal, sign = determinant_factors(a, size)
    signs = u_diagonal.apply("Sign", u_diagonal)
    return sign * signs.prod([2]), abs(u_diagonal).log().sum([2])
