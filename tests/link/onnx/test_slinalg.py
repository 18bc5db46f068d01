"""Tests of the converters of the ``scipy.linalg`` Ops (decompositions and solvers).

The ONNX graphs compute the decompositions with other operations, in another
order, than LAPACK: results agree to a few units of roundoff times the
condition number, relative to the norm of the result (not elementwise: an
element that is nearly zero is as accurate as the others, absolutely). The
inputs are random well-conditioned matrices and `linalg_close` compares at
1e-8 (float64) and 1e-4 (float32) relative to the largest element.
"""

from functools import cache

import numpy as np
import pytensor.tensor as pt
import pytest
import scipy.linalg
from hypothesis import given
from hypothesis import strategies as st
from pytensor.tensor.basic import ExtractDiag, Eye
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.type_other import NoneConst

import pytensor
from tests.link.onnx.utils import (
    MODES,
    PYTENSOR_2,
    SIZES,
    assert_same_values,
    compare_for_each,
    compare_onnx_and_py,
    has_converter,
    linalg_close,
    matrix,
    no_rewrites,
    onnx_mode,
    positive_definite,
    rng,
    symmetric_matrix,
    triangular,
    well_conditioned,
    with_unused_triangle,
)


try:
    from pytensor.tensor.linalg import (
        LUFactorTridiagonal,
        pivot_to_permutation,
        tridiagonal_lu_factor,
        tridiagonal_lu_solve,
    )
    from pytensor.tensor.linalg.solvers.linear_control import TRSYL
except ImportError:  # PyTensor 2
    from pytensor.tensor._linalg.solve.linear_control import TRSYL
    from pytensor.tensor._linalg.solve.tridiagonal import (
        LUFactorTridiagonal,
        tridiagonal_lu_factor,
        tridiagonal_lu_solve,
    )
    from pytensor.tensor.slinalg import pivot_to_permutation


FLOAT_DTYPES = ["float64", "float32"]


# Cholesky


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky(lower, dtype):
    a = matrix("a", dtype)
    cases = [[positive_definite(n, dtype)] for n in SIZES]
    compare_for_each([a], pt.linalg.cholesky(a, lower=lower), cases)


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_reads_one_triangle_of_a_static_matrix(lower):
    a = matrix("a", "float64", static_n=4)
    value = with_unused_triangle(positive_definite(4), lower)
    compare_onnx_and_py(
        [a], pt.linalg.cholesky(a, lower=lower), [value], assert_fn=linalg_close
    )


def test_cholesky_of_integers_and_large_matrices():
    a = matrix("a", "int64")
    big = pt.dmatrix("big")
    compare_onnx_and_py(
        [a, big],
        [pt.linalg.cholesky(a), pt.linalg.cholesky(big)],
        [np.array([[4, 2], [2, 5]]), positive_definite(50)],
        assert_fn=linalg_close,
    )


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_of_non_positive_definite_matrix_is_nan(lower):
    a = pt.dmatrix("a")
    not_positive = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    compare_for_each(
        [a],
        pt.linalg.cholesky(a, lower=lower),
        [[not_positive], [-np.eye(2)], [np.zeros((1, 1))]],
    )


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_cholesky_on_error_raise():
    a = pt.dmatrix("a")
    fn = pytensor.function([a], pt.linalg.cholesky(a, on_error="raise"), mode="ONNX")
    np.testing.assert_allclose(fn(np.eye(2) * 4), np.eye(2) * 2)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        fn(-np.eye(2))


def test_cholesky_of_non_square_matrix_raises():
    a = pt.dmatrix("a")
    fn = pytensor.function([a], pt.linalg.cholesky(a), mode="ONNX")
    with pytest.raises(ValueError, match="square"):
        fn(np.ones((2, 3)))


