"""Tests of the building blocks on stacks of matrices, run on their own."""

import numpy as np
import pytest
import scipy.linalg

from pytensor.link.onnx.numerics.linalg.constructors import block_diagonal
from pytensor.link.onnx.numerics.linalg.stacks import (
    diagonal,
    gradient_of_triangle,
    has_zero_on_diagonal,
    identity,
    lower_triangle,
    mT,
    sort,
    symmetric_from,
    tridiagonal_band,
    upper_triangle,
)
from tests.link.onnx.utils import evaluate_numerics


rng = np.random.default_rng(11)
STACK = rng.normal(size=(2, 4, 3))
SQUARE = rng.normal(size=(2, 4, 4))


def test_transposes_and_triangles():
    transposed, lower, strict_upper = evaluate_numerics(
        lambda x: (mT(x), lower_triangle(x), upper_triangle(x, strict=True)), STACK
    )
    np.testing.assert_array_equal(transposed, np.swapaxes(STACK, 1, 2))
    np.testing.assert_array_equal(lower, np.tril(STACK))
    np.testing.assert_array_equal(strict_upper, np.triu(STACK, 1))


@pytest.mark.parametrize("lower", [True, False])
def test_symmetric_from_and_the_gradient_of_its_triangle(lower):
    symmetric, gradient = evaluate_numerics(
        lambda x: (symmetric_from(x, lower), gradient_of_triangle(x, lower)), SQUARE
    )
    triangle = np.tril(SQUARE) if lower else np.triu(SQUARE)
    np.testing.assert_array_equal(
        np.diagonal(symmetric, 0, 1, 2), np.diagonal(SQUARE, 0, 1, 2)
    )
    np.testing.assert_array_equal(symmetric, np.swapaxes(symmetric, 1, 2))
    np.testing.assert_array_equal(
        np.tril(symmetric) if lower else np.triu(symmetric), triangle
    )
    # the gradient of sum(g * symmetric_from(x)) with respect to x
    other = np.swapaxes(SQUARE, 1, 2)
    folded = SQUARE + np.where(np.eye(4, dtype=bool), 0, other)
    np.testing.assert_allclose(gradient, np.tril(folded) if lower else np.triu(folded))


def test_diagonal_identity_and_zero_on_diagonal():
    with_zero = SQUARE.copy()
    with_zero[1, 2, 2] = 0.0
    as_rows, eye, has_zero = evaluate_numerics(
        lambda x: (
            diagonal(x, 1),
            identity(x.dim(1), x.dim(2), x.dtype),
            has_zero_on_diagonal(x),
        ),
        with_zero,
    )
    np.testing.assert_array_equal(as_rows, np.diagonal(with_zero, 0, 1, 2)[:, None, :])
    np.testing.assert_array_equal(eye, np.eye(4)[None])
    np.testing.assert_array_equal(has_zero.ravel(), [False, True])


def test_tridiagonal_band():
    band = evaluate_numerics(tridiagonal_band, SQUARE)
    np.testing.assert_array_equal(band, np.triu(np.tril(SQUARE, 1), -1))


@pytest.mark.parametrize("ascending", [True, False])
def test_sort_rows(ascending):
    rows = rng.normal(size=(3, 1, 5))
    values, order = evaluate_numerics(lambda x: sort(x, x.dim(2), ascending), rows)
    expected_order = np.argsort(rows if ascending else -rows, axis=2)
    np.testing.assert_array_equal(order, expected_order)
    np.testing.assert_array_equal(values, np.take_along_axis(rows, expected_order, 2))


def test_block_diagonal():
    blocks = [rng.normal(size=(1, *shape)) for shape in [(2, 3), (1, 1), (3, 0)]]
    result = evaluate_numerics(lambda *x: block_diagonal(x), *blocks)
    np.testing.assert_array_equal(
        result[0], scipy.linalg.block_diag(*(block[0] for block in blocks))
    )
