"""Tests of the solvers of `pytensor.link.onnx.numerics.linalg`, run on their
own on stacks of matrices, against LAPACK (through SciPy and NumPy)."""

import numpy as np
import pytest
import scipy.linalg
from scipy.linalg import lapack

from pytensor.link.onnx.numerics.linalg.blocks import (
    BLOCK,
    UNROLLED_BLOCKS,
    lower_triangular_inverse,
)
from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import cholesky
from pytensor.link.onnx.numerics.linalg.solvers.cholesky import cholesky_solve
from pytensor.link.onnx.numerics.linalg.solvers.general import solve
from pytensor.link.onnx.numerics.linalg.solvers.least_squares import least_squares
from pytensor.link.onnx.numerics.linalg.solvers.sylvester import (
    sylvester_of_quasi_triangular,
)
from pytensor.link.onnx.numerics.linalg.solvers.triangular import substitute
from pytensor.link.onnx.numerics.linalg.solvers.tridiagonal import (
    tridiagonal_lu_factor,
    tridiagonal_lu_solve,
)
from tests.link.onnx.utils import (
    evaluate_numerics,
    linalg_close,
    positive_definite,
    triangular,
    well_conditioned,
)


rng = np.random.default_rng(5)


@pytest.mark.parametrize("unit_diagonal", [False, True])
@pytest.mark.parametrize("lower", [True, False])
def test_substitution_reads_one_triangle(lower, unit_diagonal):
    t = triangular(5, lower, unused=1e3)[None]
    b = rng.normal(size=(1, 5, 2))
    x = evaluate_numerics(
        lambda t, b: substitute(t, b, lower=lower, unit_diagonal=unit_diagonal), t, b
    )
    expected = scipy.linalg.solve_triangular(
        t[0], b[0], lower=lower, unit_diagonal=unit_diagonal
    )
    linalg_close(x[0], expected)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("n", [0, BLOCK, BLOCK + 1, 2 * BLOCK + 3])
def test_blocked_substitution_across_block_boundaries(n, lower):
    t = np.stack([triangular(n, lower, unused=1e3) for _ in range(2)])
    b = rng.normal(size=(2, n, 3))
    x = evaluate_numerics(lambda t, b: substitute(t, b, lower=lower), t, b)
    for k in range(2):
        linalg_close(x[k], scipy.linalg.solve_triangular(t[k], b[k], lower=lower))


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("unit_diagonal", [False, True])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize(
    "n", [1, 3, 6, 11, BLOCK, BLOCK + 1, 2 * BLOCK + 3, UNROLLED_BLOCKS * BLOCK + 1]
)
def test_substitution_of_static_and_dynamic_sizes(n, lower, unit_diagonal, static):
    # up to BLOCK rows: unrolled for a static size, padded to 2, 4, 8 or
    # BLOCK rows for a dynamic one; then blocks of at most BLOCK rows, one
    # after another up to UNROLLED_BLOCKS of a static size, else in a Loop
    t = np.stack([triangular(n, lower, unused=1e3) for _ in range(2)])
    b = rng.normal(size=(2, n, 2))
    size = n if static else None
    x = evaluate_numerics(
        lambda t, b: substitute(
            t, b, lower=lower, unit_diagonal=unit_diagonal, size=size
        ),
        t,
        b,
    )
    for k in range(2):
        expected = scipy.linalg.solve_triangular(
            t[k], b[k], lower=lower, unit_diagonal=unit_diagonal
        )
        linalg_close(x[k], expected)


def test_lower_triangular_inverse_by_doubling():
    t = np.tril(rng.normal(size=(2, BLOCK, BLOCK))) + 4 * np.eye(BLOCK)
    inverse = evaluate_numerics(lambda t: lower_triangular_inverse(t, BLOCK), t)
    linalg_close(inverse, np.linalg.inv(t))


def test_solve_and_singular_flags():
    a = np.stack([well_conditioned(4), np.ones((4, 4))])
    b = rng.normal(size=(2, 4, 3))
    x, singular = evaluate_numerics(solve, a, b)
    linalg_close(x[0], np.linalg.solve(a[0], b[0]))
    np.testing.assert_array_equal(singular.ravel(), [False, True])


def test_cholesky_solve():
    a = positive_definite(5, batch=(2,))
    b = rng.normal(size=(2, 5, 1))
    x = evaluate_numerics(lambda a, b: cholesky_solve(cholesky(a)[0], b), a, b)
    linalg_close(x, np.linalg.solve(a, b))


def tridiagonal_stack(n):
    return [rng.normal(size=(1, 1, length)) for length in (n - 1, n, n - 1)]


@pytest.mark.parametrize("transposed", [False, True])
def test_tridiagonal_lu_is_lapacks_bit_for_bit(transposed):
    dl, d, du = tridiagonal_stack(6)
    b = rng.normal(size=(1, 6, 2))
    *factors, x = evaluate_numerics(
        lambda dl, d, du, b: (
            *(lu := tridiagonal_lu_factor(dl, d, du)),
            tridiagonal_lu_solve(*lu, b, transposed),
        ),
        dl,
        d,
        du,
        b,
    )
    *expected, info = lapack.dgttrf(dl.ravel(), d.ravel(), du.ravel())
    assert info == 0
    for factor, value in zip(factors, expected, strict=True):
        np.testing.assert_array_equal(factor.ravel(), value)
    expected_x, _ = lapack.dgttrs(*expected, b[0], trans="T" if transposed else "N")
    np.testing.assert_array_equal(x[0], expected_x)


def real_schur_form(n):
    t, _ = scipy.linalg.schur(rng.normal(size=(n, n)), output="real")
    return t


@pytest.mark.parametrize("m, n", [(1, 1), (4, 3), (5, 6)])
def test_sylvester_of_quasi_triangular_matrices(m, n):
    a, b = real_schur_form(m), real_schur_form(n)
    c = rng.normal(size=(m, n))
    x = evaluate_numerics(sylvester_of_quasi_triangular, a[None], b[None], c[None])
    linalg_close(x[0], scipy.linalg.solve_sylvester(a, b, c))


@pytest.mark.parametrize("shape", [(6, 3), (3, 6)])
def test_least_squares(shape):
    a, b = rng.normal(size=(1, *shape)), rng.normal(size=(1, shape[0], 2))
    x, squares, rank, singular_values = evaluate_numerics(
        least_squares, a, b, np.array(-1.0)
    )
    expected = np.linalg.lstsq(a[0], b[0], rcond=None)
    linalg_close(x[0], expected[0])
    linalg_close(squares[0, 0], expected[1])
    assert rank.item() == expected[2]
    linalg_close(singular_values[0, 0], expected[3])
