"""Solves with a Cholesky factor (``potrs``)."""

from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.numerics.linalg.stacks import mT
from pytensor.link.onnx.value import Value


def cholesky_solve(factor: Value, b: Value, size: int | None = None) -> Value:
    """``x`` with ``l @ l.T @ x = b`` for the lower triangle ``l`` of ``factor``
    (of ``size`` rows if static)."""
    y = substitute(factor, b, lower=True, size=size)
    return substitute(mT(factor), y, lower=False, size=size)
