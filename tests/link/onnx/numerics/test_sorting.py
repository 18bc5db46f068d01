import numpy as np
import pytest

from pytensor.link.onnx.numerics.cumulative import prefix_product, run_positions
from pytensor.link.onnx.numerics.sorting import (
    group_counts,
    group_starts,
    lexicographic_order,
    searchsorted,
)
from pytensor.link.onnx.value import Value, arange
from tests.link.onnx.utils import evaluate_numerics


@pytest.mark.parametrize("length", [None, 5])
def test_prefix_product(length):
    x = np.array([[1.0, 2.0, 3.0, 0.5, -1.0], [2.0, 2.0, 2.0, 2.0, 2.0]])
    result = evaluate_numerics(lambda x: prefix_product(x, 1, 2, length), x)
    np.testing.assert_allclose(result, np.cumprod(x, axis=1))


def test_run_positions():
    counts = np.array([2, 0, 3, 1], dtype=np.int64)
    result = evaluate_numerics(run_positions, counts)
    assert result.tolist() == np.repeat(np.arange(4), counts).tolist()


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(side):
    x = np.array([0.0, 1.0, 1.0, 2.5, np.nan])
    v = np.array([[-1.0, 1.0], [2.5, np.nan]])
    result = evaluate_numerics(lambda x, v: searchsorted(x, v, side, 2), x, v)
    assert result.tolist() == np.searchsorted(x, v, side).tolist()


def stable_argsort_by_topk(key: Value) -> Value:
    """A stable argsort of small non-negative integral float keys, for the test."""
    n = key.dim(0)
    rank = key * n.cast("float64") + arange(n).cast("float64")
    _, order = rank.apply_multi(
        "TopK", rank, n.unsqueeze([0]), dtypes=("float64", "int64"), largest=0
    )
    return order


def test_lexicographic_order_and_groups():
    rows = np.array([[1.0, 2.0], [0.0, 5.0], [1.0, 2.0], [1.0, 0.0]])
    order, starts, counts = evaluate_numerics(
        lambda rows: (
            order := lexicographic_order(rows, stable_argsort_by_topk),
            starts := group_starts(rows.take(order, axis=0), by_rows=True),
            group_counts(starts),
        ),
        rows,
        output_ndim=1,
    )
    assert order.tolist() == [1, 3, 0, 2]
    assert starts.tolist() == [True, True, True, False]
    assert counts.tolist() == [1, 1, 2]
