"""Stacks of matrices cut into square blocks of a static size, for the blocked
algorithms (Cholesky, LU, triangular solves): a ``Loop`` runs over the blocks
and does its work with ``MatMul``, each block's own work is straight-line code.

A matrix of dynamic size ``n`` is padded to the next multiple of the block
size: with the identity on the diagonal for the matrices factored or solved
with, with zeros for right-hand sides. The padding leaves the leading ``n``
rows and columns of every result as they are.

Small matrices (the covariance matrices of statistical models) skip the
``Loop``: a static size of at most `UNROLLED_BLOCKS` blocks runs them one
after another (`block_loop`), a static size up to `BLOCK` is one block,
and a dynamic size up to `BLOCK` is padded to the first of `UNROLLED_SIZES`
that holds it, the choice made at run time by an ``If`` (`by_size`). An
operation made of several such algorithms (a solve: a factorization and two
triangular solves) makes that choice once for all of them (`chosen_once`).
"""

import numpy as np

from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal_mask,
    loop,
    positions,
    static_masks,
    unrolled_loop,
)
from pytensor.link.onnx.value import (
    INT64_MAX,
    Value,
    arange,
    concat,
    either,
    maximum,
    where,
)


BLOCK = 16
UNROLLED_SIZES = (2, 4, 8, BLOCK)
# A static size of at most this many blocks runs its blocks as straight-line
# code rather than a ``Loop`` (about 2 µs an iteration in onnxruntime)
UNROLLED_BLOCKS = 4


class Blocked:
    """The ``size`` of matrices with a dynamic number of rows that is known to
    exceed `BLOCK`: `by_size` then builds the ``Loop`` alone, without an ``If``."""

    def __repr__(self):
        return "BLOCKED"


BLOCKED = Blocked()


def static(size: int | Blocked | None) -> int | None:
    """``size`` if it is a static number of rows, else ``None``."""
    return None if size is BLOCKED else size