# Triangular solves


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("b_ndim", [1, 2])
@pytest.mark.parametrize("unit_diagonal", [False, True])
@pytest.mark.parametrize("trans", [0, 1])
@pytest.mark.parametrize("lower", [True, False])
def test_solve_triangular(lower, trans, unit_diagonal, b_ndim, dtype):
    a = matrix("a", dtype)
    b = pt.tensor("b", dtype=dtype, shape=(None,) * b_ndim)
    x = pt.linalg.solve_triangular(
        a, b, lower=lower, trans=trans, unit_diagonal=unit_diagonal, b_ndim=b_ndim
    )
    # The triangle that is not read (and the unit diagonal) hold NaN
    cases = [
        [
            triangular(n, lower, dtype, unit_diagonal=unit_diagonal),
            rng.normal(size=(n, 3)[:b_ndim]).astype(dtype),
        ]
        for n in SIZES
    ]
    compare_for_each([a, b], x, cases)


def test_solve_triangular_with_zero_on_the_diagonal_is_nan():
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    singular = np.array([[1.0, 0.0], [1.0, 0.0]])
    compare_for_each(
        [a, b],
        pt.linalg.solve_triangular(a, b, lower=True),
        [[singular, np.ones((2, 2))]],
    )


@pytest.mark.parametrize("b_ndim", [1, 2])
@pytest.mark.parametrize("lower", [True, False])
def test_cho_solve(lower, b_ndim):
    c = pt.dmatrix("c")
    b = pt.tensor("b", dtype="float64", shape=(None,) * b_ndim)
    x = pt.linalg.cho_solve((c, lower), b, b_ndim=b_ndim)
    cases = [
        [triangular(n, lower, unused=0.0), rng.normal(size=(n, 2)[:b_ndim])]
        for n in SIZES
    ]
    compare_for_each([c, b], x, cases)


# Solve


def matrix_to_solve(assume_a, lower, n, mode):
    """A well-conditioned matrix for ``assume_a``, with garbage where the
    solver must not read.

    With PyTensor's rewrites a positive definite solve becomes a Cholesky
    decomposition of the lower triangle, whatever ``lower`` is: only the
    solver itself (rewrites off) is given a garbage triangle.
    """
    if assume_a in ("sym", "her", "pos"):
        a = symmetric_matrix(n, positive=assume_a == "pos")
        return with_unused_triangle(a, lower) if mode is no_rewrites else a
    if assume_a == "tridiagonal":
        # dominant tridiagonal band, garbage outside of it
        return well_conditioned(n) + 4 * np.eye(n)
    return well_conditioned(n)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("b_ndim", [1, 2])
