"""Ops of the ``ai.onnx.ml`` domain against ONNX's reference."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.link.onnx.utils import assert_matches_reference, make_model


ML = helper.make_opsetid("ai.onnx.ml", 3)


@pytest.mark.parametrize(
    "dtype", [("float32", TensorProto.FLOAT), ("float64", TensorProto.DOUBLE)]
)
@pytest.mark.parametrize("threshold", [0.0, 0.5])
def test_binarizer(dtype, threshold):
    x = np.array([[-1.0, 0.0, 0.5], [0.7, 2.0, 0.49]], dtype=dtype[0])
    node = helper.make_node(
        "Binarizer", ["x"], ["y"], domain="ai.onnx.ml", threshold=threshold
    )
    model = make_model(
        [node], [("x", dtype[1], x.shape)], [("y", dtype[1], x.shape)], domains=[ML]
    )
    assert_matches_reference(model, {"x": x})


@pytest.mark.parametrize(
    ("shape", "indices", "out_shape"),
    [
        ((3, 4), [0, 3], (3, 2)),
        ((2, 3, 4), [[1, 1, 2]], (2, 3, 3)),
        ((4,), [2, 0], (1, 2)),
    ],
)
def test_array_feature_extractor_takes_from_the_last_axis(shape, indices, out_shape):
    x = np.arange(np.prod(shape), dtype="float32").reshape(shape)
    indices = np.array(indices, dtype="int64")
    node = helper.make_node(
        "ArrayFeatureExtractor", ["x", "i"], ["y"], domain="ai.onnx.ml"
    )
    model = make_model(
        [node],
        [("x", TensorProto.FLOAT, shape), ("i", TensorProto.INT64, indices.shape)],
        [("y", TensorProto.FLOAT, out_shape)],
        domains=[ML],
    )
    assert_matches_reference(model, {"x": x, "i": indices})
