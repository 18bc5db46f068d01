"""Converters for the decompositions and solvers of ``scipy.linalg`` in PyTensor.

ONNX has no linear algebra beyond ``MatMul`` (and onnxruntime has no float64
kernel for its ``Det``), so the decompositions are ``Loop``s of masked
rank-one updates, one row or column per iteration, following LAPACK's
unblocked routines:

- LU with partial pivoting (``getf2``): ``LU``, ``LUFactor``, ``Solve``, the
  inverse and the determinants;
- Cholesky, column by column (``potf2``), reading one triangle;
- forward and back substitution (``trtrs``);
- Householder QR (``geqr2``, ``org2r``) with LAPACK's reflectors, so that
  ``R`` has LAPACK's signs;
- the cyclic Jacobi eigenvalue algorithm (``eigh``, ``eigvalsh``) and the
  one-sided Jacobi SVD, rotating ``n / 2`` disjoint pairs of rows or columns
  at once in round-robin order, until the off-diagonal part is negligible.
  Eigenvectors and singular vectors are determined up to their signs only,
  and their signs may differ from LAPACK's;
- Padé approximation of degree 13 with scaling and squaring (``expm``);
- LU with partial pivoting of tridiagonal matrices and its solves, with
  LAPACK's operations in LAPACK's order (``gttrf``, ``gttrs``): the factors
  and pivots are LAPACK's, bit for bit;
- Sylvester equations of quasi-triangular matrices (``trsyl``), an
  anti-diagonal of 1x1 and 2x2 diagonal blocks per iteration.

The Schur and QZ decompositions are not unique and are not converted.

Every kernel works on a stack of matrices ``(batch, rows, columns)``, so that
one graph serves a core Op (a stack of one matrix) and its ``Blockwise``.
"""

from typing import NamedTuple

import numpy as np

from pytensor.link.onnx.dispatch.basic import UNSUPPORTED_OP_REASONS, onnx_funcify
from pytensor.link.onnx.dispatch.blockwise import (
    batch_ndim,
    broadcast_batch_shape,
    core_node_of,
    flatten_batch,
    onnx_funcify_batched,
)
from pytensor.link.onnx.value import Value, arange, concat, maximum, minimum, where


try:  # PyTensor >= 3
    from pytensor.tensor.linalg import (
        LU,
        QR,
        QZ,
        BlockDiagonal,
        Cholesky,
        CholeskySolve,
        Eigvalsh,
        Expm,
        LUFactor,
        LUFactorTridiagonal,
        PivotToPermutations,
        Schur,
        Solve,
        SolveLUFactorTridiagonal,
        SolveTriangular,
    )
    from pytensor.tensor.linalg.solvers.linear_control import TRSYL

    EigvalshGrad = None
except ImportError:  # PyTensor 2
    from pytensor.tensor._linalg.solve.linear_control import TRSYL
    from pytensor.tensor._linalg.solve.tridiagonal import (
        LUFactorTridiagonal,
        SolveLUFactorTridiagonal,
    )
    from pytensor.tensor.slinalg import (
        LU,
        QR,
        QZ,
        BlockDiagonal,
        Cholesky,
        CholeskySolve,
        Eigvalsh,
        EigvalshGrad,
        Expm,
        LUFactor,
        PivotToPermutations,
        Schur,
        Solve,
        SolveTriangular,
    )


# The Jacobi methods converge quadratically, in 6 to 14 sweeps for matrices
# of up to a few hundred rows; this bound is only a safeguard
MAX_SWEEPS = 60


def mT(x: Value) -> Value:
    """The transpose of each matrix of the stack ``x``."""
    return x.transpose([0, 2, 1])


def full(x: Value, value, dims) -> Value:
    """An array of ``value`` (of ``x``'s dtype) shaped ``(batch of x, *dims)``.

    ``dims`` are ints or int64 vectors of one element.
    """
    return x.constant(value, x.dtype).expand(stack_shape(x, *dims))


def stack_shape(x: Value, *dims) -> Value:
    """The shape ``(batch of x, *dims)``; ``dims`` are ints or int64 vectors of one element."""
    batch = x.shape(0, 1)
    return concat(
        [
            batch,
            *(batch.indices([dim]) if isinstance(dim, int) else dim for dim in dims),
        ],
        axis=0,
    )


def positions(length: Value, axis: int) -> Value:
    """``arange(length)`` along ``axis`` of an array of rank 3 with other lengths 1."""
    return arange(length).unsqueeze([other for other in range(3) if other != axis])


def identity(rows: Value, columns: Value, dtype) -> Value:
    """The ``(1, rows, columns)`` identity matrix for 0-d int64 lengths."""
    return positions(rows, 1).eq(positions(columns, 2)).cast(dtype)


