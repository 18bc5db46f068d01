"""Triangular solves, blocked (LAPACK's ``trtrs`` through ``trsm``).

A ``Loop`` runs over blocks of `BLOCK` rows of the solution: each iteration
multiplies its rows of the right-hand sides by the inverse of the diagonal
block, then subtracts their contribution from the rows below with one
``MatMul``. The inverse of a diagonal block is straight-line code by
recursive doubling, ``inv([[A, 0], [C, B]]) = [[inv(A), 0], [-inv(B) @ C @
inv(A), inv(B)]]`` for all the pairs of blocks of one size at once (Higham,
*Accuracy and Stability of Numerical Algorithms*, 2nd ed., section 14.2.2).
"""

import numpy as np

from pytensor.link.onnx.numerics.linalg.blocks import (
    block_count,
    block_rows,
    padded,
    unstacked,
)
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal_mask,
    loop,
    lower_triangle,
)
from pytensor.link.onnx.value import Value, arange, concat, where


BLOCK = 16


def lower_triangular_inverse(t: Value, size: int) -> Value:
    """The inverse of the lower triangular ``size`` x ``size`` stack ``t``
    (``size`` a power of two), by recursive doubling."""
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


def reversed_rows(x: Value, axes) -> Value:
    """``x`` with the order of its rows (axis 1) and/or columns (2) reversed."""
    for axis in axes:
        # not Gather of Range(n - 1, -1, -1): onnxruntime 1.31.1 (optimizations
        # on) returns no rows for it, unless the Range is also a graph output
        n = x.dim(axis)
        x = x.take(n - 1 - arange(n), axis=axis)
    return x


def substitute(t: Value, b: Value, *, lower: bool, unit_diagonal=False) -> Value:
    """``x`` with ``t @ x = b``, reading the lower (or upper) triangle of ``t`` only.

    Blocked forward substitution; an upper triangular system is solved as
    the lower triangular one of its rows and columns in reverse order.
    """
    n = t.dim(1)
    if not lower:
        t, b = reversed_rows(t, [1, 2]), reversed_rows(b, [1])
    t = lower_triangle(t, strict=unit_diagonal)
    if unit_diagonal:
        t = where(diagonal_mask(n, n), 1, t)
    t = padded(t, BLOCK, square=True)

    def step(i, rest):
        start = i * BLOCK
        inverse = lower_triangular_inverse(
            block_rows(block_rows(t.into(i.builder), start, BLOCK, 1), start, BLOCK, 2),
            BLOCK,
        )
        solved = inverse @ rest.slice(0, BLOCK, axis=1)
        below = block_rows(t.into(i.builder), start, BLOCK, 2)
        below = below.slice((start + BLOCK).unsqueeze([0]), None, axis=1)
        return rest.slice(BLOCK, None, axis=1) - below @ solved, solved

    _, blocks = loop(
        block_count(n, BLOCK), [padded(b, BLOCK, square=False)], step, hint="solved"
    )
    x = unstacked(blocks, n, axis=1)
    return x if lower else reversed_rows(x, [1])