@pytest.mark.parametrize(
    "assume_a, lower",
    [
        ("gen", False),
        ("sym", True),
        ("sym", False),
        ("her", True),
        ("pos", True),
        ("pos", False),
        ("tridiagonal", False),
        ("banded", False),
    ],
)
def test_solve(assume_a, lower, b_ndim, mode):
    a = pt.dmatrix("a")
    b = pt.tensor("b", dtype="float64", shape=(None,) * b_ndim)
    x = pt.linalg.solve(a, b, assume_a=assume_a, lower=lower, b_ndim=b_ndim)
    cases = [
        [
            matrix_to_solve(assume_a, lower, n, mode),
            rng.normal(size=(n, 3)[:b_ndim]),
        ]
        for n in SIZES
    ]
    compare_for_each([a, b], x, cases, onnx_mode=mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transposed", [False, True])
def test_solve_float32_and_transposed(transposed, mode):
    a, b = pt.fmatrix("a"), pt.fmatrix("b")
    x = pt.linalg.solve(a, b, transposed=transposed)
    cases = [
        [well_conditioned(n, "float32"), well_conditioned(n, "float32")] for n in SIZES
    ]
    compare_for_each([a, b], x, cases, onnx_mode=mode)


def test_solve_large_and_integer_inputs():
    a, b = pt.dmatrix("a"), pt.dvector("b")
    ints = pt.lmatrix("ints")
    compare_onnx_and_py(
        [a, b, ints],
        [pt.linalg.solve(a, b), pt.linalg.solve(ints, b[:2])],
        [well_conditioned(50), rng.normal(size=50), np.array([[2, 1], [1, 3]])],
        assert_fn=linalg_close,
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("assume_a", ["gen", "sym", "pos"])
def test_solve_with_singular_matrix_is_nan(assume_a, mode):
    # PyTensor returns NaN with the shape of a (not b): b is square here
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    x = pt.linalg.solve(a, b, assume_a=assume_a)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    not_positive = np.array([[1.0, 2.0], [2.0, 1.0]])
    cases = [[singular, np.eye(2)], [np.zeros((2, 2)), np.eye(2)]]
    if assume_a == "pos":
        cases.append([not_positive, np.eye(2)])
    compare_for_each([a, b], x, cases, onnx_mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_batched_solves_broadcast(mode):
    a = pt.tensor("a", dtype="float64", shape=(None, 1, None, None))
    b = pt.tensor("b", dtype="float64", shape=(3, None, None))
    v = pt.tensor("v", dtype="float64", shape=(None, None))
    outputs = [
        pt.linalg.solve(a, b),
        pt.linalg.solve(a, v, b_ndim=1),
        pt.linalg.solve_triangular(a, b, lower=True),
        pt.linalg.cho_solve((a, True), b),
    ]
    cases = [
        [
            well_conditioned(n, batch=(2, 1)) + 2 * np.eye(n),
            rng.normal(size=(3, n, 2)),
            rng.normal(size=(3, n)),
        ]
        for n in (1, 4)
    ]
    compare_for_each([a, b, v], outputs, cases, onnx_mode=mode)


# LU


def in_declared_dtype(onnx_value, py_value):
    """`linalg_close` after casting PyTensor's result to the declared dtype.

    ``LU(p_indices=True)`` declares int32 indices, but its ``perform`` returns
    SciPy's int64 ones.
    """
    linalg_close(onnx_value, np.asarray(py_value).astype(onnx_value.dtype))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize(
    "permute_l, p_indices", [(False, False), (True, False), (False, True)]
)
def test_lu(permute_l, p_indices, dtype):
    a = matrix("a", dtype)
    outputs = pt.linalg.lu(a, permute_l=permute_l, p_indices=p_indices)
    cases = [[well_conditioned(n, dtype)] for n in SIZES[1:]]
    compare_for_each([a], list(outputs), cases, assert_fn=in_declared_dtype)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("trans", [False, True])
def test_lu_factor_and_lu_solve(trans, mode):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    lu_and_pivots = pt.linalg.lu_factor(a)
    outputs = [*lu_and_pivots, pt.linalg.lu_solve(lu_and_pivots, b, trans=trans)]
    cases = [[well_conditioned(n), rng.normal(size=(n, 2))] for n in SIZES[1:]]
    compare_for_each([a, b], outputs, cases, onnx_mode=mode)


def test_lu_factor_of_singular_matrix_is_nan():
    a = pt.dmatrix("a")
    compare_for_each([a], list(pt.linalg.lu_factor(a)), [[np.ones((3, 3))]])


@pytest.mark.parametrize("inverse", [False, True])
def test_pivot_to_permutation(inverse):
    pivots = pt.ivector("pivots")
    permutation = pivot_to_permutation(pivots, inverse=inverse)
    cases = [[np.array(p, dtype="int32")] for p in ([2, 2, 2], [0], [3, 1, 3, 3], [])]
    compare_for_each([pivots], permutation, cases)


# QR


QR_SHAPES = [(1, 1), (5, 5), (6, 3), (3, 6), (12, 7), (2, 1), (3, 0)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("mode", ["full", "economic", "r", "raw"])
def test_qr_has_lapack_signs(mode, dtype):
    a = pt.tensor("a", dtype=dtype, shape=(None, None))
    outputs = pt.linalg.qr(a, mode=mode)
    outputs = list(outputs) if isinstance(outputs, list | tuple) else outputs
    cases = [[rng.normal(size=shape).astype(dtype)] for shape in QR_SHAPES]
    compare_for_each([a], outputs, cases)


def test_qr_of_static_and_rank_deficient_matrices():
    # The columns of q past the rank of a are one orthonormal basis among many
    # (LAPACK's depends on roundoff): test what defines a QR decomposition, and
    # LAPACK's signs in the columns of q and rows of r that a determines
    a = pt.tensor("a", dtype="float64", shape=(4, 3))
    qr = pytensor.function([a], list(pt.linalg.qr(a)), mode="ONNX")
    rank_one = np.outer([1.0, 2.0, 0.0, 1.0], [1.0, -1.0, 2.0])
    for value, rank in [(rank_one, 1), (np.zeros((4, 3)), 0)]:
        q, r = qr(value)
        expected_q, expected_r = scipy.linalg.qr(value)
        assert (q.dtype, q.shape) == (expected_q.dtype, expected_q.shape)
        assert (r.dtype, r.shape) == (expected_r.dtype, expected_r.shape)
        np.testing.assert_allclose(q.T @ q, np.eye(4), rtol=0, atol=1e-14)
        assert np.all(np.tril(r, -1) == 0)
        np.testing.assert_allclose(q @ r, value, rtol=0, atol=1e-14)
        linalg_close(q[:, :rank], expected_q[:, :rank])
        linalg_close(r[:rank], expected_r[:rank])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("mode", ["full", "economic", "r", "raw"])
def test_qr_with_pivoting_has_lapack_pivots_and_signs(mode, dtype):
    # Gaussian columns have distinct norms: the pivots are determined
    a = pt.tensor("a", dtype=dtype, shape=(None, None))
    outputs = list(pt.linalg.qr(a, mode=mode, pivoting=True))
    cases = [[rng.normal(size=shape).astype(dtype)] for shape in QR_SHAPES]
    compare_for_each([a], outputs, cases)


def test_qr_with_pivoting_of_batched_and_rank_deficient_matrices():
    a = pt.tensor3("a")
    qr = pytensor.function([a], list(pt.linalg.qr(a, pivoting=True)), mode="ONNX")
    rank_two = np.outer([1.0, 2.0, 0.0, 1.0], [1.0, -1.0, 2.0, 0.5])
    rank_two += np.outer([0.0, 1.0, 1.0, -1.0], [2.0, 0.0, 1.0, 1.0])
    batch = np.stack([rank_two, rng.normal(size=(4, 4)), np.zeros((4, 4))])
    q, r, pivots = qr(batch)
    assert pivots.dtype == "int32"
    for value, q_, r_, order in zip(batch, q, r, pivots, strict=True):
        assert sorted(order) == list(range(4))
        np.testing.assert_allclose(q_.T @ q_, np.eye(4), rtol=0, atol=1e-14)
        assert np.all(np.tril(r_, -1) == 0)
        np.testing.assert_allclose(q_ @ r_, value[:, order], rtol=0, atol=1e-13)
        diagonal = np.abs(np.diag(r_))
        assert np.all(diagonal[:-1] >= diagonal[1:] - 1e-13)


# Eigenvalues of symmetric matrices


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_eigvalsh(lower, dtype):
    a = matrix("a", dtype)
    w = pt.linalg.eigvalsh(a, NoneConst if PYTENSOR_2 else None, lower=lower)
    sizes = [*SIZES, 50] if dtype == "float64" else SIZES
    cases = [[with_unused_triangle(symmetric_matrix(n, dtype), lower)] for n in sizes]
    compare_for_each([a], w, cases, onnx_mode=no_rewrites)


@pytest.mark.parametrize("lower", [True, False])
def test_generalized_eigvalsh(lower):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    w = pt.linalg.eigvalsh(a, b, lower=lower)
    cases = [
        [
            with_unused_triangle(symmetric_matrix(n), lower),
            with_unused_triangle(positive_definite(n), lower),
        ]
        for n in SIZES
    ]
    fn = compare_for_each([a, b], w, cases)
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        fn(np.eye(2), -np.eye(2))


# Matrix exponential


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_expm(dtype):
    a = matrix("a", dtype)
    # norms from 0 to about 40: from no squaring to 3
    cases = [
        [(scale * rng.normal(size=(n, n)) / max(n, 1)).astype(dtype)]
        for n in SIZES
        for scale in (0.0, 0.5, 4.0, 20.0)
    ]
    cases.append([np.array([[1.0, 1e3], [0.0, 1.0]], dtype=dtype)])
    compare_for_each([a], pt.linalg.expm(a), cases)


def test_expm_of_large_matrix():
    a = pt.dmatrix("a")
    compare_for_each([a], pt.linalg.expm(a), [[rng.normal(size=(50, 50)) / 5]])


@pytest.mark.skipif(PYTENSOR_2, reason="PyTensor 2 declares an integer output")
def test_expm_of_integers():
    ints = pt.lmatrix("ints")
    compare_for_each([ints], pt.linalg.expm(ints), [[np.array([[0, 1], [-1, 0]])]])


# Constructors


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "int64", "bool"])
def test_block_diag(dtype):
    a, b = pt.matrix("a", dtype=dtype), pt.matrix("b", dtype=dtype)
    c = pt.tensor("c", dtype=dtype, shape=(2, None))
    cases = [
        [rng.integers(-1, 2, size=shape).astype(dtype) for shape in shapes]
        for shapes in [((2, 3), (0, 2), (2, 2)), ((1, 1), (3, 0), (2, 1))]
    ]
    compare_for_each([a, b, c], pt.linalg.block_diag(a, b, c), cases)


def test_block_diag_of_mixed_dtypes():
    a, b = pt.fmatrix("a"), pt.lmatrix("b")
    compare_onnx_and_py(
        [a, b],
        pt.linalg.block_diag(a, b),
        [np.ones((1, 2), "float32"), np.arange(4).reshape(2, 2)],
    )


@pytest.mark.parametrize("ndims", [(2, 2), (1, 2), (2, 3), (3, 3)])
def test_kron(ndims):
    a = pt.tensor("a", dtype="float64", shape=(None,) * ndims[0])
    b = pt.tensor("b", dtype="float64", shape=(None,) * ndims[1])
    values = [
        rng.normal(size=(2, 3, 4)[: ndims[0]]),
        rng.normal(size=(3, 1, 2)[: ndims[1]]),
    ]
    compare_onnx_and_py([a, b], pt.linalg.kron(a, b), values)


@pytest.mark.parametrize("mode", MODES)
def test_batched_decompositions(mode):
    a = pt.tensor("a", dtype="float64", shape=(None, None, None))
    b = pt.tensor("b", dtype="float64", shape=(1, None, None))
    outputs = [
        pt.linalg.cholesky(a),
        *pt.linalg.qr(a),
        pt.linalg.expm(a),
        *pt.linalg.lu(a),
        *pt.linalg.lu_factor(a),
        pt.linalg.block_diag(a, b),
    ]
    if not PYTENSOR_2:
        outputs.append(pt.linalg.eigvalsh(a))
    cases = [
        [positive_definite(n, batch=(3,)), rng.normal(size=(1, 2, 1))] for n in (1, 4)
    ]
    compare_for_each([a, b], outputs, cases, onnx_mode=mode)


# Tridiagonal LU factorization (LAPACK's gttrf and gttrs)


def tridiagonal(n, dtype="float64", batch=(), zero_column=False):
    """A random tridiagonal matrix (garbage outside the band, which is not read).

    Normal entries make ``gttrf`` swap some rows and not others. With
    ``zero_column``, the first column is zero: no elimination in the first
    step, and a zero on the diagonal of ``U``.
    """
    a = rng.normal(size=(*batch, n, n))
    if zero_column:
        a[..., :, 0] = 0
    return a.astype(dtype)


# SciPy's gttrf fails for matrices smaller than 3x3
TRIDIAGONAL_SIZES = [3, 4, 12]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("b_ndim", [1, 2])
@pytest.mark.parametrize("transposed", [False, True])
def test_tridiagonal_lu_factor_and_solve_as_lapack(transposed, b_ndim, dtype):
    a = pt.tensor("a", dtype=dtype, shape=(None, None))
    b = pt.tensor("b", dtype=dtype, shape=(None,) * b_ndim)
    factors = tridiagonal_lu_factor(a)
    x = tridiagonal_lu_solve(factors, b, b_ndim=b_ndim, transposed=transposed)
    cases = [
        [tridiagonal(n, dtype), rng.normal(size=(n, 2)[:b_ndim]).astype(dtype)]
        for n in TRIDIAGONAL_SIZES
    ]
    compare_for_each([a, b], [*factors, x], cases, assert_fn=assert_same_values)


def test_tridiagonal_lu_factor_without_elimination_or_of_static_stacks():
    a = pt.tensor("a", dtype="float64", shape=(None, None))
    stack = pt.tensor("stack", dtype="float64", shape=(2, 5, 5))
    b = pt.tensor("b", dtype="float64", shape=(2, 5, 3))
    stack_factors = tridiagonal_lu_factor(stack)
    outputs = [
        *tridiagonal_lu_factor(a),
        *stack_factors,
        tridiagonal_lu_solve(stack_factors, b, b_ndim=2),
    ]
    cases = [
        [
            tridiagonal(n, zero_column=True),
            tridiagonal(5, batch=(2,)),
            rng.normal(size=(2, 5, 3)),
        ]
        for n in TRIDIAGONAL_SIZES
    ]
    compare_for_each([a, stack, b], outputs, cases, assert_fn=assert_same_values)


@pytest.mark.parametrize("mode", MODES)
def test_tridiagonal_solves_of_one_matrix(mode):
    # PyTensor's rewrites factor a matrix solved for twice once, with gttrf
    a = pt.tensor("a", dtype="float64", shape=(None, None))
    b, c = pt.dmatrix("b"), pt.dvector("c")
    outputs = [
        pt.linalg.solve(a, b, assume_a="tridiagonal"),
        pt.linalg.solve(a.T, c, assume_a="tridiagonal", b_ndim=1),
    ]
    cases = [
        [tridiagonal(n) + 4 * np.eye(n), rng.normal(size=(n, 2)), rng.normal(size=n)]
        for n in TRIDIAGONAL_SIZES
    ]
    fn = compare_for_each([a, b, c], outputs, cases, onnx_mode=mode)
    factored = any(
        isinstance(getattr(node.op, "core_op", node.op), LUFactorTridiagonal)
        for node in fn.maker.fgraph.apply_nodes
    )
    assert factored == (mode is onnx_mode)


# Sylvester equations of quasi-triangular matrices (LAPACK's trsyl)


def real_schur_form(n, dtype="float64", batch=()):
    """The real Schur form of a random matrix with eigenvalues of real part
    above 1: upper triangular, with a 2x2 block per pair of complex ones."""
    shift = 2 * np.sqrt(n) + 1
    matrices = rng.normal(size=(int(np.prod(batch)), n, n)) + shift * np.eye(n)
    forms = [scipy.linalg.schur(matrix)[0] for matrix in matrices]
    return np.reshape(forms, (*batch, n, n)).astype(dtype)


SYLVESTER_SHAPES = [(1, 1), (2, 3), (5, 4), (8, 8), (3, 12)]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("batched", [False, True], ids=["core", "blockwise"])
def test_trsyl(batched, dtype):
    a, b, c = (pt.tensor(name, dtype=dtype, shape=(None, None)) for name in "abc")
    op = Blockwise(TRSYL()) if batched else TRSYL()
    cases = [
        [
            real_schur_form(m, dtype),
            real_schur_form(n, dtype),
            rng.normal(size=(m, n)).astype(dtype),
        ]
        for m, n in SYLVESTER_SHAPES
    ]
    assert any(np.any(np.diagonal(case[0], -1) != 0) for case in cases)
    compare_for_each([a, b, c], op(a, b, c), cases)


@pytest.mark.parametrize("mode", MODES)
def test_batched_trsyl_of_static_shapes_and_integers(mode):
    a = pt.tensor("a", dtype="float64", shape=(3, 6, 6))
    b = pt.tensor("b", dtype="float64", shape=(1, 4, 4))
    c = pt.tensor("c", dtype="int64", shape=(None, None))
    case = [
        real_schur_form(6, batch=(3,)),
        real_schur_form(4, batch=(1,)),
        rng.integers(-5, 5, size=(6, 4)),
    ]
    compare_for_each([a, b, c], Blockwise(TRSYL())(a, b, c), [case], onnx_mode=mode)


# Decompositions that are not unique


@pytest.mark.parametrize(
    "decompose, message",
    [
        (lambda a: pt.linalg.schur(a), "Schur decomposition is not unique"),
        (lambda a: pt.linalg.solve_continuous_lyapunov(a, a), "use pt.linalg.eigh"),
        (lambda a: pt.linalg.qz(a, a.T), "QZ .* is not unique"),
        (
            lambda a: pt.linalg.solve_discrete_are(a, a, a, a),
            "solve_discrete_lyapunov",
        ),
    ],
)
def test_schur_and_qz_are_not_supported(decompose, message):
    a = pt.dmatrix("a")
    with pytest.raises(NotImplementedError, match=message):
        pytensor.function([a], decompose(a), mode="ONNX")


# Triangles: tri, tril and triu are graphs of ARange, comparisons and products


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "bool"])
def test_tri_of_symbolic_sizes_and_offset(dtype):
    n, m, k = pt.lscalar("n"), pt.lscalar("m"), pt.lscalar("k")
    sizes_and_offsets = [(3, 3, 0), (4, 2, -1), (2, 5, 2), (3, 4, -5), (0, 3, 0)]
    cases = [[np.int64(value) for value in case] for case in sizes_and_offsets]
    compare_for_each([n, m, k], pt.tri(n, m, k, dtype=dtype), cases)