def diagonal(x: Value, axis: int) -> Value:
    """The diagonal of the square stack ``x`` as columns (``axis=2``) or rows (1)."""
    n = x.dim(1)
    return where(positions(n, 1).eq(positions(n, 2)), x, 0).sum([axis])


def lower_triangle(x: Value, strict=False) -> Value:
    rows, columns = positions(x.dim(1), 1), positions(x.dim(2), 2)
    return where(rows > columns if strict else rows >= columns, x, 0)


def upper_triangle(x: Value, strict=False) -> Value:
    rows, columns = positions(x.dim(1), 1), positions(x.dim(2), 2)
    return where(rows < columns if strict else rows <= columns, x, 0)


def symmetric_from(x: Value, lower: bool) -> Value:
    """The symmetric matrix with the lower (or upper) triangle of ``x``."""
    triangle = lower_triangle(x) if lower else upper_triangle(x)
    strict = lower_triangle(x, strict=True) if lower else upper_triangle(x, True)
    return triangle + mT(strict)


def none_of(x: Value) -> Value:
    """``False`` for each stack of ``x``, a ``(batch, 1, 1)`` bool."""
    return x.constant(False, "bool").expand(stack_shape(x, 1, 1))


def nan_where(condition: Value, x: Value) -> Value:
    """``x`` with NaN in the stacks where ``condition`` (a ``(batch, 1, 1)`` bool) holds."""
    return where(condition, np.nan, x)


def loop(trip_count: Value, states, step, *, more=None, hint="loop"):
    """Run ``step`` in an ONNX ``Loop`` and return the final ``states``.

    Parameters
    ----------
    trip_count
        A 0-d int64 array: the number of iterations (at most, with ``more``).
    states
        Arrays of rank 3 that the iterations update.
    step
        ``step(iteration, *states)`` adds the nodes of one iteration to the
        loop body, in which values of the enclosing graph must be read
        through `Value.into`, and returns the new states, preceded by a 0-d
        bool (whether to go on) if ``more`` is given.
    more
        A 0-d bool array: whether to run the first iteration.
    """
    builder = states[0].builder
    body = builder.loop_body(f"{hint}_body")
    iteration, condition = (
        Value(body, info.name, dtype)
        for info, dtype in zip(body.inputs, ("int64", "bool"), strict=True)
    )
    inner = [
        Value(body, body.add_input(hint, state.dtype, (None,) * 3), state.dtype)
        for state in states
    ]
    results = list(step(iteration, *inner))
    if more is not None:
        condition, *results = results
    body.add_output(condition.name, "more", "bool", ())
    for result in results:
        body.add_output(result.name, hint, result.dtype, (None,) * 3)
    outputs = builder.add_multi(
        "Loop",
        [trip_count.name, "" if more is None else more.name]
        + [state.name for state in states],
        n_outputs=len(states),
        body=body.make_graph(),
        hint=hint,
    )
    return [
        Value(builder, name, state.dtype)
        for name, state in zip(outputs, states, strict=True)
    ]


# LU decomposition and triangular solves


def swap_rows(x: Value, k: Value, p: Value, rows: Value) -> Value:
    """``x`` with row ``k`` (a vector of one index) and row ``p`` (one per stack) swapped."""
    row_k = x.take(k, axis=1)
    row_p = x.take_along(p.expand(row_k.shape()), axis=1)
    return where(rows.eq(k), row_p, where(rows.eq(p), row_k, x))


def lu_factor(a: Value):
    """LU decomposition with partial pivoting of the square stack ``a`` (``getf2``).

    Returns
    -------
    lu
        ``L`` (unit lower triangular, below the diagonal) and ``U`` in one matrix.
    permutation
        ``(batch, n, 1)`` int64: row ``i`` of ``L @ U`` is row
        ``permutation[i]`` of ``a``.
    pivots
        ``(batch, n, 1)`` int64: LAPACK's ``ipiv`` (0-based), row ``i`` was
        swapped with row ``pivots[i]``.
    singular
        ``(batch, 1, 1)`` bool: whether a pivot is exactly zero.
    """
    n = a.dim(1)
    rows, columns = positions(n, 1), positions(n, 2)
    rows_in_order = rows.expand(stack_shape(a, a.shape(1, 2), 1))

    def step(k, lu, permutation, pivots, singular):
        rows_, columns_ = rows.into(k.builder), columns.into(k.builder)
        at_k = k.unsqueeze([0])
        candidates = where(rows_ >= k, abs(lu.take(at_k, axis=2)), -1)
        p = candidates.apply("ArgMax", candidates, axis=1, keepdims=1)
        lu = swap_rows(lu, at_k, p, rows_)
        permutation = swap_rows(permutation, at_k, p, rows_)
        pivots = where(rows_.eq(k), p, pivots)
        pivot_row = lu.take(at_k, axis=1)
        pivot = pivot_row.take(at_k, axis=2)
        is_zero = pivot.eq(0)
        below = rows_ > k
        multipliers = where(below, lu.take(at_k, axis=2) / where(is_zero, 1, pivot), 0)
        lu = lu - multipliers * where(columns_ > k, pivot_row, 0)
        lu = where(columns_.eq(k) & below, multipliers, lu)
        return lu, permutation, pivots, singular | is_zero

    return loop(n, [a, rows_in_order, rows_in_order, none_of(a)], step, hint="lu")


