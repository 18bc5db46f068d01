"""LU with partial pivoting of tridiagonal matrices and its solves, with
LAPACK's operations in LAPACK's order (``gttrf``, ``gttrs``): the factors and
pivots are LAPACK's, bit for bit.

The diagonals are stacks of rows ``(batch, 1, length)``.
"""

from pytensor.link.onnx.numerics.linalg.stacks import (
    full,
    loop,
    positions,
    stack_shape,
)
from pytensor.link.onnx.value import Value, concat, maximum, minimum, where


def read(x: Value, index: Value) -> Value:
    """The element ``index`` (a vector of one index) of the rows ``x``, ``(batch, 1, 1)``."""
    return x.take(index, axis=2)


def write(x: Value, index: Value, value: Value) -> Value:
    """The rows ``x`` with element ``index`` (0-d) replaced by ``value``; a no-op past their end."""
    return where(positions(x.dim(2), 2).eq(index), value, x)


def tridiagonal_lu_factor(dl: Value, d: Value, du: Value):
    """LU with partial pivoting of the tridiagonal matrices with diagonals ``dl``,
    ``d`` and ``du``, as LAPACK's ``gttrf`` computes it.

    Returns
    -------
    dl, d, du, du2, ipiv
        The multipliers of ``L``, the three diagonals of ``U`` and the 1-based
        int64 pivots: row ``i`` was swapped with row ``ipiv[i] - 1``.
    """
    n = d.dim(2)
    du2 = full(d, 0, [1, maximum(n - 2, n.constant(0)).unsqueeze([0])])
    ipiv = (positions(n, 2) + 1).expand(stack_shape(d, 1, n.unsqueeze([0])))

    def step(i, dl, d, du, du2, ipiv):
        at_i = i.unsqueeze([0])
        d_i, d_next = read(d, at_i), read(d, at_i + 1)
        dl_i, du_i = read(dl, at_i), read(du, at_i)
        du_next = read(du, minimum(at_i + 1, du.shape(2, 3) - 1))
        # LAPACK's test, so that NaN swaps
        swap = ~(abs(d_i) >= abs(dl_i))
        eliminate = swap | d_i.ne(0)
        fact = where(swap, d_i / dl_i, dl_i / d_i)
        eliminated = where(
            swap,
            du_i - fact * d_next,
            where(eliminate, d_next - fact * du_i, d_next),
        )
        dl = write(dl, i, where(eliminate, fact, dl_i))
        d = write(write(d, i, where(swap, dl_i, d_i)), i + 1, eliminated)
        du = write(du, i, where(swap, d_next, du_i))
        du = write(du, i + 1, where(swap, -fact * du_next, du_next))
        du2 = write(du2, i, where(swap, du_next, 0))
        ipiv = write(ipiv, i, where(swap, i + 2, i + 1))
        return dl, d, du, du2, ipiv

    return loop(
        maximum(n - 1, n.constant(0)), [dl, d, du, du2, ipiv], step, hint="gttrf"
    )


def padded(x: Value, before: int, after: int, length: Value) -> Value:
    """The rows ``x`` with ``before`` and ``after`` zeros, cut to ``length`` (0-d)."""
    zeros = [full(x, 0, [1, count]) for count in (before, after) if count]
    parts = [*zeros[:1], x, *zeros[1:]] if before else [x, *zeros]
    return concat(parts, axis=2).slice(0, length.unsqueeze([0]), axis=2)


def replace_pair(b: Value, i: Value, row_i: Value, row_next: Value) -> Value:
    """``b`` with rows ``i`` (0-d) and ``i + 1`` replaced."""
    rows = positions(b.dim(1), 1)
    return where(rows.eq(i), row_i, where(rows.eq(i + 1), row_next, b))


def tridiagonal_lu_solve(dl, d, du, du2, ipiv, b: Value, transposed: bool):
    """``x`` with ``a @ x = b`` (``a.T @ x = b`` if ``transposed``) from the
    `tridiagonal_lu_factor` of ``a``, in the order of LAPACK's ``gttrs``."""
    n = d.dim(2)
    n_pairs = maximum(n - 1, n.constant(0))

    def apply_l(iteration, b):
        i = n.into(b.builder) - 2 - iteration if transposed else iteration
        at_i = i.unsqueeze([0])
        swap = read(ipiv.into(b.builder), at_i).eq(i + 2)
        l_i = read(dl.into(b.builder), at_i)
        b_i, b_next = b.take(at_i, axis=1), b.take(at_i + 1, axis=1)
        if transposed:
            eliminated = b_i - l_i * b_next
            return [
                replace_pair(
                    b,
                    i,
                    where(swap, b_next, eliminated),
                    where(swap, eliminated, b_next),
                )
            ]
        row_i = where(swap, b_next, b_i)
        row_next = where(swap, b_i - l_i * b_next, b_next - l_i * b_i)
        return [replace_pair(b, i, row_i, row_next)]

    if transposed:
        first, second, offset, step = padded(du, 1, 0, n), padded(du2, 2, 0, n), 2, -1
    else:
        [b] = loop(n_pairs, [b], apply_l, hint="l_solved")
        first, second, offset, step = padded(du, 0, 1, n), padded(du2, 0, 2, n), 0, 1

    def solve_u(iteration, x):
        # x holds the solution and two rows of zeros after it (before it if transposed)
        body = x.builder
        k = iteration if transposed else n.into(body) - 1 - iteration
        at_k = k.unsqueeze([0])
        at_x = at_k + offset
        value = b.into(body).take(at_k, axis=1)
        value = value - read(first.into(body), at_k) * x.take(at_x + step, axis=1)
        value = value - read(second.into(body), at_k) * x.take(at_x + 2 * step, axis=1)
        value = value / read(d.into(body), at_k)
        return [where(positions(x.dim(1), 1).eq(k + offset), value, x)]

    zeros = full(b, 0, [(n + 2).unsqueeze([0]), b.shape(2, 3)])
    [x] = loop(n, [zeros], solve_u, hint="u_solved")
    x = x.slice(offset, (n + offset).unsqueeze([0]), axis=1)
    if transposed:
        [x] = loop(n_pairs, [x], apply_l, hint="l_solved")
    return x
