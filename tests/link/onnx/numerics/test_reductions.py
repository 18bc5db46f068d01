"""The reductions of ``numerics/reductions.py`` on their own."""

import numpy as np
import pytest

from pytensor.link.onnx.numerics.reductions import (
    extremum_by_position,
    flatten_axes_last,
    integer_product,
    integer_sum,
)
from tests.link.onnx.utils import assert_same_values, evaluate_numerics


rng = np.random.default_rng(7)
BIG = np.array([[2**40 + 1, 2**40, -(2**62)], [2**33 + 5, 2**33 + 7, 3]], dtype="int64")


@pytest.mark.parametrize("axes", [(0,), (1,), (0, 2), (2, 0, 1)])
def test_flatten_axes_last(axes):
    x = rng.normal(size=(2, 3, 4))
    kept = [a for a in range(3) if a not in axes]
    expected = np.transpose(x, kept + sorted(axes)).reshape(
        *(x.shape[a] for a in kept), -1
    )
    result = evaluate_numerics(
        lambda v: flatten_axes_last(v, 3, axes), x, output_ndim=4 - len(axes)
    )
    assert_same_values(result, expected)


def test_integer_sum_wraps_like_numpy():
    big = np.array([[2**62, 2**62, 2**62 + 1], [1, -2, 2**53 + 1]], dtype="int64")
    result = evaluate_numerics(lambda v: integer_sum(v, 2, (1,)), big, output_ndim=1)
    with np.errstate(over="ignore"):
        assert_same_values(result, big.sum(axis=1))


@pytest.mark.parametrize("static_length", [True, False])
@pytest.mark.parametrize("length", [0, 1, 5])
def test_integer_product_is_exact_and_wraps(length, static_length):
    x = rng.integers(-(2**20), 2**20, size=(2, length)).astype("int64")
    x[0, :2] = 2**31 + 1
    result = evaluate_numerics(
        lambda v: integer_product(v, 1, length if static_length else None),
        x,
        output_ndim=1,
    )
    with np.errstate(over="ignore"):
        assert_same_values(result, np.prod(x, axis=1))


@pytest.mark.parametrize(
    "position_op, reduce", [("ArgMax", np.max), ("ArgMin", np.min)]
)
def test_int64_extremum_by_position_is_exact(position_op, reduce):
    result = evaluate_numerics(
        lambda v: extremum_by_position(v, 2, (1,), position_op), BIG, output_ndim=1
    )
    assert_same_values(result, reduce(BIG, axis=1))
