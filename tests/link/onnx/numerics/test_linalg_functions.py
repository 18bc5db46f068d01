"""Tests of the matrix functions of `pytensor.link.onnx.numerics.linalg`
(exponential, inverses, determinants), run on their own on stacks of
matrices, against SciPy and NumPy."""

import numpy as np
import pytest
import scipy.linalg

from pytensor.link.onnx.numerics.linalg.determinant import (
    determinant,
    sign_and_log_determinant,
)
from pytensor.link.onnx.numerics.linalg.expm import expm
from pytensor.link.onnx.numerics.linalg.inverse import (
    hermitian_pseudo_inverse,
    inverse,
    pseudo_inverse,
)
from tests.link.onnx.utils import (
    evaluate_numerics,
    linalg_close,
    symmetric_matrix,
    well_conditioned,
)


rng = np.random.default_rng(7)


@pytest.mark.parametrize("scale", [0.1, 1.0, 300.0])
def test_expm_with_and_without_squarings(scale):
    a = rng.normal(size=(2, 4, 4)) * scale / 4
    result = evaluate_numerics(expm, a)
    for i in range(2):
        linalg_close(result[i], scipy.linalg.expm(a[i]))


def test_inverse_and_singular_flags():
    a = np.stack([well_conditioned(5), np.zeros((5, 5))])
    a_inverse, singular = evaluate_numerics(inverse, a)
    linalg_close(a_inverse[0], np.linalg.inv(a[0]))
    np.testing.assert_array_equal(singular.ravel(), [False, True])


@pytest.mark.parametrize("shape, transposed", [((6, 4), False), ((4, 6), True)])
def test_pseudo_inverse(shape, transposed):
    rank_deficient = np.outer(np.arange(1.0, shape[0] + 1), np.ones(shape[1]))
    a = np.stack([well_conditioned(shape[0], m=shape[1]), rank_deficient])
    result = evaluate_numerics(lambda x: pseudo_inverse(x, transposed), a)
    linalg_close(result, np.linalg.pinv(a))


def test_hermitian_pseudo_inverse_reads_the_lower_triangle():
    a = symmetric_matrix(5)
    result = evaluate_numerics(hermitian_pseudo_inverse, np.tril(a)[None])
    linalg_close(result[0], np.linalg.pinv(a, hermitian=True))


def test_determinants():
    a = np.stack([well_conditioned(4), -well_conditioned(4), np.ones((4, 4))])
    determinants, signs, log_abs = evaluate_numerics(
        lambda x: (determinant(x), *sign_and_log_determinant(x)), a
    )
    linalg_close(determinants.ravel(), np.linalg.det(a))
    expected_signs, expected_log_abs = np.linalg.slogdet(a)
    np.testing.assert_array_equal(signs.ravel(), expected_signs)
    linalg_close(log_abs.ravel(), expected_log_abs)