# PyTensor's triu of bool arrays raises (it subtracts bools)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8"])
def test_tril_and_triu_of_stacks(dtype, mode):
    x = pt.tensor("x", dtype=dtype, shape=(None, None, None))
    static = pt.tensor("static", dtype=dtype, shape=(2, 3))
    k = pt.lscalar("k")
    outputs = [
        *(pt.tril(x, offset) for offset in (0, 2, -1)),
        *(pt.triu(x, offset) for offset in (0, 2, -1)),
        pt.tril(x, k),
        pt.triu(x, k),
        pt.tril(static, -1),
        pt.triu(static, 1),
    ]
    cases = [
        [
            rng.integers(-3, 4, size=shape).astype(dtype),
            rng.integers(-3, 4, size=(2, 3)).astype(dtype),
            np.int64(offset),
        ]
        for shape, offset in [((2, 4, 3), -2), ((1, 2, 5), 1), ((3, 0, 2), 0)]
    ]
    compare_for_each([x, static, k], outputs, cases, onnx_mode=mode)


# Gradients: the graphs of their pullbacks hold more decompositions and solves


@pytest.mark.parametrize("mode", MODES)
def test_gradients_of_solves(mode):
    a, b, v = pt.dmatrix("a"), pt.dmatrix("b"), pt.dvector("v")
    square = a @ a.T + b @ b.T
    cost = (
        (pt.linalg.solve(a, b) ** 2).sum()
        + (pt.linalg.solve_triangular(a, v, lower=True) ** 2).sum()
        + (pt.linalg.solve(square, v, assume_a="pos") ** 2).sum()
    )
    if not PYTENSOR_2:  # no gradient in PyTensor 2
        cost += (pt.linalg.cho_solve((a, True), b) ** 2).sum()
    gradients = pytensor.grad(cost, [a, b, v])
    cases = [
        [triangular(n, True, unused=0.0), rng.normal(size=(n, 2)), rng.normal(size=n)]
        for n in (1, 3, 6)
    ]
    compare_for_each([a, b, v], gradients, cases, onnx_mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_gradients_of_decompositions(mode):
    a = pt.tensor("a", dtype="float64", shape=(4, 4))
    b = pt.dmatrix("b")
    _, lower, upper = pt.linalg.lu(a)
    cost = (
        (lower * upper).sum()
        + (pt.linalg.qr(a)[1] ** 2).sum()
        + (pt.linalg.block_diag(a, b) ** 3).sum()
    )
    if not PYTENSOR_2:  # whose gradient of expm has the complex Eig
        cost += (pt.linalg.expm(a) ** 2).sum()
    gradients = pytensor.grad(cost, [a, b])
    cases = [[well_conditioned(4) / 2, rng.normal(size=(n, 2))] for n in (1, 3)]
    compare_for_each([a, b], gradients, cases, onnx_mode=mode)


TENSOR_BASIC_MISSING = not (has_converter(ExtractDiag) and has_converter(Eye))


@pytest.mark.xfail(
    TENSOR_BASIC_MISSING,
    reason="the gradients hold ExtractDiag and Eye, converted in tensor_basic",
    strict=True,
)
@pytest.mark.parametrize("mode", MODES)
def test_gradients_of_cholesky_and_lu_factor(mode):
    a = pt.dmatrix("a")
    cost = (pt.linalg.cholesky(a @ a.T) ** 2).sum() + (
        pt.linalg.lu_factor(a)[0] ** 2
    ).sum()
    gradient = pytensor.grad(cost, a)
    cases = [[well_conditioned(n)] for n in (1, 3)]
    compare_for_each([a], gradient, cases, onnx_mode=mode)


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param(
            onnx_mode,
            id="rewrites",
            marks=pytest.mark.xfail(
                TENSOR_BASIC_MISSING and not PYTENSOR_2,
                reason="the rewritten gradients hold ExtractDiag, converted in "
                "tensor_basic (PyTensor 2 computes them with its Op EigvalshGrad)",
                strict=True,
            ),
        ),
        pytest.param(no_rewrites, id="no_rewrites"),
    ],
)
@pytest.mark.parametrize("lower", [True, False])
def test_gradients_of_generalized_eigvalsh(lower, mode):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    w = pt.linalg.eigvalsh(a, b, lower=lower)
    gradients = pytensor.grad((w**2).sum(), [a, b])
    cases = [
        [
            symmetric_matrix(n) + np.triu(rng.normal(size=(n, n)), 1),
            positive_definite(n),
        ]
        for n in (1, 3, 5)
    ]
    compare_for_each([a, b], gradients, cases, onnx_mode=mode)


