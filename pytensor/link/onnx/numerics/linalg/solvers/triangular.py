"""Triangular solves, blocked (LAPACK's ``trtrs`` through ``trsm``).

A ``Loop`` runs over blocks of 16 rows (fewer for a static size,
`~pytensor.link.onnx.numerics.linalg.blocks.block_size`) of the solution, from
the first (lower triangular) or from the last (upper): each iteration
multiplies its rows of the right-hand sides by the inverse of the diagonal
block, then subtracts their contribution from the rows still to solve with
one ``MatMul``. The inverses of all the diagonal blocks are computed at once
before the ``Loop``, by recursive doubling
(`~pytensor.link.onnx.numerics.linalg.blocks.lower_triangular_inverse`).
A system of at most 16 rows is one block, without a ``Loop``
(`~pytensor.link.onnx.numerics.linalg.blocks.by_size`): the inverse of its
matrix times the right-hand sides.

The solves read the triangle of the system alone and leave the other one as
it is, whatever it holds.
"""

from pytensor.link.onnx.numerics.linalg.blocks import (
    block_count,
    block_loop,
    block_rows,
    block_size,
    by_size,
    cut,
    diagonal_blocks,
    lower_triangular_inverse,
    padded,
    padded_to,
    static,
    unstacked,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal_mask,
    mT,
    static_masks,
)
from pytensor.link.onnx.value import Value, arange, where


def triangular_inverse(t: Value, size: int, lower: bool) -> Value:
    """The inverse of the lower (or upper) triangle of the ``size`` x ``size`` stack ``t``."""
    if lower:
        return lower_triangular_inverse(t, size)
    return mT(lower_triangular_inverse(mT(t), size))


def with_unit_diagonal(t: Value, size: int | None) -> Value:
    """``t`` with ones on its diagonal (``size`` rows if static)."""
    if size is None:
        n = t.dim(1)
        return where(diagonal_mask(n, n), 1, t)
    return where(static_masks(t, size)[0], 1, t)


def substitute(
    t: Value, b: Value, *, lower: bool, unit_diagonal=False, size: int | None = None
) -> Value:
    """``x`` with ``t @ x = b``, reading the lower (or upper) triangle of ``t``
    only; ``size`` is the static number of rows of ``t``, if known.

    Blocked forward (or backward) substitution.
    """
    n = t.dim(1)

    def unrolled(bound):
        t_, b_ = (
            padded_to(x, bound, square=square, size=size)
            for x, square in ((t, True), (b, False))
        )
        if unit_diagonal:
            t_ = with_unit_diagonal(t_, bound)
        x = triangular_inverse(t_, bound, lower) @ b_
        return [x if size == bound else cut(x, n, [1])]

    def blocked_():
        t_ = with_unit_diagonal(t, None) if unit_diagonal else t
        return [blocked(t_, b, n, block_size(size), lower, static(size))]

    [x] = by_size(n, size, unrolled, blocked_)
    return x


def blocked(
    t: Value, b: Value, n: Value, block: int, lower: bool, size: int | None = None
) -> Value:
    """``x`` with ``t @ x = b`` for the lower (or upper) triangular stack ``t``
    of ``n`` rows (``size`` if static), by `block_loop` over its blocks from
    the first (or the last)."""
    t = padded(t, block, square=True, size=size)
    blocks = diagonal_blocks(t, block)
    inverses = triangular_inverse(
        blocks.reshape(t.indices([-1, block, block])), block, lower
    ).reshape(blocks.shape())
    count = block_count(n, block)

    def step(i, rest):
        at = i if lower else count.into(i.builder) - 1 - i
        inverse = inverses.into(i.builder).take(at, axis=1)
        start = at * block
        columns = block_rows(t.into(i.builder), start, block, 2)
        if lower:
            solved = inverse @ rest.slice(0, block, axis=1)
            below = columns.slice((start + block).unsqueeze([0]), None, axis=1)
            return rest.slice(block, None, axis=1) - below @ solved, solved
        solved = inverse @ block_rows(rest, start, block, 1)
        above = columns.slice(0, start.unsqueeze([0]), axis=1)
        return rest.slice(0, start.unsqueeze([0]), axis=1) - above @ solved, solved

    start = padded(b, block, square=False, size=size)
    _, solutions = block_loop(n, block, size, [start], step, hint="solved")
    if not lower:
        # not Gather of Range(count - 1, -1, -1): onnxruntime 1.31.1
        # (optimizations on) returns no rows for it
        solutions = solutions.take(count - 1 - arange(count), axis=0)
    return unstacked(solutions, n, axis=1)
