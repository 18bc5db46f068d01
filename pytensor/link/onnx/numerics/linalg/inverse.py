"""Inverses and pseudo-inverses of stacks of matrices."""

from pytensor.link.onnx.numerics.linalg.blocks import chosen_once
from pytensor.link.onnx.numerics.linalg.decomposition.eigen import jacobi_eigen
from pytensor.link.onnx.numerics.linalg.decomposition.svd import thin_svd
from pytensor.link.onnx.numerics.linalg.solvers.general import solve
from pytensor.link.onnx.numerics.linalg.stacks import identity, mT, symmetric_from
from pytensor.link.onnx.value import Value, where


# numpy.linalg.pinv's default cutoff, relative to the largest singular value
PINV_RCOND = 1e-15


def inverse(a: Value, size: int | None = None):
    """The inverse of the square stack ``a`` (of ``size`` rows if static), and
    whether ``a`` is singular (``(batch, 1, 1)`` bool)."""

    def inverted(a, size):
        n = a.dim(1)
        return solve(a, identity(n, n, a.dtype).expand(a.shape()), size)

    return tuple(chosen_once(inverted, size, [(a, True)], [[1, 2], []]))


def inverse_of_nonnegligible(values: Value, magnitudes: Value, rcond) -> Value:
    """``1 / values`` where ``magnitudes`` exceed ``rcond`` times their maximum, else 0."""
    large = magnitudes > magnitudes.max([2]) * rcond
    return where(large, 1 / where(large, values, 1), 0)


def pseudo_inverse(a: Value, transposed: bool) -> Value:
    """The Moore-Penrose pseudo-inverse of ``a`` as ``numpy.linalg.pinv``, from
    the SVD of ``a.T`` if ``transposed`` (cheaper when ``a`` is wide)."""
    singular_values, w, v, k = thin_svd(a, transposed)
    # w = u * s: the pseudo-inverse v @ diag(1 / s) @ u.T is v @ diag(1 / s**2) @ w.T
    weights = inverse_of_nonnegligible(
        singular_values * singular_values, singular_values, PINV_RCOND
    )
    pinv = (v.slice(0, k, axis=2) * weights) @ mT(w)
    return mT(pinv) if transposed else pinv


def hermitian_pseudo_inverse(a: Value) -> Value:
    """The pseudo-inverse of the symmetric matrices with the lower triangle of ``a``."""
    eigenvalues, v = jacobi_eigen(symmetric_from(a, lower=True))
    weights = inverse_of_nonnegligible(eigenvalues, abs(eigenvalues), PINV_RCOND)
    return (v * weights) @ mT(v)
