"""Patterns of nodes that one ONNX operator computes, with or without the
mode's rewrites (see ``pytensor/link/onnx/fusions.py``)."""

import numpy as np
import pytensor.tensor as pt
import pytest

import pytensor
from pytensor.link.onnx import export_onnx
from tests.link.onnx.utils import MODES, onnx_model_of, random_values


rng = np.random.default_rng(7)


def op_types(model):
    return sorted(node.op_type for node in model.graph.node)


def convolution_layer(dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None, None, 6, 5))
    k = pt.tensor("k", dtype=dtype, shape=(4, None, 3, 2))
    layer = pt.signal.convolve2d(x[:, None], k[None], mode="valid").sum(axis=2)
    return [x, k], layer


def max_pooling():
    x = pt.tensor("x", shape=(None, 3, 8, 8))
    return [x], x.reshape((x.shape[0], 3, 4, 2, 4, 2)).max(axis=(3, 5))


# (graph, the operators an export of it holds, those it does not)
FUSED = {
    "convolution_over_channels": (
        lambda: convolution_layer("float32"),
        {"Conv"},
        {"ReduceSum"},
    ),
    "max_pooling": (max_pooling, {"MaxPool"}, {"ReduceMax"}),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("graph, present, absent", FUSED.values(), ids=FUSED.keys())
def test_an_export_holds_the_fused_operator(graph, present, absent, mode):
    inputs, output = graph()
    exported = op_types(export_onnx(pytensor.function(inputs, output, mode=mode)))
    assert present <= set(exported)
    assert not absent & set(exported)


@pytest.mark.parametrize("v_shape", [(None,), (None, 1)], ids=["vector", "column"])
def test_a_transposed_matrix_times_a_vector_multiplies_the_matrix(v_shape):
    a, v = pt.matrix("a"), pt.tensor("v", shape=v_shape)
    model = export_onnx(pytensor.function([a, v], a.T @ v, mode="ONNX"))
    [matmul] = [node for node in model.graph.node if node.op_type == "MatMul"]
    assert matmul.input[1] == "a"


def test_a_fused_convolution_keeps_the_runtime_broadcasting_check():
    inputs, layer = convolution_layer("float32")
    fn = pytensor.function(inputs, layer, mode="ONNX")
    assert op_types(onnx_model_of(fn)).count("Conv") == 1
    x = random_values(rng, (2, 1, 6, 5), "float32")
    k = random_values(rng, (4, 2, 3, 2), "float32")
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        fn(x, k)
