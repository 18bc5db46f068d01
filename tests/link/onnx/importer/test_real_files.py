"""Models written by torch.onnx (``scripts/make_import_fixtures.py``) import,
match torch's outputs, and are differentiable."""

from pathlib import Path

import numpy as np
import onnx
import pytensor.tensor as pt
import pytest
from pytensor.compile.mode import Mode
from pytensor.gradient import verify_grad

import pytensor
from pytensor.link.onnx import import_onnx
from tests.link.onnx.utils import FAST_MODE


FIXTURES = Path(__file__).parents[1] / "fixtures"

# name: (op types the exporter wrote that the test relies on, tolerance)
MODELS = {
    "mlp_batch1": {"Gemm", "Tanh"},
    "cnn": {"Conv", "MaxPool", "Relu", "LogSoftmax"},
    "gru": {"GRU"},
    "loop_rnn": {"Loop"},
    "branch": {"If"},
}


def expected(name):
    data = np.load(FIXTURES / f"{name}.npz")
    inputs = [data[k] for k in sorted(data) if k.startswith("input_")]
    outputs = [data[k] for k in sorted(data) if k.startswith("output_")]
    return inputs, outputs


def op_types(name):
    model = onnx.load(FIXTURES / f"{name}.onnx", load_external_data=False)
    return {node.op_type for node in model.graph.node}


@pytest.mark.parametrize("name", MODELS)
def test_fixture_holds_the_ops_it_is_meant_to_test(name):
    assert MODELS[name] <= op_types(name)


@pytest.mark.parametrize(
    "mode", [FAST_MODE, Mode(linker="cvm", optimizer="fast_run")], ids=["py", "c"]
)
@pytest.mark.parametrize("name", MODELS)
def test_torch_exports_match_torch(name, mode):
    net = import_onnx(FIXTURES / f"{name}.onnx")
    inputs, outputs = expected(name)
    function = pytensor.function(net.inputs, net.outputs, mode=mode)
    for actual, wanted in zip(function(*inputs), outputs, strict=True):
        assert actual.dtype == wanted.dtype
        np.testing.assert_allclose(actual, wanted, rtol=1e-5, atol=1e-6)


def test_the_cnn_reads_its_external_weights_from_its_folder():
    assert (FIXTURES / "cnn.onnx.data").exists()
    net = import_onnx(FIXTURES / "cnn.onnx")
    assert net.outputs[0].dtype == "float32"


def test_a_batch_of_one_becomes_any_batch():
    [x1], [y1] = expected("mlp_batch1")
    path = FIXTURES / "mlp_batch1.onnx"
    [name] = import_onnx(path).input_names
    net = import_onnx(path, input_shapes={name: (None, 4)})
    rows = np.concatenate([x1, 2 * x1, x1])
    [y] = pytensor.function(net.inputs, net.outputs, mode=FAST_MODE)(rows)
    np.testing.assert_allclose(y[[0, 2]], np.concatenate([y1, y1]), rtol=1e-6)
    assert y.shape == (3, 2)


@pytest.mark.parametrize("name", ["mlp_batch1", "gru", "loop_rnn", "cnn"])
def test_gradients_of_imported_networks_match_finite_differences(name):
    model = onnx.load(FIXTURES / f"{name}.onnx")
    [x], _ = expected(name)

    def first_output_sum(v):
        net = import_onnx(model, inputs=[v], float_dtype="float64")
        return net.outputs[0].sum()

    rng = np.random.default_rng(0)
    verify_grad(first_output_sum, [x.astype("float64")], rng=rng, mode=FAST_MODE)


def test_gradient_through_the_if_branch():
    net = import_onnx(FIXTURES / "branch.onnx", float_dtype="float64")
    [x] = net.inputs
    gradient = pytensor.function([x], pytensor.grad(net.outputs[0].sum(), x))
    np.testing.assert_allclose(gradient(np.ones(3)), 2 * np.ones(3))
    np.testing.assert_allclose(gradient(-np.ones(3)), -np.ones(3))


def test_imported_network_composes_with_a_pytensor_graph():
    [x1], [y1] = expected("mlp_batch1")
    scale = pt.scalar("scale", dtype="float32")
    net = import_onnx(FIXTURES / "mlp_batch1.onnx", inputs=[pt.as_tensor(x1) * scale])
    f = pytensor.function([scale], net.outputs[0], mode=FAST_MODE)
    np.testing.assert_allclose(f(np.float32(1)), y1, rtol=1e-6)
