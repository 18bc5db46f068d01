"""Unique against ONNX's reference and NumPy."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.link.onnx.import_helpers import (
    assert_matches_reference,
    assert_same,
    make_model,
    run_imported,
    single_node_model,
)


X = np.array([[2, 1, 2], [0, 5, 0], [2, 1, 2], [7, 1, 7]], dtype="float32")


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_sorted_unique(axis):
    attributes = {} if axis is None else {"axis": axis}
    model = single_node_model("Unique", {"x": X}, n_outputs=4, opset=11, **attributes)
    assert_matches_reference(model, {"x": X})


def in_order_of_first_occurrence(x, axis):
    values, first, inverse, counts = np.unique(x, True, True, True, axis=axis)
    order = np.argsort(first)
    values = np.take(x.ravel() if axis is None else x, first[order], axis=axis or 0)
    return values, first[order], np.argsort(order)[inverse.ravel()], counts[order]


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_unsorted_unique_keeps_the_order_of_first_occurrence(axis):
    # ONNX's reference takes the values along axis 0 whatever the axis: NumPy's
    # np.unique, reordered, is the expectation.
    expected = in_order_of_first_occurrence(X, axis)
    attributes = {"sorted": 0} | ({} if axis is None else {"axis": axis})
    outputs = ["values", "first", "inverse", "counts"]
    node = helper.make_node("Unique", ["x"], outputs, **attributes)
    model = make_model(
        [node],
        [("x", TensorProto.FLOAT, X.shape)],
        [
            (name, helper.np_dtype_to_tensor_dtype(e.dtype), e.shape)
            for name, e in zip(outputs, expected, strict=True)
        ],
        opset=11,
    )
    actual = run_imported(model, {"x": X})
    for a, e in zip(actual, expected, strict=True):
        assert_same(a, e)
