"""Neural-network ops whose import has special cases: MaxPool's Indices output
against onnxruntime (ONNX's reference gets the indices of padded windows
wrong), MaxUnpool against ONNX's reference, float16 softmax."""

import numpy as np
import onnxruntime
import pytest

from tests.link.onnx.utils import (
    assert_matches_reference,
    assert_same_imported,
    run_imported,
    single_node_model,
)


rng = np.random.default_rng(3)


@pytest.mark.parametrize("storage_order", [0, 1])
@pytest.mark.parametrize(
    "shape, attributes",
    [
        ((2, 3, 6, 7), {"kernel_shape": [2, 3], "strides": [2, 2]}),
        ((1, 2, 5, 5), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
        ((1, 2, 7, 6), {"kernel_shape": [2, 2], "dilations": [2, 1]}),
        ((2, 2, 5, 6), {"kernel_shape": [3, 2], "auto_pad": "SAME_UPPER"}),
    ],
)
def test_max_pool_indices(shape, attributes, storage_order):
    x = rng.normal(size=shape).astype("float32")
    x[0, 0, :2, :2] = 1.0  # ties: the first tap in kernel order wins
    model = single_node_model(
        "MaxPool", {"x": x}, n_outputs=2, storage_order=storage_order, **attributes
    )
    session = onnxruntime.InferenceSession(model.SerializeToString())
    expected = session.run(None, {"x": x})
    for actual, wanted in zip(run_imported(model, {"x": x}), expected, strict=True):
        assert_same_imported(actual, wanted)


@pytest.mark.parametrize("with_output_shape", [False, True])
def test_max_unpool_inverts_max_pool(with_output_shape):
    x = rng.normal(size=(2, 3, 3, 2)).astype("float32")
    indices = np.arange(2 * 3 * 6 * 4).reshape(2, 3, 6, 4)[:, :, ::2, ::2].copy()
    feeds = {"x": x, "indices": indices}
    if with_output_shape:
        feeds["output_shape"] = np.array([2, 3, 7, 5])
    model = single_node_model(
        "MaxUnpool", feeds, opset=11, kernel_shape=[2, 2], strides=[2, 2]
    )
    assert_matches_reference(model, feeds)


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax"])
def test_float16_softmax_runs_in_float16_arithmetic(op_type):
    x = np.random.default_rng(1).normal(size=(3, 5)).astype("float16")
    model = single_node_model(op_type, {"x": x}, opset=18, axis=1)
    assert_matches_reference(model, {"x": x}, rtol=1e-3, atol=1e-3)
