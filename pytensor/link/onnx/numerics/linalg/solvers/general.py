"""Solves of general square systems with the LU decomposition (``getrs``)."""

from pytensor.link.onnx.numerics.linalg.blocks import chosen_once
from pytensor.link.onnx.numerics.linalg.decomposition.lu import lu_factor
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.value import Value


def lu_solve(lu: Value, permutation: Value, b: Value, size=None):
    """``x`` with ``a @ x = b`` from the `lu_factor` of ``a`` (of ``size`` rows
    if static)."""

    def solved(lu, permuted, size):
        x = substitute(lu, permuted, lower=True, unit_diagonal=True, size=size)
        return [substitute(lu, x, lower=False, size=size)]

    permuted = b.take_rows(permutation)
    [x] = chosen_once(solved, size, [(lu, True), (permuted, False)], [[1]])
    return x


def solve(a: Value, b: Value, size=None):
    """``x`` with ``a @ x = b``, and whether ``a`` (of ``size`` rows if
    static) is singular, ``(batch, 1, 1)`` bool."""

    def solved(a, b, size):
        lu, permutation, _, singular = lu_factor(a, size)
        return lu_solve(lu, permutation, b, size), singular

    return tuple(chosen_once(solved, size, [(a, True), (b, False)], [[1], []]))
