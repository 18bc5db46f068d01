"""Tests of the converters of the ``numpy.linalg`` Ops.

See `tests.link.onnx.test_slinalg` for the tolerances. Eigenvectors and
singular vectors are unique up to their signs only (for distinct eigenvalues
and singular values, as in these tests): `same_up_to_signs` compares them
after making the largest element of each column positive.
"""

from functools import cache

import numpy as np
import pytensor.tensor as pt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytensor.tensor.basic import ExtractDiag, Eye

import pytensor
from tests.link.onnx.utils import (
    FLOAT_DTYPES,
    MODES,
    PYTENSOR_2,
    SIZES,
    compare_for_each,
    compare_onnx_and_py,
    has_converter,
    linalg_close,
    matrix,
    positive_definite,
    rng,
    symmetric_matrix,
    well_conditioned,
    with_unused_triangle,
)


def canonical_signs(x):
    """``x`` with each column multiplied by the sign of its largest element."""
    x = np.asarray(x)
    if x.ndim < 2 or x.size == 0:
        return x
    largest = np.take_along_axis(x, np.abs(x).argmax(axis=-2)[..., None, :], axis=-2)
    return x * np.where(largest < 0, -1, 1).astype(x.dtype)


def same_up_to_signs(onnx_value, py_value):
    linalg_close(canonical_signs(onnx_value), canonical_signs(py_value))


# Inverse and determinants


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, "int64"])
def test_inv_det_slogdet(dtype):
    a = matrix("a", dtype)
    outputs = [pt.linalg.inv(a), pt.linalg.det(a), *pt.linalg.slogdet(a)]
    if dtype == "int64":
        cases = [[np.array([[2, 1], [1, 3]])], [np.array([[0, 1], [1, 0]])]]
    else:
        cases = [[well_conditioned(n, dtype)] for n in SIZES]
    compare_for_each([a], outputs, cases)


def test_det_and_slogdet_of_singular_and_large_matrices():
    a = pt.dmatrix("a")
    # det of the 50 x 50 matrix is about 1e17: slogdet is accurate, det relatively
    outputs = [pt.linalg.det(a), *pt.linalg.slogdet(a)]
    cases = [
        [np.ones((3, 3))],
        [np.zeros((2, 2))],
        [np.array([[0.0, 2.0], [3.0, 0.0]])],
        [-np.eye(3)],
        [well_conditioned(50)],
    ]
    compare_for_each([a], outputs, cases)


def test_inv_of_singular_or_non_square_matrix_raises():
    a = pt.dmatrix("a")
    fn = pytensor.function([a], pt.linalg.inv(a), mode="ONNX")
    np.testing.assert_allclose(fn(np.eye(2) * 2), np.eye(2) / 2)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        fn(np.ones((2, 2)))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        fn(np.ones((2, 3)))


@pytest.mark.parametrize("mode", MODES)
def test_batched_inverse_and_determinants(mode):
    a = pt.tensor("a", dtype="float64", shape=(None, None, None, None))
    outputs = [pt.linalg.inv(a), pt.linalg.det(a), *pt.linalg.slogdet(a)]
    cases = [[well_conditioned(n, batch=(2, 3))] for n in (1, 4)]
    compare_for_each([a], outputs, cases, onnx_mode=mode)


# Symmetric eigenproblems


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_eigh(lower, dtype):
    a = matrix("a", dtype)
    if PYTENSOR_2:
        w, v = pt.linalg.eigh(a, UPLO="L" if lower else "U")
    else:
        w, v = pt.linalg.eigh(a, lower=lower)
    sizes = [*SIZES, 50] if dtype == "float64" else SIZES
    cases = [[with_unused_triangle(symmetric_matrix(n, dtype), lower)] for n in sizes]
    compare_for_each([a], [w, v], cases, assert_fn=same_up_to_signs)


@pytest.mark.skipif(PYTENSOR_2, reason="eigh(a, b) is new in PyTensor 3")
def test_generalized_eigh():
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    w, v = pt.linalg.eigh(a, b)
    cases = [[symmetric_matrix(n), positive_definite(n)] for n in SIZES]
    compare_for_each([a, b], [w, v], cases, assert_fn=same_up_to_signs)


