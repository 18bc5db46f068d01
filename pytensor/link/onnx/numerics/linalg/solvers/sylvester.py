"""Sylvester equations of quasi-triangular matrices (LAPACK's ``trsyl``), an
anti-diagonal of 1x1 and 2x2 diagonal blocks per iteration."""

import numpy as np

from pytensor.link.onnx.numerics.linalg.decomposition.lu import lu_factor
from pytensor.link.onnx.numerics.linalg.solvers.general import lu_solve
from pytensor.link.onnx.numerics.linalg.stacks import (
    loop,
    mT,
    none_of,
    positions,
    stack_shape,
)
from pytensor.link.onnx.value import Value, concat, maximum, where


def diagonal_blocks(t: Value):
    """The 1x1 and 2x2 diagonal blocks of the upper quasi-triangular stack ``t``.

    A 2x2 block has a nonzero subdiagonal element ``t[i, i - 1]``, as LAPACK
    reads it. Per row ``i``:

    Returns
    -------
    blocks
        ``(batch, n, 2, 2)``: the block of row ``i``, a 1x1 block ``[[x]]``
        as ``[[x, 0], [0, x]]``.
    block_rows
        ``(batch, n, 2)`` int64: the rows of the block (the same twice for a 1x1 block).
    offset
        ``(batch, n, 1)`` int64: ``i`` minus the first row of its block.
    """
    n = t.dim(1)
    rows, columns = positions(n, 1), positions(n, 2)
    second = where(rows.eq(columns + 1), t, 0).sum([2]).ne(0)
    after_second = concat(
        [second.slice(1, n.unsqueeze([0]), axis=1), none_of(t)], axis=1
    )
    is_two = second | after_second
    offset = second.cast("int64")
    first = rows - offset
    block_rows = concat([first, first + is_two.cast("int64")], axis=2)
    flat_index = block_rows.unsqueeze([3]) * n + block_rows.unsqueeze([2])
    blocks = t.reshape(stack_shape(t, -1)).take_along(
        flat_index.reshape(stack_shape(t, -1)), axis=1
    )
    blocks = blocks.reshape(stack_shape(t, n.unsqueeze([0]), 2, 2))
    on_diagonal = blocks.constant(np.eye(2, dtype=bool), "bool")
    blocks = where(on_diagonal | is_two.unsqueeze([3]), blocks, 0)
    return blocks, block_rows, offset


def sylvester_of_quasi_triangular(a: Value, b: Value, c: Value) -> Value:
    """``x`` with ``a @ x + x @ b = c`` for upper quasi-triangular ``a`` and ``b``.

    Like LAPACK's ``trsyl``, solves for one pair of diagonal blocks of ``a``
    and ``b`` at a time, from the bottom left corner; here all the pairs of
    an anti-diagonal of blocks at once, as 4x4 linear systems (two uncoupled
    copies of a 1x1 or 2x2 system when a block is 1x1).
    """
    m, n = a.dim(1), b.dim(1)
    a_blocks, a_rows, a_offset = diagonal_blocks(a)
    b_blocks, b_columns, b_offset = diagonal_blocks(b)
    a_starts, b_starts = 1 - a_offset, 1 - b_offset
    blocks_below = a_starts.apply(
        "CumSum", a_starts, a_starts.indices(1), exclusive=1, reverse=1
    )
    blocks_left = b_starts.apply("CumSum", b_starts, b_starts.indices(1)) - 1
    # the blocks of c solved in the same iteration
    anti_diagonal = blocks_below + mT(blocks_left)
    upper_a = where(mT(blocks_below) < blocks_below, a, 0)
    upper_b = where(blocks_left < mT(blocks_left), b, 0)

    # kron(I, a_block) + kron(b_block.T, I) for each element (k, l), with axes
    # (batch, k, l, r, c, r', c') for x[r, c] of the block of (k, l)
    eye = np.eye(2)
    a_term = a_blocks.reshape(stack_shape(a, m.unsqueeze([0]), 1, 2, 1, 2, 1))
    a_term = a_term * a.constant(eye.reshape(1, 1, 1, 1, 2, 1, 2))
    b_term = b_blocks.apply("Transpose", b_blocks, perm=[0, 1, 3, 2])
    b_term = b_term.reshape(stack_shape(b, 1, n.unsqueeze([0]), 1, 2, 1, 2))
    b_term = b_term * b.constant(eye.reshape(1, 1, 1, 2, 1, 2, 1))
    systems = (a_term + b_term).reshape(a.indices([-1, 4, 4]))
    lu, permutation, _, _ = lu_factor(systems, 4)

    rhs_index = a_rows.reshape(stack_shape(a, m.unsqueeze([0]), 1, 2, 1)) * n
    rhs_index = rhs_index + b_columns.reshape(stack_shape(b, 1, n.unsqueeze([0]), 1, 2))
    rhs_index = rhs_index.reshape(stack_shape(a, -1))
    own = (a_offset * 2 + mT(b_offset)).reshape(stack_shape(a, -1, 1))

    def step(iteration, x):
        body = x.builder
        residual = c.into(body) - upper_a.into(body) @ x - x @ upper_b.into(body)
        rhs = residual.reshape(stack_shape(x, -1)).take_along(
            rhs_index.into(body), axis=1
        )
        solved = lu_solve(
            lu.into(body),
            permutation.into(body),
            rhs.reshape(rhs.indices([-1, 4, 1])),
            size=4,
        )
        solved = solved.reshape(stack_shape(x, -1, 4)).take_along(
            own.into(body), axis=2
        )
        in_iteration = anti_diagonal.into(body).eq(iteration)
        return [where(in_iteration, solved.reshape(x.shape()), x)]

    n_iterations = a_starts.sum([1]) + b_starts.sum([1]) - 1
    n_iterations = maximum(n_iterations.max([0]).squeeze([0, 1, 2]), m.constant(0))
    [x] = loop(n_iterations, [c.full_like(0)], step, hint="trsyl")
    return x
