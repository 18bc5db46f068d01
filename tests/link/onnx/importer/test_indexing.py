"""Unique, scatter reductions and TensorScatter imported with ONNX's semantics
(against ONNX's reference and NumPy)."""

import numpy as np
import pytensor.tensor as pt
import pytest
from onnx import TensorProto, helper

import pytensor
from pytensor.link.onnx import import_onnx
from tests.link.onnx.utils import (
    assert_matches_reference,
    assert_same_imported,
    make_model,
    run_imported,
    single_node_model,
)


rng = np.random.default_rng(7)
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
        assert_same_imported(a, e)


@pytest.mark.parametrize("reduction", ["mul", "max", "min", "add", "none"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_scatter_elements_reductions_merge_duplicate_indices(reduction, dtype):
    x = rng.integers(-5, 5, (3, 4)).astype(dtype)
    indices = np.array([[0, 2, 0, 3], [1, 1, 1, 0]], dtype="int64")
    if reduction == "none":
        indices = np.array([[0, 2, 1, 3], [1, 0, 2, 1]], dtype="int64")
    updates = rng.integers(-5, 5, (2, 4)).astype(dtype)
    feeds = {"x": x, "indices": indices, "updates": updates}
    model = single_node_model(
        "ScatterElements", feeds, opset=18, axis=1, reduction=reduction
    )
    assert_matches_reference(model, feeds)


@pytest.mark.parametrize("reduction", ["mul", "max", "min"])
def test_scatter_nd_reductions_of_slices_with_duplicates(reduction):
    x = rng.normal(size=(4, 3, 2))
    indices = np.array([[[0], [2]], [[0], [-1]]], dtype="int64")
    updates = rng.normal(size=(2, 2, 3, 2))
    feeds = {"x": x, "indices": indices, "updates": updates}
    model = single_node_model("ScatterND", feeds, opset=18, reduction=reduction)
    assert_matches_reference(model, feeds)


def test_scatter_max_is_differentiable_with_respect_to_the_winning_update():
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], reduction="max")
    model = make_model(
        [node],
        [
            ("x", TensorProto.DOUBLE, [3]),
            ("i", TensorProto.INT64, [2]),
            ("u", TensorProto.DOUBLE, [2]),
        ],
        [("y", TensorProto.DOUBLE, [3])],
    )
    imported = import_onnx(model)
    x, i, u = imported.inputs
    grad = pytensor.grad(pt.sum(imported.outputs[0]), u)
    f = pytensor.function([x, i, u], grad)
    np.testing.assert_array_equal(
        f([0.0, 0.0, 0.0], np.array([1, 1]), [2.0, 5.0]), [0.0, 1.0]
    )


@pytest.mark.parametrize("mode", ["linear", "circular"])
@pytest.mark.parametrize("axis", [-2, 1, 2])
def test_tensor_scatter_writes_at_each_batch_position(mode, axis):
    cache = rng.normal(size=(2, 3, 5, 4)).astype("float32")
    length = 2
    update_shape = list(cache.shape)
    update_shape[axis] = length
    update = rng.normal(size=update_shape).astype("float32")
    starts = np.array([1, 4 if mode == "circular" else 3], dtype="int64")
    if axis == 1:
        starts = np.array([0, 2 if mode == "circular" else 1], dtype="int64")
    feeds = {"cache": cache, "update": update, "write_indices": starts}
    model = single_node_model("TensorScatter", feeds, opset=24, axis=axis, mode=mode)
    assert_matches_reference(model, feeds)
