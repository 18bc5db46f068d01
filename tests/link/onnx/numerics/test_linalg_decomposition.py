"""Tests of the decompositions of `pytensor.link.onnx.numerics.linalg`, run on
their own on stacks of matrices, against LAPACK (through SciPy and NumPy)."""

import numpy as np
import pytest
import scipy.linalg

from pytensor.link.onnx.numerics.linalg.blocks import (
    BLOCK,
    UNROLLED_BLOCKS,
)
from pytensor.link.onnx.numerics.linalg.decomposition.cholesky import (
    cholesky,
    cholesky_of_triangle,
)
from pytensor.link.onnx.numerics.linalg.decomposition.eigen import (
    generalized_eigen,
    jacobi_eigen,
)
from pytensor.link.onnx.numerics.linalg.decomposition.jacobi import round_robin_pairs
from pytensor.link.onnx.numerics.linalg.decomposition.lu import (
    inverse_permutation,
    lu_factor,
    lu_parts,
    permutation_of_pivots,
)
from pytensor.link.onnx.numerics.linalg.decomposition.qr import qr
from pytensor.link.onnx.numerics.linalg.decomposition.svd import svd
from tests.link.onnx.utils import (
    evaluate_numerics,
    linalg_close,
    positive_definite,
    symmetric_matrix,
    well_conditioned,
)


def stack(*matrices):
    return np.stack(matrices)


