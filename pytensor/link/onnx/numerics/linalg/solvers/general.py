"""Solves of general square systems with the LU decomposition (``getrs``)."""

from pytensor.link.onnx.numerics.linalg.decomposition.lu import lu_factor
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.value import Value


def lu_solve(lu: Value, permutation: Value, b: Value, size: int | None = None):
    """``x`` with ``a @ x = b`` from the `lu_factor` of ``a`` (of ``size`` rows
    if static)."""
    permuted = b.take_along(permutation.expand(b.shape()), axis=1)
    x = substitute(lu, permuted, lower=True, unit_diagonal=True, size=size)
    return substitute(lu, x, lower=False, size=size)


def solve(a: Value, b: Value, size: int | None = None):
    """``x`` with ``a @ x = b``, and whether ``a`` (of ``size`` rows if
    static) is singular, ``(batch, 1, 1)`` bool."""
    lu, permutation, _, singular = lu_factor(a, size)
    return lu_solve(lu, permutation, b, size), singular