def substitute(t: Value, b: Value, *, lower: bool, unit_diagonal=False) -> Value:
    """``x`` with ``t @ x = b``, reading the lower (or upper) triangle of ``t`` only.

    Forward (or back) substitution, one row of ``x`` per iteration.
    """
    if unit_diagonal:
        t = lower_triangle(t, strict=True) if lower else upper_triangle(t, True)
    else:
        t = lower_triangle(t) if lower else upper_triangle(t)
    n = t.dim(1)
    rows = positions(n, 1)

    def step(i, x):
        k = i if lower else n.into(i.builder) - 1 - i
        at_k = k.unsqueeze([0])
        t_row = t.into(i.builder).take(at_k, axis=1)
        value = b.into(i.builder).take(at_k, axis=1) - t_row @ x
        if not unit_diagonal:
            value = value / t_row.take(at_k, axis=2)
        return [where(rows.into(i.builder).eq(k), value, x)]

    [x] = loop(n, [b.constant(0).expand(b.shape())], step, hint="solved")
    return x


def lu_solve(lu: Value, permutation: Value, b: Value) -> Value:
    """``x`` with ``a @ x = b`` from the `lu_factor` of ``a``."""
    permuted = b.take_along(permutation.expand(b.shape()), axis=1)
    x = substitute(lu, permuted, lower=True, unit_diagonal=True)
    return substitute(lu, x, lower=False)


def has_zero_on_diagonal(t: Value) -> Value:
    """Whether the diagonal of each stack has a zero, ``(batch, 1, 1)`` bool."""
    is_zero = diagonal(t, 2).eq(0).cast("uint8")
    return is_zero.max([1]).cast("bool")


# Cholesky


def cholesky(a: Value):
    """The lower Cholesky factor of ``a`` from its lower triangle (``potf2``).

    Also returns whether ``a`` is not positive definite, ``(batch, 1, 1)`` bool.
    """
    n = a.dim(1)
    rows, columns = positions(n, 1), positions(n, 2)

    def step(k, factor, failed):
        rows_, columns_ = rows.into(k.builder), columns.into(k.builder)
        at_k = k.unsqueeze([0])
        column = a.into(k.builder).take(at_k, axis=2)
        column = column - factor @ mT(factor.take(at_k, axis=1))
        pivot = column.take(at_k, axis=1)
        positive = pivot > 0
        root = where(positive, pivot, 1).sqrt()
        column = where(rows_ > k, column / root, where(rows_.eq(k), root, 0))
        return where(columns_.eq(k), column, factor), failed | ~positive

    zeros = a.constant(0).expand(a.shape())
    return loop(n, [zeros, none_of(a)], step, hint="cholesky")


def cholesky_of_triangle(a: Value, lower: bool):
    """The Cholesky factor (lower or upper) of the triangle of ``a``, NaN where it fails."""
    factor, failed = cholesky(a if lower else mT(a))
    factor = nan_where(failed, factor)
    return factor if lower else mT(factor)


# Householder QR


def householder(a: Value):
    """Householder QR of the stack ``a`` as LAPACK's ``geqr2`` computes it.

    Returns
    -------
    reflectors
        ``R`` on and above the diagonal, the reflectors below it (``raw`` mode).
    taus
        ``(batch, 1, min(m, n))``: the reflectors' coefficients.
    """
    m, n = a.dim(1), a.dim(2)
    n_steps = minimum(m, n)
    rows, columns, steps = positions(m, 1), positions(n, 2), positions(n_steps, 2)

    def step(k, h, taus):
        rows_, columns_ = rows.into(k.builder), columns.into(k.builder)
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
        return h, where(steps.into(k.builder).eq(k), tau, taus)

    return loop(n_steps, [a, full(a, 0, [1, n_steps.unsqueeze([0])])], step, hint="qr")


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


# Jacobi methods


class Pairs(NamedTuple):
    """Disjoint pairs of ``n`` indices, as vectors of ``n`` int64 or bool."""

    partners: Value
    low: Value
    high: Value
    is_low: Value
    paired: Value