# Properties over random matrices


@cache
def compiled_decompositions():
    a, b, c = pt.dmatrix("a"), pt.dmatrix("b"), pt.dmatrix("c")
    outputs = [
        pt.linalg.cholesky(a @ a.T),
        pt.linalg.solve(a, b),
        pt.linalg.expm(a - a.T),
        *pt.linalg.qr(c),
    ]
    return pytensor.function([a, b, c], outputs, mode="ONNX")


@given(
    n=st.integers(1, 12),
    m=st.integers(1, 9),
    rank=st.integers(0, 9),
    seed=st.integers(0, 2**32 - 1),
)
def test_decompositions_reconstruct_their_input(n, m, rank, seed):
    generator = np.random.default_rng(seed)
    q1, _ = np.linalg.qr(generator.normal(size=(n, n)))
    q2, _ = np.linalg.qr(generator.normal(size=(n, n)))
    a = (q1 * generator.uniform(1, 4, size=n)) @ q2
    b = generator.normal(size=(n, 2))
    # QR of any matrix, of any rank
    rank = min(rank, m, n)
    c = generator.normal(size=(m, rank)) @ generator.normal(size=(rank, n))
    factor, x, rotation, q, r = compiled_decompositions()(a, b, c)
    np.testing.assert_allclose(factor @ factor.T, a @ a.T, atol=1e-12 * 16)
    assert np.all(np.triu(factor, 1) == 0)
    np.testing.assert_allclose(a @ x, b, atol=1e-12 * 16 * np.abs(b).max())
    # the exponential of an antisymmetric matrix is a rotation
    np.testing.assert_allclose(rotation.T @ rotation, np.eye(n), atol=1e-12)
    scale = max(np.abs(c).max(), 1)
    np.testing.assert_allclose(q @ r, c, atol=1e-13 * scale)
    np.testing.assert_allclose(q.T @ q, np.eye(m), atol=1e-14 * m)
    assert np.all(np.tril(r, -1) == 0)
