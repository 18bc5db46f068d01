"""``pytensor.link.onnx.backend``: the onnx.backend interface over import_onnx."""

import numpy as np
import onnx.backend.base
import pytest
from onnx import TensorProto, helper

from pytensor.link.onnx import backend
from tests.link.onnx.utils import FAST_MODE, make_model


def softplus_model():
    node = helper.make_node("Softplus", ["x"], ["y"])
    return make_model(
        [node], [("x", TensorProto.DOUBLE, ["n"])], [("y", TensorProto.DOUBLE, ["n"])]
    )


def test_it_is_an_onnx_backend():
    assert issubclass(backend.PyTensorBackend, onnx.backend.base.Backend)
    assert backend.supports_device("CPU")
    assert not backend.supports_device("CUDA")


@pytest.mark.parametrize("mode", [FAST_MODE, "FAST_COMPILE", "ONNX"])
def test_prepare_and_run_in_a_chosen_mode(mode):
    rep = backend.prepare(softplus_model(), mode=mode)
    x = np.array([-1.0, 0.0, 30.0])
    [y] = rep.run([x])
    np.testing.assert_allclose(y, np.log1p(np.exp(x)))
    [by_name] = rep.run({"x": x})
    np.testing.assert_array_equal(by_name, y)


def test_run_node_types_the_inputs_after_the_arrays():
    node = helper.make_node("Mod", ["a", "b"], ["c"], fmod=1)
    a, b = np.array([-7, 7], dtype="int32"), np.array([3, -3], dtype="int32")
    [c] = backend.run_node(node, [a, b], mode=FAST_MODE)
    np.testing.assert_array_equal(c, np.fmod(a, b))
    assert c.dtype == np.int32


def test_run_model_and_import_options_pass_through():
    x = np.ones(2, dtype="float32")
    [y] = backend.run_model(
        softplus_model(), [x], mode=FAST_MODE, float_dtype="float32"
    )
    assert y.dtype == np.float32


def test_other_devices_are_refused():
    with pytest.raises(ValueError, match="CPU"):
        backend.prepare(softplus_model(), device="CUDA")