def round_robin_pairs(n: Value, round_number: Value) -> Pairs:
    """The pairs of ``n`` indices in a round of a round-robin tournament.

    Over ``n - 1`` rounds (``n`` if odd), every pair meets once. An index
    left out in a round (``n`` odd) is its own partner.
    """
    players = n + n % 2
    seats = arange(players)
    others = maximum(players - 1, n.constant(1))
    seat = where(seats.eq(0), 0, (seats - 1 + round_number) % others + 1)
    opponents = seat.take(players - 1 - seats, axis=0)
    partners = seats.apply("ScatterElements", seats, seat, opponents, axis=0)
    partners = partners.slice(0, n.unsqueeze([0]), axis=0)
    indices = arange(n)
    partners = where(partners < n, partners, indices)
    is_low = indices < partners
    return Pairs(
        partners,
        where(is_low, indices, partners),
        where(is_low, partners, indices),
        is_low,
        partners.ne(indices),
    )


def rotation(a_pp: Value, a_qq: Value, a_pq: Value, rotate: Value, is_low: Value):
    """The Jacobi rotations zeroing the ``a_pq`` of symmetric 2x2 matrices.

    Golub & Van Loan's ``sym.schur2``, with the smaller angle. Returns the
    coefficients of a row (or column) and of its partner's in the rotated row:
    cosine and sine, with the sign of the sine for the low index of a pair
    flipped. No rotation where ``rotate`` is false.
    """
    tau = (a_qq - a_pp) / (2 * where(rotate, a_pq, 1))
    t = where(tau >= 0, tau.constant(1), -1) / (abs(tau) + (1 + tau * tau).sqrt())
    cosine = 1 / (1 + t * t).sqrt()
    sine = where(is_low, -t * cosine, t * cosine)
    return where(rotate, cosine, 1), where(rotate, sine, 0)


def only_if(condition: Value, compute) -> Value:
    """``compute(builder)``, a 0-d bool built in an ``If`` branch, where the 0-d
    ``condition`` holds, else false."""
    builder = condition.builder
    branches = {}
    for branch in ("then_branch", "else_branch"):
        sub = builder.subgraph(branch)
        if branch == "then_branch":
            result = compute(sub).name
        else:
            result = sub.constant(False, "bool")
        sub.add_output(result, branch, "bool", ())
        branches[branch] = sub.make_graph()
    return Value(builder, builder.add("If", [condition.name], **branches), "bool")


def jacobi_sweeps(n: Value, states, rotate_pairs, converged, *, hint):
    """Apply ``rotate_pairs`` in round-robin rounds until ``converged``.

    ``rotate_pairs(pairs, *states)`` returns the new states;
    ``converged(*states)``, a 0-d bool, whether no pair of any stack needs a
    rotation: it is computed before the first sweep and after each sweep only.
    """
    rounds_per_sweep = maximum(n + n % 2 - 1, n.constant(1))

    def step(round_number, *states):
        body = round_number.builder
        rounds_per_sweep_ = rounds_per_sweep.into(body)
        pairs = round_robin_pairs(n.into(body), round_number)
        states = rotate_pairs(pairs, *states)
        sweep_ends = (round_number % rounds_per_sweep_).eq(rounds_per_sweep_ - 1)
        done = only_if(
            sweep_ends, lambda sub: converged(*(state.into(sub) for state in states))
        )
        return ~done, *states

    more = (n > 1) & ~converged(*states)
    return loop(rounds_per_sweep * MAX_SWEEPS, states, step, more=more, hint=hint)


def off_diagonal(x: Value) -> Value:
    """Whether each element of the square stack ``x`` is off its diagonal."""
    n = x.dim(1)
    return positions(n, 1).ne(positions(n, 2))


def jacobi_eigen(a: Value):
    """Eigenvalues ``(batch, 1, n)`` in ascending order and eigenvectors of the symmetric ``a``.

    Rotates pairs of rows and columns until the off-diagonal elements are
    below ``eps`` times the Frobenius norm of ``a``.
    """
    n = a.dim(1)
    threshold = (a * a).sum([1, 2]).sqrt() * float(np.finfo(a.dtype).eps)

    def rotate_pairs(pairs, a, v):
        as_column = [0, 2]
        flat = a.reshape(stack_shape(a, -1, 1))
        d = flat.take(arange(a.dim(1)) * (a.dim(1) + 1), axis=1)
        a_pq = flat.take(pairs.low * a.dim(1) + pairs.high, axis=1)
        rotate = pairs.paired.unsqueeze(as_column) & (
            abs(a_pq) > threshold.into(a.builder)
        )
        cosine, sine = rotation(
            d.take(pairs.low, axis=1),
            d.take(pairs.high, axis=1),
            a_pq,
            rotate,
            pairs.is_low.unsqueeze(as_column),
        )
        a = cosine * a + sine * a.take(pairs.partners, axis=1)
        cosine, sine = mT(cosine), mT(sine)
        a = a * cosine + a.take(pairs.partners, axis=2) * sine
        v = v * cosine + v.take(pairs.partners, axis=2) * sine
        return a, v

    def converged(a, v):
        # the rotations read the upper triangle
        large = abs(upper_triangle(a, strict=True)) > threshold.into(a.builder)
        return ~large.any()

    eye = identity(n, n, a.dtype).expand(a.shape())
    a, v = jacobi_sweeps(n, [a, eye], rotate_pairs, converged, hint="eigh")
    eigenvalues, order = sort(diagonal(a, 1), n, ascending=True)
    return eigenvalues, v.take_along(order.expand(v.shape()), axis=2)