def block_size(size: int | Blocked | None) -> int:
    """The block size for matrices of ``size`` rows: `BLOCK` for a dynamic
    size, else the smallest size of as few blocks as of `BLOCK` rows (17
    rows: two blocks of 9), so that little is padded."""
    if size is None or size is BLOCKED:
        return BLOCK
    blocks = -(-size // BLOCK)
    return -(-size // blocks)


def by_size(n: Value, size: int | Blocked | None, unrolled, blocked) -> list[Value]:
    """``unrolled(bound)`` (straight-line code for matrices of ``n <= bound``
    rows) or ``blocked()`` (a ``Loop`` over blocks), lists of stacks.

    For a static ``size``, ``unrolled(size)`` up to `BLOCK`; for `BLOCKED`,
    ``blocked()``; for a dynamic one, an ``If`` on ``n <= BLOCK`` chooses
    the ``Loop`` or an ``If`` among the bounds of `UNROLLED_SIZES`, so that
    larger matrices pass one ``If`` (each costs onnxruntime several µs).
    """
    if size is BLOCKED:
        return blocked()
    if size is not None:
        return unrolled(size) if 0 < size <= BLOCK else blocked()
    small = unrolled(UNROLLED_SIZES[-1])
    for bound in reversed(UNROLLED_SIZES[:-1]):
        small = either(n <= bound, unrolled(bound), small, ndim=3)
    return either(n <= BLOCK, small, blocked(), ndim=3)


def chosen_once(operation, size: int | None, stacks, cut_axes) -> list[Value]:
    """``operation(*stacks, size)``, a list of stacks, for an operation made of
    algorithms that each choose their code by `by_size`, with that choice
    made once for all of them.

    ``stacks`` are pairs ``(x, square)``: for a dynamic ``size``, each branch
    of `by_size` pads ``x`` (padded as by `padded_to`) to its bound, calls
    ``operation`` with that static bound (or with `BLOCKED`), and cuts each
    result to ``n`` along its axes in ``cut_axes`` (lists, one per result).
    """
    if size is not None:
        return list(operation(*(x for x, _ in stacks), size))
    n = stacks[0][0].dim(1)

    def unrolled(bound):
        inputs = (padded_to(x, bound, square=square, size=None) for x, square in stacks)
        results = operation(*inputs, bound)
        return [cut(x, n, axes) for x, axes in zip(results, cut_axes, strict=True)]

    return by_size(
        n, None, unrolled, lambda: list(operation(*(x for x, _ in stacks), BLOCKED))
    )


def cut(x: Value, n: Value, axes) -> Value:
    """``x`` cut to its first ``n`` (0-d int64) rows (axis 1) and/or columns (2)."""
    for axis in axes:
        x = x.slice(0, n.unsqueeze([0]), axis=axis)
    return x


def block_loop(n: Value, block: int, size: int | None, states, step, hint):
    """`~pytensor.link.onnx.numerics.linalg.stacks.loop` over the blocks of
    ``block`` rows that cover ``n``; for a static ``size`` of at most
    `UNROLLED_BLOCKS` blocks, the iterations one after another without a
    ``Loop``."""
    blocks = None if size is None else -(-size // block)
    if blocks is not None and blocks <= UNROLLED_BLOCKS:
        return unrolled_loop(blocks, states, step)
    return loop(block_count(n, block), states, step, hint=hint)


def block_count(n: Value, block: int) -> Value:
    """The number of blocks of ``block`` rows that cover ``n`` rows (0-d int64),
    at least one: the ``Loop`` over them then has its scan outputs' shapes."""
    return maximum((n + (block - 1)) / block, 1)  # int64 Div: rounded down


def padded(x: Value, block: int, *, square: bool, size: int | None = None) -> Value:
    """``x`` with its rows (and its columns, if ``square``) padded to a multiple
    of ``block``: identity on the diagonal if ``square``, zeros otherwise;
    ``x`` itself if its static number of rows ``size`` is one."""
    if size is not None and size % block == 0:
        return x
    n = x.dim(1)
    padding = (block_count(n, block) * block - n).unsqueeze([0])
    zeros = x.indices([0, 0, 0, 0])
    pads = concat([zeros, padding, padding if square else x.indices([0])], axis=0)
    x = x.apply("Pad", x, pads)
    if not square:
        return x
    size = x.dim(1)
    in_padding = diagonal_mask(size, size) & (positions(size, 1) >= n)
    return where(in_padding, 1, x)


def padded_to(x: Value, bound: int, *, square: bool, size: int | None) -> Value:
    """``x`` with its ``n <= bound`` rows (and columns, if ``square``) padded to
    ``bound`` as in `padded`; ``x`` itself if its static ``size`` is ``bound``."""
    if size == bound:
        return x
    n = x.dim(1)
    padding = (bound - n).unsqueeze([0])
    pads = concat(
        [x.indices([0] * 4), padding, padding if square else x.indices([0])], 0
    )
    x = x.apply("Pad", x, pads)
    if not square:
        return x
    in_padding = static_masks(x, bound)[0] & (x.indices(np.arange(bound)) >= n)
    return where(in_padding, 1, x)


def block_rows(x: Value, start: Value, block: int, axis: int) -> Value:
    """``block`` rows (``axis=1``) or columns (2) of ``x`` from ``start`` (0-d int64)."""
    start = start.unsqueeze([0])
    return x.slice(start, start + block, axis=axis)


def diagonal_blocks(x: Value, block: int) -> Value:
    """The square blocks of ``block`` rows on the diagonal of the square stack
    ``x`` of a multiple of ``block`` rows: ``(batch, blocks, block, block)``."""
    count = x.dim(1) / block  # int64 Div
    batch, blocks, side = x.shape(0, 1), count.unsqueeze([0]), x.indices([block])
    grid = x.reshape(concat([batch, blocks, side, blocks, side], axis=0))
    pairs = grid.transpose([0, 1, 3, 2, 4]).reshape(
        concat([batch, x.indices([-1, block, block])], axis=0)
    )
    return pairs.take(arange(count) * (count + 1), axis=1)


def corner(x: Value, start: int, end: int | None = None) -> Value:
    """The square ``x[:, start:end, start:end]``, in one ``Slice``."""
    bounds = [x.indices([bound] * 2) for bound in (start, end or INT64_MAX)]
    return x.apply("Slice", x, *bounds, x.indices([1, 2]))


def unstacked(blocks: Value, n: Value, axis: int) -> Value:
    """The scan output ``(blocks, batch, rows, columns)`` of a ``Loop`` over the
    blocks of rows (``axis=1``) or columns (2) of a stack, as that stack
    ``(batch, rows, columns)`` cut to its first ``n`` rows (or columns)."""
    stack = blocks.transpose([1, 0, 2, 3] if axis == 1 else [1, 2, 0, 3])
    lengths = [stack.shape(0, 1), stack.indices([-1])]
    if axis == 1:
        lengths.append(stack.shape(3))
    else:
        lengths.insert(1, stack.shape(1, 2))
    return cut(stack.reshape(concat(lengths, axis=0)), n, [axis])


def lower_triangular_inverse(t: Value, size: int) -> Value:
    """The inverse of the lower triangular ``size`` x ``size`` stack ``t``, by
    recursive doubling: ``inv([[A, 0], [C, B]]) = [[inv(A), 0], [-inv(B) @ C
    @ inv(A), inv(B)]]`` for all the pairs of blocks of one size at once
    (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed.,
    section 14.2.2), on ``t`` padded with the identity to a power of two."""
    power = 1 << (size - 1).bit_length()
    if power != size:
        padding = np.diag(np.arange(power) >= size).astype(t.dtype)[None]
        pads = t.indices([0, 0, 0, 0, power - size, power - size])
        t = t.apply("Pad", t, pads) + t.constant(padding)
        return corner(lower_triangular_inverse(t, power), 0, size)
    flat = t.reshape(t.indices([-1, size * size]))
    at = np.arange(size)
    inverse = 1 / flat.take(at * (size + 1), axis=1).unsqueeze([2, 3])
    negated = -flat
    half = 1
    while half < size:
        starts = np.arange(0, size, 2 * half)
        rows, columns = np.ix_(at[:half], at[:half])
        corners = (
            (starts[:, None, None] + half + rows) * size
            + starts[:, None, None]
            + columns
        )
        first = inverse.take(np.arange(0, size // half, 2), axis=1)
        second = inverse.take(np.arange(1, size // half, 2), axis=1)
        below = second @ negated.take(corners, axis=1) @ first
        pads = first.indices([0] * 7 + [half])
        top = first.apply("Pad", first, pads)
        inverse = concat([top, concat([below, second], axis=3)], axis=2)
        half *= 2
    return inverse.reshape(t.indices([-1, size, size]))
