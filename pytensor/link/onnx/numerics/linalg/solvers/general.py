"""Solves of general square systems with the LU decomposition (``getrs``)."""

from pytensor.link.onnx.numerics.linalg.decomposition.lu import lu_factor
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.value import Value


def lu_solve(lu: Value, permutation: Value, b: Value) -> Value:
    """``x`` with ``a @ x = b`` from the `lu_factor` of ``a``."""
    permuted = b.take_along(permutation.expand(b.shape()), axis=1)
    x = substitute(lu, permuted, lower=True, unit_diagonal=True)
    return substitute(lu, x, lower=False)


def solve(a: Value, b: Value):
    """``x`` with ``a @ x = b``, and whether ``a`` is singular, ``(batch, 1, 1)`` bool."""
    lu, permutation, _, singular = lu_factor(a)
    return lu_solve(lu, permutation, b), singular
