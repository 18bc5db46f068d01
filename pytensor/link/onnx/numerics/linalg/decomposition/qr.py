"""Householder QR (LAPACK's ``geqr2`` and ``org2r``), with LAPACK's reflectors,
so that ``R`` has LAPACK's signs."""

from pytensor.link.onnx.numerics.linalg.stacks import (
    full,
    identity,
    loop,
    mT,
    positions,
    stack_shape,
    upper_triangle,
)
from pytensor.link.onnx.value import Value, minimum, where


def swap_in_pivot(k: Value, h: Value, order: Value, rows_, columns_):
    """``h`` and the column ``order`` with column ``k`` swapped for the column
    ``j >= k`` whose rows ``k:`` have the largest norm (the first on ties), as
    LAPACK's ``geqp3`` pivots."""
    norms = where(rows_ >= k, h * h, 0).sum([1])
    norms = where(columns_ >= k, norms, -1)
    j = norms.apply("ArgMax", norms, axis=2, keepdims=1)
    swap = where(columns_.eq(k), j, where(columns_.eq(j), k, columns_))
    return (
        h.take_along(swap.expand(h.shape()), axis=2),
        order.take_along(swap.expand(order.shape()), axis=2),
    )


def householder(a: Value, pivoting: bool = False):
    """Householder QR of the stack ``a`` as LAPACK's ``geqr2`` (``geqp3`` with
    ``pivoting``) computes it.

    Returns
    -------
    reflectors
        ``R`` on and above the diagonal, the reflectors below it (``raw`` mode).
    taus
        ``(batch, 1, min(m, n))``: the reflectors' coefficients.
    order
        With ``pivoting``, ``(batch, 1, n)`` int64: the columns of ``a`` in the
        order factored, so that ``a[..., order] = Q @ R``.
    """
    m, n = a.dim(1), a.dim(2)
    n_steps = minimum(m, n)
    rows, columns, steps = positions(m, 1), positions(n, 2), positions(n_steps, 2)

    def step(k, h, taus, *order):
        rows_, columns_ = rows.into(k.builder), columns.into(k.builder)
        if pivoting:
            h, pivoted = swap_in_pivot(k, h, order[0], rows_, columns_)
            order = (pivoted,)
        at_k = k.unsqueeze([0])
        column = h.take(at_k, axis=2)
        alpha = column.take(at_k, axis=1)
        tail = where(rows_ > k, column, 0)
        tail_squares = (tail * tail).sum([1])
        reflect = tail_squares > 0
        norm = (alpha * alpha + tail_squares).sqrt()
        beta = where(reflect, where(alpha >= 0, -norm, norm), alpha)
        tau = where(reflect, (beta - alpha) / beta, 0)
        tail = tail / where(reflect, alpha - beta, 1)
        reflector = where(rows_.eq(k), 1, tail)
        projections = where(columns_ > k, mT(reflector) @ h, 0)
        h = h - (tau * reflector) * projections
        column = where(rows_.eq(k), beta, where(rows_ > k, tail, column))
        h = where(columns_.eq(k), column, h)
        return h, where(steps.into(k.builder).eq(k), tau, taus), *order

    taus = full(a, 0, [1, n_steps.unsqueeze([0])])
    order = [columns.expand(stack_shape(a, 1, n.unsqueeze([0])))] if pivoting else []
    return loop(n_steps, [a, taus, *order], step, hint="qr")


def householder_product(reflectors: Value, taus: Value, n_columns: Value) -> Value:
    """The first ``n_columns`` columns of the product of the reflectors (``org2r``)."""
    m, n_steps = reflectors.dim(1), taus.dim(2)
    rows = positions(m, 1)
    q = identity(m, n_columns, reflectors.dtype)
    q = q.expand(stack_shape(reflectors, m.unsqueeze([0]), n_columns.unsqueeze([0])))

    def step(i, q):
        k = n_steps.into(i.builder) - 1 - i
        at_k = k.unsqueeze([0])
        rows_ = rows.into(i.builder)
        column = reflectors.into(i.builder).take(at_k, axis=2)
        reflector = where(rows_.eq(k), 1, where(rows_ > k, column, 0))
        tau = taus.into(i.builder).take(at_k, axis=2)
        return [q - (tau * reflector) * (mT(reflector) @ q)]

    [q] = loop(n_steps, [q], step, hint="q")
    return q


def qr(a: Value, mode: str, pivoting: bool = False):
    """The outputs of ``scipy.linalg.qr(a, mode=mode, pivoting=pivoting)``,
    the pivots as ``(batch, n)`` int64."""
    reflectors, taus, *order = householder(a, pivoting)
    order = [pivots.squeeze([1]) for pivots in order]
    n_steps = minimum(a.dim(1), a.dim(2))
    r = upper_triangle(reflectors)
    if mode in ("economic", "raw"):
        r = r.slice(0, n_steps.unsqueeze([0]), axis=1)
    if mode == "r":
        return [upper_triangle(reflectors), *order]
    if mode == "raw":
        return [reflectors, taus.squeeze([1]), r, *order]
    n_columns = n_steps if mode == "economic" else a.dim(1)
    return [householder_product(reflectors, taus, n_columns), r, *order]
