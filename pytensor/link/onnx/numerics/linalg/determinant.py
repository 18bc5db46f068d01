"""Determinants from the LU decomposition."""

from pytensor.link.onnx.numerics.linalg.decomposition.lu import lu_factor
from pytensor.link.onnx.numerics.linalg.stacks import diagonal, positions
from pytensor.link.onnx.value import Value


def determinant_factors(a: Value):
    """The diagonal of ``U`` in ``a = P @ L @ U`` as rows, and the sign of ``P``
    (``(batch, 1, 1)``)."""
    lu, _, pivots, _ = lu_factor(a)
    swaps = pivots.ne(positions(a.dim(1), 1)).cast(a.dtype).sum([1])
    odd = swaps - 2 * (swaps / 2).floor()
    return diagonal(lu, 1), 1 - 2 * odd


def determinant(a: Value) -> Value:
    """The determinants of the square stack ``a``, ``(batch, 1, 1)``."""
    u_diagonal, sign = determinant_factors(a)
    return sign * u_diagonal.prod([2])


def sign_and_log_determinant(a: Value):
    """The signs and the logarithms of the absolute values of the determinants
    of the square stack ``a``, ``(batch, 1, 1)`` each, as ``numpy.linalg.slogdet``."""
    u_diagonal, sign = determinant_factors(a)
    signs = u_diagonal.apply("Sign", u_diagonal)
    return sign * signs.prod([2]), abs(u_diagonal).log().sum([2])
