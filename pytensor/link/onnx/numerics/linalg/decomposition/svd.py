"""The one-sided Jacobi singular value decomposition (as LAPACK's ``gesvj``).

Singular vectors are determined up to their signs only, and their signs may
differ from LAPACK's.
"""

import numpy as np

from pytensor.link.onnx.numerics.linalg.decomposition.jacobi import (
    jacobi_sweeps,
    rotation,
)
from pytensor.link.onnx.numerics.linalg.decomposition.qr import (
    householder,
    householder_product,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal,
    full,
    identity,
    mT,
    off_diagonal,
    sort,
    stack_shape,
)
from pytensor.link.onnx.value import Value, concat, maximum, minimum, where


def jacobi_svd(a: Value):
    """One-sided Jacobi SVD of the stack ``a`` of shape ``(batch, m, n)``.

    Rotates pairs of columns of ``a`` until all are orthogonal to
    ``sqrt(m) * eps`` (relatively), as LAPACK's ``gesvj``: ``a @ v = w``.
    Columns below ``eps`` times the Frobenius norm of ``a`` count as zeros.

    Returns
    -------
    singular_values
        ``(batch, 1, n)``: the norms of the columns of ``w``, in descending order.
    w
        ``a @ v``, with its columns in the same order.
    v
        The orthogonal rotation, with its columns in the same order.
    """
    m, n = a.dim(1), a.dim(2)
    eps = float(np.finfo(a.dtype).eps)
    tolerance = m.cast(a.dtype).sqrt() * eps
    negligible = (a * a).sum([1, 2]) * (eps * eps)

    def needs_rotation(alpha, beta, gamma):
        """Whether columns with squared norms ``alpha`` and ``beta`` and inner
        product ``gamma`` are significant and not orthogonal enough."""
        negligible_ = negligible.into(gamma.builder)
        significant = (alpha > negligible_) & (beta > negligible_)
        scale = where(significant, alpha * beta, 1).sqrt()
        return significant & (abs(gamma) > scale * tolerance.into(gamma.builder))

    def rotate_pairs(pairs, w, v):
        as_row = [0, 1]
        squares = (w * w).sum([1])
        alpha, beta = squares.take(pairs.low, axis=2), squares.take(pairs.high, axis=2)
        gamma = (w * w.take(pairs.partners, axis=2)).sum([1])
        rotate = pairs.paired.unsqueeze(as_row) & needs_rotation(alpha, beta, gamma)
        cosine, sine = rotation(
            alpha, beta, gamma, rotate, pairs.is_low.unsqueeze(as_row)
        )
        w = w * cosine + w.take(pairs.partners, axis=2) * sine
        v = v * cosine + v.take(pairs.partners, axis=2) * sine
        return w, v

    def converged(w, v):
        gram = mT(w) @ w
        squares = diagonal(gram, 1)
        rotate = off_diagonal(gram) & needs_rotation(mT(squares), squares, gram)
        return ~rotate.any()

    eye = identity(n, n, a.dtype).expand(stack_shape(a, a.shape(2, 3), a.shape(2, 3)))
    w, v = jacobi_sweeps(n, [a, eye], rotate_pairs, converged, hint="svd")
    singular_values, order = sort((w * w).sum([1]).sqrt(), n, ascending=False)
    w = w.take_along(order.expand(w.shape()), axis=2)
    v = v.take_along(order.expand(v.shape()), axis=2)
    return singular_values, w, v


def orthonormal_completion(u: Value, kept: Value, n_columns: Value) -> Value:
    """``n_columns`` orthonormal columns: those of ``u`` where ``kept``, others filled in.

    ``u`` has ``k <= n_columns`` columns, orthonormal where ``kept`` (a
    ``(batch, 1, k)`` bool, true for a leading run of columns). The others
    are columns of the ``Q`` of the Householder QR of the kept columns.
    """
    reflectors, taus = householder(where(kept, u, 0))
    q = householder_product(reflectors, taus, n_columns)
    n_missing = n_columns.unsqueeze([0]) - u.shape(2, 3)
    kept = concat([kept, full(kept, False, [1, n_missing])], axis=2)
    u = concat([u, full(u, 0, [u.shape(1, 2), n_missing])], axis=2)
    return where(kept, u, q)


def thin_svd(a: Value, transposed: bool):
    """The ``k = min(m, n)`` singular values, the first ``k`` columns of ``w``
    and all of ``v`` of `jacobi_svd`, for ``a`` or, if ``transposed``, for
    ``a.T`` (Jacobi rotations of fewer columns are cheaper), and ``k`` (a
    vector of one int64)."""
    singular_values, w, v = jacobi_svd(mT(a) if transposed else a)
    k = minimum(a.dim(1), a.dim(2)).unsqueeze([0])
    singular_values = singular_values.slice(0, k, axis=2)
    return singular_values, w.slice(0, k, axis=2), v, k


def svd(a: Value, *, full_matrices: bool, transposed: bool):
    """``u``, the singular values ``(batch, 1, k)`` and ``vh`` as ``numpy.linalg.svd``.

    Decomposes ``a.T`` if ``transposed`` (see `thin_svd`). The columns of
    ``u`` for negligible singular values are completed to an orthonormal basis.
    """
    singular_values, w, v, k = thin_svd(a, transposed)
    u = w / where(singular_values > 0, singular_values, 1)
    m, n = a.dim(1), a.dim(2)
    eps = float(np.finfo(a.dtype).eps)
    cutoff = singular_values.max([2]) * (maximum(m, n).cast(a.dtype) * eps)
    if full_matrices:
        n_u_columns = n if transposed else m
    else:
        n_u_columns = k.squeeze([0])
    u = orthonormal_completion(u, singular_values > cutoff, n_u_columns)
    if not full_matrices:
        v = v.slice(0, k, axis=2)
    if transposed:
        u, v = v, u
    return u, singular_values, mT(v)