def test_lu_factor_is_lapacks():
    a = well_conditioned(5, batch=(3,))
    lu, permutation, pivots, singular = evaluate_numerics(lu_factor, a)
    for i in range(3):
        expected_lu, expected_pivots = scipy.linalg.lu_factor(a[i])
        linalg_close(lu[i], expected_lu)
        np.testing.assert_array_equal(pivots[i, :, 0], expected_pivots)
    lower, upper = evaluate_numerics(lu_parts, lu)
    linalg_close(lower @ upper, np.take_along_axis(a, permutation, axis=1))
    assert not singular.any()


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize(
    "n", [1, 3, 6, 12, BLOCK, BLOCK + 1, 2 * BLOCK + 3, UNROLLED_BLOCKS * BLOCK + 1]
)
@pytest.mark.filterwarnings("ignore::scipy.linalg.LinAlgWarning")
def test_lu_factor_pivots_as_lapack_in_every_path(n, static):
    # unrolled for a static size up to BLOCK, padded to 2, 4, 8 or BLOCK rows
    # for a dynamic one, else blocked (without a Loop for a static size of up
    # to UNROLLED_BLOCKS blocks); small integers make ties for the pivots
    rng = np.random.default_rng(n)
    a = np.stack([rng.normal(size=(n, n)), rng.integers(-2, 3, (n, n)), np.eye(n)])
    a[2, :, n // 2] = 0
    lu, permutation, pivots, singular = evaluate_numerics(
        lambda x: lu_factor(x, n if static else None), a
    )
    for i in range(3):
        expected_lu, expected_pivots = scipy.linalg.lu_factor(a[i])
        linalg_close(lu[i], expected_lu)
        np.testing.assert_array_equal(pivots[i, :, 0], expected_pivots)
    rows = np.take_along_axis(a, permutation, axis=1)
    for i in range(2):
        lower = np.tril(lu[i], -1) + np.eye(n)
        linalg_close(lower @ np.triu(lu[i]), rows[i])
    singular_integers = np.linalg.matrix_rank(a[1]) < n
    np.testing.assert_array_equal(singular.ravel(), [False, singular_integers, True])


def test_lu_factor_flags_singular_matrices():
    a = stack(np.ones((3, 3)), np.eye(3))
    *_, singular = evaluate_numerics(lu_factor, a)
    np.testing.assert_array_equal(singular.ravel(), [True, False])


def test_permutations_of_pivots():
    a = well_conditioned(6, batch=(2,))
    _, permutation, pivots, _ = evaluate_numerics(lu_factor, a)
    swapped = evaluate_numerics(permutation_of_pivots, pivots)
    np.testing.assert_array_equal(swapped, permutation)
    inverse = evaluate_numerics(inverse_permutation, permutation)
    rows = np.take_along_axis(inverse, permutation, axis=1)
    np.testing.assert_array_equal(rows[..., 0], np.broadcast_to(np.arange(6), (2, 6)))


def test_cholesky():
    not_definite = -np.eye(3)
    a = stack(positive_definite(3), not_definite)
    factor, failed = evaluate_numerics(cholesky, a)
    linalg_close(factor[0], np.linalg.cholesky(a[0]))
    np.testing.assert_array_equal(failed.ravel(), [False, True])
    upper = evaluate_numerics(lambda x: cholesky_of_triangle(x, lower=False), a)
    linalg_close(upper[0], scipy.linalg.cholesky(a[0], lower=False))
    assert np.isnan(upper[1]).all()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", [0, 1, BLOCK, BLOCK + 1, 2 * BLOCK + 3])
def test_blocked_cholesky_across_block_boundaries(n, dtype):
    a = positive_definite(n, dtype, batch=(3,))
    if n:
        # not positive definite in its last block only
        a[2, -1, -1] = -1
    factor, failed = evaluate_numerics(cholesky, a)
    assert factor.dtype == dtype
    for k in range(2):
        linalg_close(factor[k], np.linalg.cholesky(a[k]))
    np.testing.assert_array_equal(failed.ravel(), [False, False, n > 0])


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize(
    "n",
    [1, 2, 3, 5, 8, 12, BLOCK, BLOCK + 1, 2 * BLOCK + 3, UNROLLED_BLOCKS * BLOCK + 1],
)
def test_cholesky_of_static_and_dynamic_sizes(n, static):
    # up to BLOCK rows: unrolled for a static size, padded to 2, 4, 8 or
    # BLOCK rows for a dynamic one; then blocks of at most BLOCK rows, one
    # after another up to UNROLLED_BLOCKS of a static size, else in a Loop
    a = positive_definite(n, batch=(2,))
    a[1, -1, -1] = -1
    factor, failed = evaluate_numerics(lambda x: cholesky(x, n if static else None), a)
    linalg_close(factor[0], np.linalg.cholesky(a[0]))
    np.testing.assert_array_equal(failed.ravel(), [False, True])


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("mode", ["full", "economic", "r"])
def test_qr_is_lapacks(mode, shape):
    a = np.random.default_rng(3).normal(size=(2, *shape))
    results = evaluate_numerics(lambda x: tuple(qr(x, mode)), a)
    for i in range(2):
        expected = scipy.linalg.qr(a[i], mode=mode)
        expected = [expected] if mode == "r" else expected
        for result, value in zip(results, expected, strict=True):
            linalg_close(result[i], value[0] if mode == "r" else value)


def test_qr_raw_has_lapacks_reflectors():
    a = np.random.default_rng(4).normal(size=(1, 5, 3))
    reflectors, taus, r = evaluate_numerics(lambda x: tuple(qr(x, "raw")), a)
    (expected_reflectors, expected_taus), expected_r = scipy.linalg.qr(a[0], mode="raw")
    linalg_close(reflectors[0], expected_reflectors)
    linalg_close(taus[0], expected_taus)
    linalg_close(r[0], expected_r)


@pytest.mark.parametrize("n", [1, 2, 5, 6])
def test_round_robin_pairs_meet_once(n):
    n_rounds = n if n % 2 else n - 1
    met = np.zeros((n, n), int)
    for round_number in range(max(n_rounds, 1)):
        partners = evaluate_numerics(
            lambda n, r: round_robin_pairs(n, r).partners,
            np.array(n),
            np.array(round_number),
            output_ndim=1,
        )
        np.testing.assert_array_equal(partners[partners], np.arange(n))
        met[np.arange(n), partners] += 1
    np.testing.assert_array_equal(met + np.eye(n, dtype=int) * (1 - n % 2), 1)


def test_jacobi_eigen():
    a = stack(symmetric_matrix(6), symmetric_matrix(6))
    eigenvalues, v = evaluate_numerics(jacobi_eigen, a)
    linalg_close(eigenvalues[:, 0], np.linalg.eigvalsh(a))
    linalg_close(np.swapaxes(v, 1, 2) @ v, np.broadcast_to(np.eye(6), a.shape))
    linalg_close((v * eigenvalues) @ np.swapaxes(v, 1, 2), a)


def test_generalized_eigen():
    a, b = symmetric_matrix(4)[None], positive_definite(4)[None]
    eigenvalues, v, failed = evaluate_numerics(
        lambda a, b: generalized_eigen(a, b, lower=True), a, b
    )
    linalg_close(eigenvalues[0, 0], scipy.linalg.eigh(a[0], b[0], eigvals_only=True))
    linalg_close(v[0].T @ b[0] @ v[0], np.eye(4))
    linalg_close(a[0] @ v[0], b[0] @ v[0] * eigenvalues[0])
    assert not failed.any()


@pytest.mark.parametrize("full_matrices", [True, False])
@pytest.mark.parametrize("shape, transposed", [((6, 4), False), ((4, 6), True)])
def test_svd(shape, transposed, full_matrices):
    rank_deficient = np.outer(np.arange(1.0, shape[0] + 1), np.ones(shape[1]))
    a = stack(well_conditioned(shape[0], m=shape[1]), rank_deficient)
    u, s, vh = evaluate_numerics(
        lambda x: svd(x, full_matrices=full_matrices, transposed=transposed), a
    )
    k = min(shape)
    for i in range(2):
        expected_u, expected_s, expected_vh = np.linalg.svd(a[i], full_matrices)
        assert (u[i].shape, vh[i].shape) == (expected_u.shape, expected_vh.shape)
        linalg_close(s[i, 0], expected_s)
        linalg_close(u[i].T @ u[i], np.eye(u.shape[2]))
        linalg_close(vh[i] @ vh[i].T, np.eye(vh.shape[1]))
        linalg_close((u[i, :, :k] * s[i]) @ vh[i, :k], a[i])
