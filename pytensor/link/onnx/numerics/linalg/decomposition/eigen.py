"""Eigenvalues and eigenvectors of symmetric matrices by the Jacobi method
(``eigh``, ``eigvalsh``), and of symmetric-definite pencils (``sygvd``).

Eigenvectors are determined up to their signs only, and their signs may
differ from LAPACK's.
"""

import numpy as np

from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import cholesky
from pytensor.link.onnx.numerics.linalg.decomposition.jacobi import (
    jacobi_sweeps,
    rotation,
)
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal,
    identity,
    mT,
    sort,
    stack_shape,
    symmetric_from,
    upper_triangle,
)
from pytensor.link.onnx.value import Value, arange


def jacobi_eigen(a: Value):
    """Eigenvalues ``(batch, 1, n)`` in ascending order and eigenvectors of the symmetric ``a``.

    Rotates pairs of rows and columns until the off-diagonal elements are
    below ``eps`` times the Frobenius norm of ``a``.
    """
    n = a.dim(1)
    threshold = (a * a).sum([1, 2]).sqrt() * float(np.finfo(a.dtype).eps)

    def rotate_pairs(pairs, a, v):
        as_column = [0, 2]
        flat = a.reshape(stack_shape(a, -1, 1))
        d = flat.take(arange(a.dim(1)) * (a.dim(1) + 1), axis=1)
        a_pq = flat.take(pairs.low * a.dim(1) + pairs.high, axis=1)
        rotate = pairs.paired.unsqueeze(as_column) & (
            abs(a_pq) > threshold.into(a.builder)
        )
        cosine, sine = rotation(
            d.take(pairs.low, axis=1),
            d.take(pairs.high, axis=1),
            a_pq,
            rotate,
            pairs.is_low.unsqueeze(as_column),
        )
        a = cosine * a + sine * a.take(pairs.partners, axis=1)
        cosine, sine = mT(cosine), mT(sine)
        a = a * cosine + a.take(pairs.partners, axis=2) * sine
        v = v * cosine + v.take(pairs.partners, axis=2) * sine
        return a, v

    def converged(a, v):
        # the rotations read the upper triangle
        large = abs(upper_triangle(a, strict=True)) > threshold.into(a.builder)
        return ~large.any()

    eye = identity(n, n, a.dtype).expand(a.shape())
    a, v = jacobi_sweeps(n, [a, eye], rotate_pairs, converged, hint="eigh")
    eigenvalues, order = sort(diagonal(a, 1), n, ascending=True)
    return eigenvalues, v.take_along(order.expand(v.shape()), axis=2)


def generalized_eigen(a: Value, b: Value, lower: bool):
    """Eigenvalues and eigenvectors of ``a @ v = w * b @ v`` (``b`` positive definite).

    With ``b = l @ l.T``, the eigenvectors ``u`` of ``inv(l) @ a @ inv(l).T``
    give ``v = inv(l).T @ u``, normalized so that ``v.T @ b @ v = I`` as
    LAPACK's ``sygvd``. Reads the lower (or upper) triangles of ``a`` and ``b``.

    Returns
    -------
    eigenvalues, eigenvectors
        As `jacobi_eigen`.
    failed
        ``(batch, 1, 1)`` bool: whether ``b`` is not positive definite.
    """
    a = symmetric_from(a, lower)
    factor, failed = cholesky(symmetric_from(b, lower))
    reduced = substitute(factor, mT(substitute(factor, a, lower=True)), lower=True)
    eigenvalues, u = jacobi_eigen(symmetric_from(reduced, lower=True))
    return eigenvalues, substitute(mT(factor), u, lower=False), failed