def sort(x: Value, n: Value, ascending: bool):
    """The rows ``(batch, 1, n)`` of ``x`` sorted, and the order that sorts them."""
    values, order = x.builder.add_multi(
        "TopK",
        [x.name, n.unsqueeze([0]).name],
        n_outputs=2,
        axis=2,
        largest=int(not ascending),
        sorted=1,
    )
    return Value(x.builder, values, x.dtype), Value(x.builder, order, "int64")


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


# Matrix exponential

# Higham (2005), "The scaling and squaring method for the matrix exponential
# revisited": coefficients of the [13/13] Padé approximant, and the largest
# 1-norm for which it is accurate to float64's unit roundoff
PADE_13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
THETA_13 = 5.371920351148152
# 2**-1100 underflows every float64: no input needs more squarings
MAX_SQUARINGS = 1100


def n_squarings(a: Value) -> Value:
    """``max(0, ceil(log2(norm_1(a) / theta_13)))`` per stack, as int64 ``(batch, 1, 1)``."""
    norm = abs(a).sum([1]).max([2])
    ratio = maximum(norm / THETA_13, norm.constant(1))
    exponent = (ratio.log() / float(np.log(2))).ceil()
    exponent = where(exponent.apply("IsNaN", exponent), 0, exponent)
    return minimum(exponent, exponent.constant(MAX_SQUARINGS)).cast("int64")


