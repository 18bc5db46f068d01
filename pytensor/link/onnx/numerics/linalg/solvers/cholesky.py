"""Solves with a Cholesky factor (``potrs``), and of positive definite systems."""

from pytensor.link.onnx.numerics.linalg.blocks import chosen_once
from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import cholesky
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.numerics.linalg.stacks import mT
from pytensor.link.onnx.value import Value


def cholesky_solve(factor: Value, b: Value, size=None) -> Value:
    """``x`` with ``l @ l.T @ x = b`` for the lower triangle ``l`` of ``factor``
    (of ``size`` rows if static)."""

    def solved(factor, b, size):
        y = substitute(factor, b, lower=True, size=size)
        return [substitute(mT(factor), y, lower=False, size=size)]

    [x] = chosen_once(solved, size, [(factor, True), (b, False)], [[1]])
    return x


def positive_definite_solve(a: Value, b: Value, size=None):
    """``x`` with ``a @ x = b`` for the symmetric positive definite matrices
    with the lower triangle of ``a`` (of ``size`` rows if static), through
    their Cholesky factors; and whether ``a`` is not positive definite,
    ``(batch, 1, 1)`` bool."""

    def solved(a, b, size):
        factor, failed = cholesky(a, size)
        return cholesky_solve(factor, b, size), failed

    return tuple(chosen_once(solved, size, [(a, True), (b, False)], [[1], []]))