def test_eigh_of_degenerate_matrices():
    # Repeated eigenvalues: eigenvectors are not unique, check A V = V diag(w)
    a = pt.dmatrix("a")
    w, v = pt.linalg.eigh(a)
    fn = pytensor.function([a], [w, v], mode="ONNX")
    q = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    for value in [np.zeros((3, 3)), np.eye(4), (q * [1, 1, 1, 2, 2, -3]) @ q.T]:
        eigenvalues, eigenvectors = fn(value)
        np.testing.assert_allclose(eigenvalues, np.linalg.eigvalsh(value), atol=1e-14)
        np.testing.assert_allclose(
            value @ eigenvectors, eigenvectors * eigenvalues, atol=1e-14
        )
        np.testing.assert_allclose(
            eigenvectors.T @ eigenvectors, np.eye(len(value)), atol=1e-14
        )


@pytest.mark.parametrize("batched", [False, True], ids=["matrix", "stack"])
def test_eig_is_not_supported_and_the_error_names_eigh(batched):
    a = pt.tensor3("a") if batched else pt.dmatrix("a")
    with pytest.raises(NotImplementedError, match=r"use pt\.linalg\.eigh"):
        pytensor.function([a], pt.linalg.eig(a), mode="ONNX")


# Singular value decomposition


SVD_SHAPES = [(1, 1), (4, 4), (7, 3), (3, 7), (12, 12), (1, 5), (5, 1), (0, 3), (3, 0)]


def svd_outputs(a, full_matrices, compute_uv):
    """The outputs of ``svd`` that are unique up to signs: the first ``k``
    singular vectors (columns of ``u`` and of ``vt.T``)."""
    if not compute_uv:
        return [pt.linalg.svd(a, full_matrices=full_matrices, compute_uv=False)]
    u, s, vt = pt.linalg.svd(a, full_matrices=full_matrices)
    k = pt.minimum(a.shape[0], a.shape[1])
    return [u[:, :k], s, vt[:k].T]


