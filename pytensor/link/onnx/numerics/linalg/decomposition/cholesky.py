"""Cholesky decomposition, blocked and right-looking (LAPACK's ``potrf``).

A ``Loop`` runs over blocks of `BLOCK` columns. Each iteration factors the
diagonal block with straight-line code, one step of symmetric Gaussian
elimination per column (``potf2`` without square roots, which come once at
the end), carried out on the block augmented with the identity so that the
same steps give the inverse of its factor; the panel below it is then one
``MatMul`` with that inverse, and the trailing matrix is updated with one more
(Golub and Van Loan, *Matrix Computations*, 4th ed., algorithms 4.2.1 and
4.2.2, and section 3.1.8 for elimination on an augmented matrix).
"""

from pytensor.link.onnx.numerics.linalg.blocks import (
    block_count,
    corner,
    padded,
    unstacked,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal,
    identity,
    loop,
    mT,
    nan_where,
    symmetric_from,
    upper_triangle,
)
from pytensor.link.onnx.value import Value, concat


BLOCK = 16


def factor_block(a: Value, size: int):
    """The lower Cholesky factor of the symmetric ``size`` x ``size`` stack
    ``a`` and its inverse, by ``size`` unrolled elimination steps.

    Step ``k`` subtracts multiples of row ``k`` of ``[a | I]`` from the rows
    below it; the rows it leaves are ``[D @ L.T | inv(L_unit)]`` for ``a = L_unit
    @ D @ L_unit.T``, so that ``L = L_unit @ sqrt(D)``.
    """
    eye = identity(a.indices(size), a.indices(size), a.dtype).expand(a.shape())
    rest = concat([a, eye], axis=2)
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
    augmented = concat([*rows, rest], axis=1)
    upper, unit_inverse = augmented.apply_multi(
        "Split", augmented, a.indices([size, size]), dtypes=(a.dtype,) * 2, axis=2
    )
    roots = diagonal(upper, 2).sqrt()
    return mT(upper_triangle(upper) / roots), unit_inverse / roots


def cholesky(a: Value):
    """The lower Cholesky factor of ``a`` from its lower triangle (``potrf``).

    Also returns whether ``a`` is not positive definite, ``(batch, 1, 1)`` bool:
    a pivot is not positive (or NaN).
    """
    n = a.dim(1)

    def step(i, trailing):
        factor, inverse = factor_block(corner(trailing, 0, BLOCK), BLOCK)
        below = trailing.slice(BLOCK, None, axis=1).slice(0, BLOCK, axis=2)
        panel = below @ mT(inverse)
        trailing = corner(trailing, BLOCK) - panel @ mT(panel)
        columns = concat([factor, panel], axis=1)
        on_top = (i * BLOCK).unsqueeze([0])
        pads = concat([columns.indices([0]), on_top, columns.indices([0] * 4)], 0)
        return trailing, columns.apply("Pad", columns, pads)

    start = padded(symmetric_from(a, lower=True), BLOCK, square=True)
    _, blocks = loop(block_count(n, BLOCK), [start], step, hint="cholesky")
    factor = unstacked(blocks, n, axis=2).slice(0, n.unsqueeze([0]), axis=1)
    return factor, (~(diagonal(factor, 2) > 0)).any_along([1])


def cholesky_of_triangle(a: Value, lower: bool):
    """The Cholesky factor (lower or upper) of the triangle of ``a``, NaN where it fails."""
    factor, failed = cholesky(a if lower else mT(a))
    factor = nan_where(failed, factor)
    return factor if lower else mT(factor)
