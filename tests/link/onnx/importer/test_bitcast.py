"""BitCast: the bytes of a tensor read as another dtype, in every mode."""

import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.gradient import NullTypeGradError

import pytensor
from pytensor.link.onnx import import_onnx
from pytensor.link.onnx.importer.dtypes import onnx_type
from tests.link.onnx.utils import (
    assert_matches_reference,
    single_node_model,
)


PAIRS = [
    ("float32", "int32"), ("int32", "float32"), ("float64", "int64"),
    ("int64", "float64"), ("bool", "uint8"), ("int8", "uint8"),
    ("uint16", "int16"), ("uint32", "int32"),
]  # fmt: skip


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "NUMBA", "FAST_RUN"])
@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_bitcast_reinterprets_the_bytes(source, target, mode):
    x = np.array([[1.5, -2.0, 0.0], [3.25, 7.0, 1.0]]).astype(source)[:, ::-1]
    model = single_node_model("BitCast", {"x": x}, opset=26, to=onnx_type(target))
    assert_matches_reference(model, {"x": x}, mode=mode)


def test_bitcast_of_float16():
    # PyTensor's Numba backend has no float16: the Python mode runs it.
    x = np.array([1.5, -2.0, 65504.0], dtype="float16")
    model = single_node_model("BitCast", {"x": x}, opset=26, to=onnx_type("int16"))
    assert_matches_reference(model, {"x": x})


def test_bitcast_of_a_scalar_keeps_its_rank():
    x = np.array(1.0, dtype="float32")
    model = single_node_model("BitCast", {"x": x}, opset=26, to=onnx_type("int32"))
    assert_matches_reference(model, {"x": x})


def test_bitcast_is_not_differentiable():
    x = np.ones(3, dtype="float32")
    model = single_node_model("BitCast", {"x": x}, opset=26, to=onnx_type("int32"))
    imported = import_onnx(model)
    with pytest.raises(NullTypeGradError):
        pytensor.grad(pt.sum(imported.outputs[0]), imported.inputs[0])