def expm(a: Value) -> Value:
    """The matrix exponential: [13/13] Padé approximant with scaling and squaring."""
    n = a.dim(1)
    squarings = n_squarings(a)
    a = a / (a.constant(2.0) ** squarings.cast(a.dtype))
    eye = identity(n, n, a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    b = PADE_13
    odd = a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
    odd = a @ (odd + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    even = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2)
    even = even + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    lu, permutation, _, _ = lu_factor(even - odd)
    x = lu_solve(lu, permutation, even + odd)

    def step(i, x):
        return [where(i < squarings.into(i.builder), x @ x, x)]

    most = squarings.apply("ReduceMax", squarings, keepdims=0)
    [x] = loop(most, [x], step, hint="squared")
    return x


# Converters: the kernels run on a stack of the core Op's inputs, a stack of
# one for the core Op alone, and one per batch element for its Blockwise


def register_stacked(*op_classes):
    """Register ``convert`` for ``op_classes`` and for their ``Blockwise``.

    ``convert(op, node, *inputs)`` receives the core ``node`` and its inputs
    as `Value` stacks (one leading axis more than the core inputs) and
    returns the stacks of the outputs.
    """

    def register(convert):
        def convert_core(op, node, builder, inputs, **kwargs):
            stacks = [
                Value(builder, name, var.type.dtype).unsqueeze([0])
                for name, var in zip(inputs, node.inputs, strict=True)
            ]
            return [output.squeeze([0]).name for output in convert(op, node, *stacks)]

        def convert_batched(core_op, node, builder, inputs, **kwargs):
            n_batch_dims = batch_ndim(node)
            batch_shape = broadcast_batch_shape(builder, node, inputs)
            batch_size = builder.add("ReduceProd", [batch_shape], keepdims=1)
            stacks = [
                Value(
                    builder,
                    flatten_batch(
                        builder, name, var, n_batch_dims, batch_shape, batch_size
                    ),
                    var.type.dtype,
                )
                for name, var in zip(inputs, node.inputs, strict=True)
            ]
            outputs = convert(core_op, core_node_of(node), *stacks)
            shape = Value(builder, batch_shape, "int64")
            return [
                output.reshape(concat([shape, output.shape(1)], axis=0)).name
                for output in outputs
            ]

        for op_class in op_classes:
            onnx_funcify.register(op_class)(convert_core)
            onnx_funcify_batched.register(op_class)(convert_batched)
        return convert

    return register


def output_dtype(node, index=0):
    return node.outputs[index].type.dtype


def float_output_dtype(node):
    """The dtype of the (first) output, which must be a float.

    Some Ops of PyTensor 2 declare an integer output for integer inputs,
    while their ``perform`` returns SciPy's floats.
    """
    dtype = output_dtype(node)
    if np.dtype(dtype).kind != "f":
        raise NotImplementedError(
            f"the Op declares a {dtype} output but computes floats; only float "
            "inputs are supported"
        )
    return dtype


def as_columns(b: Value, b_ndim: int) -> Value:
    """The stack of right-hand sides ``b`` as matrices (vectors become columns)."""
    return b if b_ndim == 2 else b.unsqueeze([2])


def as_given(x: Value, b_ndim: int) -> Value:
    return x if b_ndim == 2 else x.squeeze([2])


def raise_unless(condition: Value, exception_type, message):
    """Make the function raise ``exception_type(message)`` unless all of ``condition`` holds.

    Does nothing when the graph is built without runtime checks (for export).
    """
    condition.builder.require(condition, exception_type, message)


def check_square(a: Value, var, message, exception_type=ValueError) -> Value:
    """Make the function raise ``exception_type(message)`` unless ``a`` is a
    stack of square matrices (``var`` is the PyTensor variable of ``a``).

    Returns ``a`` cut to its leading square: the run of the graph, which
    precedes the check, must not fail on other shapes.
    """
    rows, columns = var.type.shape[-2:]
    if rows is not None and columns is not None:
        return a
    raise_unless(a.shape(1, 2).eq(a.shape(2, 3)), exception_type, message)
    n = minimum(a.shape(1, 2), a.shape(2, 3))
    return a.slice(0, n, axis=1).slice(0, n, axis=2)


@register_stacked(Cholesky)
def cholesky_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    a = check_square(a, node.inputs[0], "Input array is expected to be square")
    return [cholesky_of_triangle(a, op.lower)]


@register_stacked(SolveTriangular)
def solve_triangular_stacked(op, node, a, b):
    dtype = output_dtype(node)
    a, b = a.cast(dtype), as_columns(b.cast(dtype), op.b_ndim)
    a = check_square(a, node.inputs[0], "expected square matrix")
    x = substitute(a, b, lower=op.lower, unit_diagonal=op.unit_diagonal)
    if not op.unit_diagonal:
        x = nan_where(has_zero_on_diagonal(a), x)
    return [as_given(x, op.b_ndim)]


@register_stacked(CholeskySolve)
def cholesky_solve_stacked(op, node, c, b):
    dtype = output_dtype(node)
    c, b = c.cast(dtype), as_columns(b.cast(dtype), op.b_ndim)
    c = check_square(c, node.inputs[0], "The factored matrix c is not square.")
    lower = c if op.lower else mT(c)
    y = substitute(lower, b, lower=True)
    return [as_given(substitute(mT(lower), y, lower=False), op.b_ndim)]


def tridiagonal_band(a: Value) -> Value:
    rows, columns = positions(a.dim(1), 1), positions(a.dim(2), 2)
    return where(abs(rows - columns) <= 1, a, 0)


@register_stacked(Solve)
def solve_stacked(op, node, a, b):
    dtype = output_dtype(node)
    a, b = a.cast(dtype), as_columns(b.cast(dtype), op.b_ndim)
    a = check_square(a, node.inputs[0], "Input a needs to be a square matrix.")
    if op.assume_a == "pos":
        factor, failed = cholesky(a if op.lower else mT(a))
        x = substitute(mT(factor), substitute(factor, b, lower=True), lower=False)
    else:
        if op.assume_a in ("sym", "her"):
            a = symmetric_from(a, op.lower)
        elif op.assume_a == "tridiagonal":
            a = tridiagonal_band(a)
        lu, permutation, _, failed = lu_factor(a)
        x = lu_solve(lu, permutation, b)
    return [as_given(nan_where(failed, x), op.b_ndim)]


# Tridiagonal LU (gttrf, gttrs): diagonals are stacks of rows ``(batch, 1, length)``


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


def as_rows(vectors, dtype):
    """Stacks of vectors ``(batch, length)`` as rows ``(batch, 1, length)`` of ``dtype``."""
    return [vector.cast(dtype).unsqueeze([1]) for vector in vectors]


@register_stacked(LUFactorTridiagonal)
def lu_factor_tridiagonal_stacked(op, node, dl, d, du):
    *diagonals, ipiv = tridiagonal_lu_factor(*as_rows([dl, d, du], output_dtype(node)))
    return [
        *(diagonal.squeeze([1]) for diagonal in diagonals),
        ipiv.squeeze([1]).cast(output_dtype(node, 4)),
    ]


@register_stacked(SolveLUFactorTridiagonal)
def solve_lu_factor_tridiagonal_stacked(op, node, dl, d, du, du2, ipiv, b):
    dtype = output_dtype(node)
    factors = as_rows([dl, d, du, du2], dtype)
    ipiv = ipiv.cast("int64").unsqueeze([1])
    b = as_columns(b.cast(dtype), op.b_ndim)
    x = tridiagonal_lu_solve(*factors, ipiv, b, op.transposed)
    return [as_given(x, op.b_ndim)]


# Sylvester equations of quasi-triangular matrices (trsyl)


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
    lu, permutation, _, _ = lu_factor(systems)

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
            lu.into(body), permutation.into(body), rhs.reshape(rhs.indices([-1, 4, 1]))
        )
        solved = solved.reshape(stack_shape(x, -1, 4)).take_along(
            own.into(body), axis=2
        )
        in_iteration = anti_diagonal.into(body).eq(iteration)
        return [where(in_iteration, solved.reshape(x.shape()), x)]

    n_iterations = a_starts.sum([1]) + b_starts.sum([1]) - 1
    n_iterations = maximum(n_iterations.max([0]).squeeze([0, 1, 2]), m.constant(0))
    [x] = loop(n_iterations, [c.constant(0).expand(c.shape())], step, hint="trsyl")
    return x