@pytest.mark.parametrize("static", [False, True], ids=["symbolic", "static"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize(
    "full_matrices, compute_uv", [(True, True), (False, True), (True, False)]
)
def test_svd(full_matrices, compute_uv, dtype, static):
    for shape in SVD_SHAPES if not static else [(7, 3), (3, 7)]:
        a = pt.tensor("a", dtype=dtype, shape=shape if static else (None, None))
        outputs = svd_outputs(a, full_matrices, compute_uv)
        cases = [[well_conditioned(shape[0], dtype, m=shape[1])]]
        if not static:
            cases += [[well_conditioned(m, dtype, m=n)] for m, n in SVD_SHAPES]
        compare_for_each([a], outputs, cases, assert_fn=same_up_to_signs)
        if not static:
            break


@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_reconstructs_and_is_orthogonal(full_matrices):
    a = pt.dmatrix("a")
    fn = pytensor.function(
        [a], pt.linalg.svd(a, full_matrices=full_matrices), mode="ONNX"
    )
    rank_two = rng.normal(size=(6, 2)) @ rng.normal(size=(2, 4))
    for value in [rank_two, rank_two.T, np.zeros((3, 2)), well_conditioned(50)]:
        u, s, vt = fn(value)
        m, n = value.shape
        k = min(m, n)
        assert u.shape == ((m, m) if full_matrices else (m, k))
        assert vt.shape == ((n, n) if full_matrices else (k, n))
        np.testing.assert_allclose(
            s, np.linalg.svd(value, compute_uv=False), atol=1e-13
        )
        np.testing.assert_allclose((u[:, :k] * s) @ vt[:k], value, atol=1e-13)
        np.testing.assert_allclose(u.T @ u, np.eye(u.shape[1]), atol=1e-13)
        np.testing.assert_allclose(vt @ vt.T, np.eye(vt.shape[0]), atol=1e-13)


@pytest.mark.parametrize("mode", MODES)
def test_batched_svd(mode):
    a = pt.tensor("a", dtype="float64", shape=(2, None, None))
    outputs = [*svd_outputs(a[0], False, True), pt.linalg.svd(a, compute_uv=False)]
    cases = [
        [well_conditioned(4, batch=(2,), m=3)],
        [well_conditioned(2, batch=(2,), m=5)],
    ]
    compare_for_each([a], outputs, cases, onnx_mode=mode, assert_fn=same_up_to_signs)


@pytest.mark.parametrize("ord", [2, -2, "nuc", "fro", None, 1, -1, np.inf])
def test_matrix_norms(ord):
    a = pt.dmatrix("a")
    cases = [[well_conditioned(m, m=n)] for m, n in [(3, 3), (5, 2), (2, 5)]]
    compare_for_each([a], pt.linalg.norm(a, ord=ord), cases)


# Pseudo-inverse, tensor inverse and solve, least squares


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv(hermitian, dtype):
    a = matrix("a", dtype)
    if hermitian:
        cases = [
            [with_unused_triangle(symmetric_matrix(n, dtype), lower=True)]
            for n in SIZES
        ]
        cases.append([np.diag([1.0, 0.0, -2.0]).astype(dtype)])
    else:
        cases = [[well_conditioned(m, dtype, m=n)] for m, n in SVD_SHAPES]
        if dtype == "float64":
            # NumPy's cutoff, 1e-15 times the largest singular value, keeps
            # the rounding errors of a float32 zero singular value
            cases.append([np.outer([1.0, 2.0, 0.0], [3.0, 1.0])])
    compare_for_each([a], pt.linalg.pinv(a, hermitian=hermitian), cases)


def test_pinv_of_static_wide_matrix_and_negative_matrix_power():
    a = pt.tensor("a", dtype="float64", shape=(2, 5))
    b = pt.dmatrix("b")
    compare_onnx_and_py(
        [a, b],
        [pt.linalg.pinv(a), pt.linalg.matrix_power(b, -3)],
        [well_conditioned(2, m=5), well_conditioned(3)],
        assert_fn=linalg_close,
    )


@pytest.mark.parametrize("ind", [1, 2])
def test_tensorinv(ind):
    a = pt.tensor("a", dtype="float64", shape=(None,) * 4)
    shape = (2, 3, 6, 1) if ind == 2 else (6, 2, 1, 3)
    value = well_conditioned(6).reshape(shape)
    compare_for_each([a], pt.linalg.tensorinv(a, ind=ind), [[value]])


@pytest.mark.parametrize("axes", [None, (0,)])
def test_tensorsolve(axes):
    a = pt.tensor("a", dtype="float64", shape=(None,) * 4)
    b = pt.dmatrix("b")
    a_value = well_conditioned(6).reshape(2, 3, 2, 3)
    if axes is not None:
        a_value = np.moveaxis(a_value, 2, 0)
    compare_for_each(
        [a, b],
        pt.linalg.tensorsolve(a, b, axes=axes),
        [[a_value, rng.normal(size=(2, 3))]],
    )


# LAPACK takes an rcond outside (0, 1) for the machine precision
@pytest.mark.parametrize("rcond", [-1.0, 0.0, 1e-3, 1.0, 2.0])
def test_lstsq(rcond):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    outputs = pt.linalg.lstsq(a, b, rcond)
    rank_one = np.outer([1.0, 2.0, 3.0, 4.0], [1.0, 2.0])
    cases = [
        [well_conditioned(m, m=n), rng.normal(size=(m, 2))]
        for m, n in [(5, 3), (3, 5), (4, 4)]
    ]
    cases.append([rank_one, np.ones((4, 1))])
    compare_for_each([a, b], list(outputs), cases)


@pytest.mark.parametrize("rcond", [pt.dscalar("rcond"), pt.dvector("rcond")])
def test_lstsq_of_a_vector_raises_numpys_error_on_every_call(rcond):
    a, b = pt.dvector("a"), pt.dvector("b")
    for mode in ("FAST_COMPILE", "ONNX"):
        fn = pytensor.function([a, b, rcond], pt.linalg.lstsq(a, b, rcond), mode=mode)
        with pytest.raises(np.linalg.LinAlgError):
            fn([2.0, 1.0], [2.0, 1.0], np.ones(rcond.type.ndim * (2,)))


# Gradients


GRADIENT_COSTS = {
    "determinants": lambda a: pt.linalg.slogdet(a)[1] + pt.linalg.det(a),
    "inverse": lambda a: (pt.linalg.inv(a) ** 2).sum(),
    "singular_values": lambda a: (
        (pt.linalg.svd(a, compute_uv=False) ** 2).sum() + pt.linalg.norm(a, "nuc")
    ),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cost", GRADIENT_COSTS)
def test_gradients_of_determinants_inverse_and_singular_values(cost, mode):
    # Each alone: with the default rewrites, det next to inv becomes a graph
    # with ExtractDiag, converted in tensor_basic
    a = pt.dmatrix("a")
    gradient = pytensor.grad(GRADIENT_COSTS[cost](a), a)
    cases = [[well_conditioned(n)] for n in (1, 3, 5)]
    compare_for_each([a], gradient, cases, onnx_mode=mode)


TENSOR_BASIC_MISSING = not (has_converter(Eye) and has_converter(ExtractDiag))


@pytest.mark.xfail(
    TENSOR_BASIC_MISSING,
    reason="the gradients hold Eye and ExtractDiag, converted in tensor_basic",
    strict=True,
)
@pytest.mark.parametrize("mode", MODES)
def test_gradients_of_singular_vectors_and_pinv(mode):
    a = pt.dmatrix("a")
    cost = (pt.linalg.svd(a, full_matrices=False)[0] ** 4).sum() + (
        pt.linalg.pinv(a) ** 2
    ).sum()
    gradient = pytensor.grad(cost, a)
    cases = [[well_conditioned(n)] for n in (1, 3)]
    compare_for_each([a], gradient, cases, onnx_mode=mode)


@pytest.mark.xfail(
    TENSOR_BASIC_MISSING and not PYTENSOR_2,
    reason="the gradients hold Eye and ExtractDiag, converted in tensor_basic "
    "(PyTensor 2 computes them with its Op EighGrad)",
    strict=True,
)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lower", [True, False])
def test_gradients_of_eigh(lower, mode):
    a = pt.dmatrix("a")
    w, v = (
        pt.linalg.eigh(a, UPLO="L" if lower else "U")
        if PYTENSOR_2
        else pt.linalg.eigh(a, lower=lower)
    )
    gradient = pytensor.grad((w**2).sum() + (v**4).sum(), a)
    cases = [
        [symmetric_matrix(n) + np.triu(rng.normal(size=(n, n)), 1)] for n in (1, 3, 5)
    ]
    compare_for_each([a], gradient, cases, onnx_mode=mode)


# Properties over random matrices


@cache
def spectral_functions():
    """``eigh`` of a symmetric matrix and ``svd`` of any matrix, compiled once."""
    symmetric_a, a = pt.dmatrix("symmetric_a"), pt.dmatrix("a")
    outputs = [*pt.linalg.eigh(symmetric_a), *pt.linalg.svd(a)]
    return pytensor.function([symmetric_a, a], outputs, mode="ONNX")


@given(
    m=st.integers(1, 9),
    n=st.integers(1, 9),
    rank=st.integers(0, 9),
    seed=st.integers(0, 2**32 - 1),
)
def test_spectral_decompositions_reconstruct_their_input(m, n, rank, seed):
    generator = np.random.default_rng(seed)
    rank = min(rank, m, n)
    a = generator.normal(size=(m, rank)) @ generator.normal(size=(rank, n))
    symmetric_a = a @ a.T
    w, v, u, s, vt = spectral_functions()(symmetric_a, a)
    scale = max(np.abs(symmetric_a).max(), 1)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(symmetric_a), atol=1e-13 * scale)
    np.testing.assert_allclose(symmetric_a @ v, v * w, atol=1e-13 * scale)
    np.testing.assert_allclose(v.T @ v, np.eye(m), atol=1e-13)
    scale = max(np.abs(a).max(), 1)
    np.testing.assert_allclose(
        s, np.linalg.svd(a, compute_uv=False), atol=1e-13 * scale
    )
    k = min(m, n)
    np.testing.assert_allclose((u[:, :k] * s) @ vt[:k], a, atol=1e-13 * scale)
    np.testing.assert_allclose(u.T @ u, np.eye(m), atol=1e-13)
    np.testing.assert_allclose(vt @ vt.T, np.eye(n), atol=1e-13)
