import itertools

import numpy as np
import pytest

from pytensor.link.onnx.numerics.indexing import (
    ArrayIndex,
    Mask,
    flat_positions,
    scatter_at,
    slice_bounds,
    sliced,
)
from pytensor.link.onnx.value import length
from tests.link.onnx.utils import evaluate_numerics


BOUNDS = [-7, -3, -1, 0, 2, 6, None]


def slice_with_symbolic_bounds(start, stop, step):
    """A function of ``x`` and the bounds that are not None, slicing ``x``."""

    def slice_of(x, *symbolic):
        symbolic = iter(symbolic)
        bounds = (None if b is None else next(symbolic) for b in (start, stop, step))
        return sliced(x, {0: slice_bounds(slice(*bounds), length(x, 0))})

    return slice_of


@pytest.mark.parametrize("step", [-3, -1, 1, 2, None])
def test_symbolic_slices_select_what_numpy_does(step):
    data = np.arange(5.0)
    for start, stop in itertools.product(BOUNDS, BOUNDS):
        bounds = [np.array(b) for b in (start, stop, step) if b is not None]
        result = evaluate_numerics(
            slice_with_symbolic_bounds(start, stop, step), data, *bounds
        )
        np.testing.assert_array_equal(result, data[start:stop:step])


def test_flat_positions_of_mixed_entries_match_numpy():
    x = np.arange(60.0).reshape(5, 4, 3)
    v, mask = np.array([[0, -1], [2, 3]]), np.array([True, False, True])

    def gather(x, v, mask):
        entries = (
            ArrayIndex(v, 2),
            slice(None, None, -2),
            Mask(mask, (3,)),
        )
        positions = flat_positions(x, (None,) * 3, entries)
        return x.reshape(x.indices([-1])).take(positions.value, axis=0)

    result = evaluate_numerics(gather, x, v, mask, output_ndim=3)
    np.testing.assert_array_equal(result, x[v, ::-2, mask])


@pytest.mark.parametrize("keep_last", [True, False])
def test_scatter_at_repeated_positions(keep_last):
    x, v, y = np.zeros(4), np.array([1, 1, 3]), np.array([1.0, 2.0, 3.0])

    def update(x, v, y):
        positions = flat_positions(x, (4,), (ArrayIndex(v, 1),))
        return scatter_at(
            x, y, positions, (3,), increment=not keep_last, keep_last=keep_last
        )

    expected = np.zeros(4)
    if keep_last:
        expected[v] = y
    else:
        np.add.at(expected, v, y)
    np.testing.assert_array_equal(evaluate_numerics(update, x, v, y), expected)
