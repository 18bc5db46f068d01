"""Cholesky decomposition, blocked and right-looking (LAPACK's ``potrf``).

A ``Loop`` runs over blocks of 16 columns (fewer for a static size,
`~pytensor.link.onnx.numerics.linalg.blocks.block_size`). Each iteration factors the
diagonal block with straight-line code, one step of symmetric Gaussian
elimination per column (``potf2`` without square roots, which come once at
the end), carried out on the block augmented with the identity so that the
same steps give the inverse of its factor; the panel below it is then one
``MatMul`` with that inverse, and the trailing matrix is updated with one more
(Golub and Van Loan, *Matrix Computations*, 4th ed., algorithms 4.2.1 and
4.2.2, and section 3.1.8 for elimination on an augmented matrix). A matrix of
at most 16 rows is one diagonal block, without a ``Loop``
(`~pytensor.link.onnx.numerics.linalg.blocks.by_size`).
"""

from pytensor.link.onnx.numerics.linalg.blocks import (
    block_loop,
    block_size,
    by_size,
    corner,
    cut,
    padded,
    padded_to,
    static,
    unstacked,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal,
    mT,
    nan_where,
    static_masks,
    symmetric_from,
)
from pytensor.link.onnx.value import Value, concat, where


def factor_block(a: Value, size: int, with_inverse=True):
    """The lower Cholesky factor of the symmetric ``size`` x ``size`` stack
    ``a`` and, if ``with_inverse``, its inverse (else its squared diagonal, as
    columns), by ``size`` unrolled elimination steps.

    Step ``k`` subtracts multiples of row ``k`` of ``[a | I]`` from the rows
    below it; the rows it leaves are ``[D @ L.T | inv(L_unit)]`` for ``a = L_unit
    @ D @ L_unit.T``, so that ``L = L_unit @ sqrt(D)``.
    """
    on_diagonal, lower = static_masks(a, size)
    rest = (
        concat([a, on_diagonal.cast(a.dtype).expand(a.shape())], 2)
        if with_inverse
        else a
    )
    rows = []
    for k in range(size - 1):
        row, rest = rest.apply_multi(
            "Split",
            rest,
            rest.indices([1, size - k - 1]),
            dtypes=(a.dtype,) * 2,
            axis=1,
        )
        multipliers = rest.slice(k, k + 1, axis=2) / row.slice(k, k + 1, axis=2)
        rest = rest - multipliers @ row
        rows.append(row)
    upper = concat([*rows, rest], axis=1) if rows else rest
    if with_inverse:
        upper, unit_inverse = upper.apply_multi(
            "Split", upper, a.indices([size, size]), dtypes=(a.dtype,) * 2, axis=2
        )
    pivots = diagonal(upper, 2, size)
    roots = pivots.sqrt()
    factor = mT(where(mT(lower), upper, 0) / roots)
    return factor, unit_inverse / roots if with_inverse else pivots


def cholesky(a: Value, size: int | None = None):
    """The lower Cholesky factor of ``a`` from its lower triangle (``potrf``),
    for matrices of ``size`` rows if static.

    Also returns whether ``a`` is not positive definite, ``(batch, 1, 1)`` bool:
    a pivot is not positive (or NaN).
    """
    n = a.dim(1)

    def unrolled(bound):
        x = padded_to(a, bound, square=True, size=size)
        x = where(static_masks(x, bound)[1], x, mT(x))
        factor, pivots = factor_block(x, bound, with_inverse=False)
        factor = factor if size == bound else cut(factor, n, [1, 2])
        return [factor, not_positive(pivots)]

    def blocked_():
        factor = blocked(
            symmetric_from(a, lower=True), n, block_size(size), static(size)
        )
        return [factor, not_positive(diagonal(factor, 2))]

    return tuple(by_size(n, size, unrolled, blocked_))


def not_positive(pivots: Value) -> Value:
    """Whether any of the ``(batch, n, 1)`` ``pivots`` is not positive (or is
    NaN), ``(batch, 1, 1)`` bool."""
    return (~(pivots > 0)).any_along([1])


def blocked(a: Value, n: Value, block: int, size: int | None = None) -> Value:
    """The lower Cholesky factor of the symmetric stack ``a`` of ``n`` rows
    (``size`` if static), by `block_loop` over its blocks."""

    def step(i, trailing):
        factor, inverse = factor_block(corner(trailing, 0, block), block)
        below = trailing.slice(block, None, axis=1).slice(0, block, axis=2)
        panel = below @ mT(inverse)
        trailing = corner(trailing, block) - panel @ mT(panel)
        columns = concat([factor, panel], axis=1)
        on_top = (i * block).unsqueeze([0])
        pads = concat([columns.indices([0]), on_top, columns.indices([0] * 4)], 0)
        return trailing, columns.apply("Pad", columns, pads)

    start = padded(a, block, square=True, size=size)
    _, blocks = block_loop(n, block, size, [start], step, hint="cholesky")
    return cut(unstacked(blocks, n, axis=2), n, [1])


def cholesky_of_triangle(a: Value, lower: bool, size: int | None = None):
    """The Cholesky factor (lower or upper) of the triangle of ``a``, NaN where it fails."""
    factor, failed = cholesky(a if lower else mT(a), size)
    factor = nan_where(failed, factor)
    return factor if lower else mT(factor)


def is_positive_definite(a: Value, size: int | None = None) -> Value:
    """Whether each matrix of the stack ``a`` is positive definite, read from
    its lower triangle, ``(batch, 1, 1)`` bool: the Cholesky factorization
    meets only positive pivots (a NaN or infinite entry gives false)."""
    _, failed = cholesky(a, size)
    return ~failed