@register_stacked(TRSYL)
def trsyl_stacked(op, node, a, b, c):
    dtype = float_output_dtype(node)
    a, b, c = (x.cast(dtype) for x in (a, b, c))
    return [sylvester_of_quasi_triangular(a, b, c)]


# Decompositions that are not unique


def register_unsupported(op_class, reason: str):
    """Make ``op_class`` and its ``Blockwise`` raise ``NotImplementedError(reason)``.

    The reason is also given when the Op's types already fail (see
    `unsupported_reason`).
    """

    def raise_unsupported(op, node, builder, inputs, **kwargs):
        raise NotImplementedError(reason)

    UNSUPPORTED_OP_REASONS[op_class] = reason
    onnx_funcify.register(op_class)(raise_unsupported)
    onnx_funcify_batched.register(op_class)(raise_unsupported)


NOT_UNIQUE = (
    "{name} is not unique: the order of the eigenvalues along the diagonal "
    "and the signs of the Schur vectors follow from the iterations of LAPACK's "
    "{routine}, which the ONNX backend does not reproduce, so its results would "
    "differ from PyTensor's. {instead}"
)
register_unsupported(
    Schur,
    NOT_UNIQUE.format(
        name="The Schur decomposition",
        routine="gees",
        instead="For a symmetric matrix, use pt.linalg.eigh (T = diag(w), Z = v). "
        "solve_sylvester and solve_continuous_lyapunov compute Schur "
        "decompositions: solve a @ x + x @ b = c as the linear system "
        "pt.linalg.solve(kron(eye, a) + kron(b.T, eye), c.T.ravel()) instead.",
    ),
)
register_unsupported(
    QZ,
    NOT_UNIQUE.format(
        name="The QZ (generalized Schur) decomposition",
        routine="gges",
        instead="solve_discrete_are computes a QZ decomposition; "
        "solve_discrete_lyapunov(method='direct') converts.",
    ),
)


def lu_parts(lu: Value):
    """The unit lower triangular ``L`` and the upper triangular ``U`` of an `lu_factor`."""
    n = lu.dim(1)
    lower = lower_triangle(lu, strict=True) + identity(n, n, lu.dtype)
    return lower, upper_triangle(lu)


NON_SQUARE_LU = "The ONNX backend computes the LU decomposition of square matrices only"


def inverse_permutation(permutation: Value) -> Value:
    """The permutation undoing the stack of permutations ``(batch, n, 1)``."""
    in_order = positions(permutation.dim(1), 1).expand(permutation.shape())
    return in_order.apply("ScatterElements", in_order, permutation, in_order, axis=1)


@register_stacked(LU)
def lu_stacked(op, node, a):
    a = a.cast(output_dtype(node, -1))
    a = check_square(a, node.inputs[0], NON_SQUARE_LU)
    lu, permutation, _, _ = lu_factor(a)
    lower, upper = lu_parts(lu)
    # a = p @ lower @ upper with p[permutation[i], i] = 1
    p = positions(a.dim(1), 1).eq(mT(permutation))
    if op.permute_l:
        return [p.cast(a.dtype) @ lower, upper]
    if op.p_indices:
        rows_of_lower = inverse_permutation(permutation).squeeze([2])
        return [rows_of_lower.cast(output_dtype(node, 0)), lower, upper]
    return [p.cast(output_dtype(node, 0)), lower, upper]


@register_stacked(LUFactor)
def lu_factor_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    a = check_square(a, node.inputs[0], NON_SQUARE_LU)
    lu, _, pivots, singular = lu_factor(a)
    return [nan_where(singular, lu), pivots.squeeze([2]).cast(output_dtype(node, 1))]


@register_stacked(PivotToPermutations)
def pivot_to_permutations_stacked(op, node, pivots):
    pivots = pivots.cast("int64").unsqueeze([2])
    rows = positions(pivots.dim(1), 1)
    in_order = rows.expand(pivots.shape())

    def step(i, swapped):
        at_i = i.unsqueeze([0])
        other = pivots.into(i.builder).take(at_i, axis=1)
        return [swap_rows(swapped, at_i, other, rows.into(i.builder))]

    [swapped] = loop(pivots.dim(1), [in_order], step, hint="permutation")
    if op.inverse:
        return [swapped.squeeze([2])]
    return [inverse_permutation(swapped).squeeze([2])]


