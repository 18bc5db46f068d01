"""Triangular solves, blocked (LAPACK's ``trtrs`` through ``trsm``).

A ``Loop`` runs over blocks of 16 rows (fewer for a static size,
`~pytensor.link.onnx.numerics.linalg.blocks.block_size`) of the solution: each iteration
multiplies its rows of the right-hand sides by the inverse of the diagonal
block, then subtracts their contribution from the rows below with one
``MatMul``. The inverse of a diagonal block is straight-line code by
recursive doubling (`~pytensor.link.onnx.numerics.linalg.blocks.lower_triangular_inverse`).
A system of at most 16 rows is one block, without a ``Loop``
(`~pytensor.link.onnx.numerics.linalg.blocks.by_size`): the inverse of its
matrix times the right-hand sides.
"""

from pytensor.link.onnx.numerics.linalg.blocks import (
    block_count,
    block_rows,
    block_size,
    by_size,
    cut,
    diagonal_blocks,
    lower_triangular_inverse,
    padded,
    padded_to,
    unstacked,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal_mask,
    loop,
    static_masks,
)
from pytensor.link.onnx.value import Value, arange, where


def reversed_rows(x: Value, axes, size: int | None = None) -> Value:
    """``x`` with the order of its rows (axis 1) and/or columns (2) reversed
    (``size`` of them if static)."""
    for axis in axes:
        if size is not None:
            x = x.take(list(range(size - 1, -1, -1)), axis=axis)
            continue
        # not Gather of Range(n - 1, -1, -1): onnxruntime 1.31.1 (optimizations
        # on) returns no rows for it, unless the Range is also a graph output
        n = x.dim(axis)
        x = x.take(n - 1 - arange(n), axis=axis)
    return x


def lower_system(t: Value, b: Value, lower: bool, unit_diagonal, size=None):
    """The lower triangular system that ``t @ x = b`` is, for the lower (or
    upper) triangle of ``t``: an upper triangular system becomes the lower
    triangular one of its rows and columns in reverse order (and its solution
    is then in reverse order). ``size``: the static size of ``t``.

    The solves read the lower triangle alone (`blocked` and
    `~pytensor.link.onnx.numerics.linalg.blocks.lower_triangular_inverse`),
    so the other one is left as it is, whatever it holds."""
    if not lower:
        t, b = reversed_rows(t, [1, 2], size), reversed_rows(b, [1], size)
    if not unit_diagonal:
        return t, b
    if size is None:
        n = t.dim(1)
        on_diagonal = diagonal_mask(n, n)
    else:
        on_diagonal = static_masks(t, size)[0]
    return where(on_diagonal, 1, t), b


def substitute(
    t: Value, b: Value, *, lower: bool, unit_diagonal=False, size: int | None = None
) -> Value:
    """``x`` with ``t @ x = b``, reading the lower (or upper) triangle of ``t``
    only; ``size`` is the static number of rows of ``t``, if known.

    Blocked forward substitution (of the reversed system if upper triangular).
    """
    n = t.dim(1)

    def unrolled(bound):
        t_, b_ = (
            padded_to(x, bound, square=square, size=size)
            for x, square in ((t, True), (b, False))
        )
        t_, b_ = lower_system(t_, b_, lower, unit_diagonal, bound)
        x = lower_triangular_inverse(t_, bound) @ b_
        x = x if lower else reversed_rows(x, [1], bound)
        return [x if size == bound else cut(x, n, [1])]

    def blocked_():
        x = blocked(*lower_system(t, b, lower, unit_diagonal), n, block_size(size))
        return [x if lower else reversed_rows(x, [1])]

    [x] = by_size(n, size, unrolled, blocked_)
    return x


def blocked(t: Value, b: Value, n: Value, block: int) -> Value:
    """``x`` with ``t @ x = b`` for the lower triangular stack ``t`` of ``n``
    rows, by a ``Loop`` over its blocks; the inverses of all the diagonal
    blocks are computed at once, before it."""
    t = padded(t, block, square=True)
    blocks = diagonal_blocks(t, block)
    inverses = lower_triangular_inverse(
        blocks.reshape(t.indices([-1, block, block])), block
    ).reshape(blocks.shape())

    def step(i, rest):
        start = i * block
        solved = inverses.into(i.builder).take(i, axis=1) @ rest.slice(0, block, 1)
        below = block_rows(t.into(i.builder), start, block, 2)
        below = below.slice((start + block).unsqueeze([0]), None, axis=1)
        return rest.slice(block, None, axis=1) - below @ solved, solved

    _, solutions = loop(
        block_count(n, block), [padded(b, block, square=False)], step, hint="solved"
    )
    return unstacked(solutions, n, axis=1)