@register_stacked(QR)
def qr_stacked(op, node, a):
    if op.pivoting:
        raise NotImplementedError(
            "QR with column pivoting (pivoting=True) is not supported"
        )
    a = a.cast(output_dtype(node))
    reflectors, taus = householder(a)
    n_steps = minimum(a.dim(1), a.dim(2))
    r = upper_triangle(reflectors)
    if op.mode in ("economic", "raw"):
        r = r.slice(0, n_steps.unsqueeze([0]), axis=1)
    if op.mode == "r":
        return [upper_triangle(reflectors)]
    if op.mode == "raw":
        return [reflectors, taus.squeeze([1]), r]
    n_columns = n_steps if op.mode == "economic" else a.dim(1)
    return [householder_product(reflectors, taus, n_columns), r]


def generalized_eigen(a: Value, b: Value, lower: bool):
    """Eigenvalues and eigenvectors of ``a @ v = w * b @ v`` (``b`` positive definite).

    With ``b = l @ l.T``, the eigenvectors ``u`` of ``inv(l) @ a @ inv(l).T``
    give ``v = inv(l).T @ u``, normalized so that ``v.T @ b @ v = I`` as
    LAPACK's ``sygvd``. Raises ``LinAlgError`` if ``b`` is not positive definite.
    """
    a = symmetric_from(a, lower)
    factor, failed = cholesky(symmetric_from(b, lower))
    raise_unless(
        ~failed,
        np.linalg.LinAlgError,
        "The leading minor of b is not positive definite. The factorization "
        "of b could not be completed and no eigenvalues or eigenvectors were "
        "computed.",
    )
    reduced = substitute(factor, mT(substitute(factor, a, lower=True)), lower=True)
    eigenvalues, u = jacobi_eigen(symmetric_from(reduced, lower=True))
    return eigenvalues, substitute(mT(factor), u, lower=False)


def symmetric_eigen(op, node, a, b=None):
    """``(eigenvalues, eigenvectors)`` of an ``Eigh``-like node, in the output dtype."""
    dtype = output_dtype(node)
    lower = op.lower if hasattr(op, "lower") else op.UPLO == "L"
    a = a.cast(dtype)
    a = check_square(a, node.inputs[0], "expected square matrix")
    if b is None:
        return jacobi_eigen(symmetric_from(a, lower))
    return generalized_eigen(a, b.cast(dtype), lower)


@register_stacked(Eigvalsh)
def eigvalsh_stacked(op, node, a, b=None):
    eigenvalues, _ = symmetric_eigen(op, node, a, b)
    return [eigenvalues.squeeze([1])]


def gradient_of_triangle(gradient: Value, lower: bool) -> Value:
    """The gradient with respect to the triangle that an ``eigh`` reads."""
    if lower:
        return lower_triangle(gradient) + mT(upper_triangle(gradient, strict=True))
    return upper_triangle(gradient) + mT(lower_triangle(gradient, strict=True))


if EigvalshGrad is not None:

    @register_stacked(EigvalshGrad)
    def eigvalsh_grad_stacked(op, node, a, b, eigenvalues_gradient):
        dtype = output_dtype(node)
        eigenvalues, v = generalized_eigen(a.cast(dtype), b.cast(dtype), op.lower)
        weights = eigenvalues_gradient.cast(dtype).unsqueeze([1])
        a_gradient = (v * weights) @ mT(v)
        b_gradient = -(v * (weights * eigenvalues)) @ mT(v)
        return [
            gradient_of_triangle(a_gradient, op.lower),
            gradient_of_triangle(b_gradient, op.lower),
        ]


@register_stacked(Expm)
def expm_stacked(op, node, a):
    a = a.cast(float_output_dtype(node))
    a = check_square(a, node.inputs[0], "expected a square matrix")
    return [expm(a)]


@register_stacked(BlockDiagonal)
def block_diagonal_stacked(op, node, *matrices):
    dtype = output_dtype(node)
    matrices = [matrix.cast(dtype) for matrix in matrices]
    widths = [matrix.shape(2, 3) for matrix in matrices]
    total = widths[0]
    for width in widths[1:]:
        total = total + width
    rows, left = [], total.indices([0])
    for matrix, width in zip(matrices, widths, strict=True):
        height = matrix.shape(1, 2)
        right = total - left - width
        padded = [
            full(matrix, 0, [height, left]),
            matrix,
            full(matrix, 0, [height, right]),
        ]
        rows.append(concat(padded, axis=2))
        left = left + width
    return [concat(rows, axis=1)]
