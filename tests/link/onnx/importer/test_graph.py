"""import_onnx: inputs, options, composition with PyTensor graphs, the report."""

import numpy as np
import onnx
import pytensor.tensor as pt
import pytest
from onnx import TensorProto, helper, numpy_helper
from pytensor.gradient import verify_grad

import pytensor
from pytensor.link.onnx import import_onnx
from pytensor.link.onnx.importer import UnsupportedONNXError
from tests.link.onnx.utils import FAST_MODE, make_model, run_imported


def linear_tanh_model(batch=1, dtype=TensorProto.FLOAT):
    """``tanh(x @ w + b)`` with a batch dim fixed to ``batch``."""
    np_dtype = helper.tensor_dtype_to_np_dtype(dtype)
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.normal(size=(3, 2)).astype(np_dtype), "w")
    b = numpy_helper.from_array(rng.normal(size=2).astype(np_dtype), "b")
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["h"], name="dense"),
        helper.make_node("Tanh", ["h"], ["y"], name="activation"),
    ]
    return make_model(
        nodes,
        [("x", dtype, [batch, 3])],
        [("y", dtype, [batch, 2])],
        initializers=[w, b],
    )


def weights(model):
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}


def expected_linear_tanh(model, x):
    w = weights(model)
    return np.tanh(x @ w["w"] + w["b"])


def test_outputs_are_pytensor_variables_of_new_inputs():
    model = linear_tanh_model()
    imported = import_onnx(model)
    assert imported.input_names == ["x"]
    assert imported.output_names == ["y"]
    assert imported.inputs[0].type.shape == (1, 3)
    x = np.ones((1, 3), dtype="float32")
    y = pytensor.function(imported.inputs, imported["y"], mode=FAST_MODE)(x)
    np.testing.assert_allclose(y, expected_linear_tanh(model, x), rtol=1e-6)


def test_input_shapes_free_a_fixed_batch_dim():
    model = linear_tanh_model(batch=1)
    x = np.random.default_rng(1).normal(size=(5, 3)).astype("float32")
    [y] = run_imported(model, {"x": x}, input_shapes={"x": (None, 3)})
    np.testing.assert_allclose(y, expected_linear_tanh(model, x), rtol=1e-6)


def test_given_inputs_compose_with_a_pytensor_graph():
    model = linear_tanh_model()
    z = pt.matrix("z", dtype="float32", shape=(None, 3))
    [y] = import_onnx(model, inputs={"x": 2 * z}, input_shapes=None).outputs
    x = np.ones((4, 3), dtype="float32")
    value = pytensor.function([z], y.sum(), mode=FAST_MODE)(x)
    np.testing.assert_allclose(
        value, expected_linear_tanh(model, 2 * x).sum(), rtol=1e-5
    )


def test_gradients_flow_through_the_imported_graph():
    model = linear_tanh_model(dtype=TensorProto.DOUBLE)

    def loss(x):
        return import_onnx(model, inputs=[x]).outputs[0].sum()

    rng = np.random.default_rng(2)
    verify_grad(loss, [rng.normal(size=(1, 3))], rng=rng, mode=FAST_MODE)


@pytest.mark.parametrize("float_dtype", ["float32", "float64"])
def test_float_dtype_chooses_the_result_dtype(float_dtype):
    model = linear_tanh_model()
    imported = import_onnx(model, float_dtype=float_dtype)
    assert imported.inputs[0].dtype == float_dtype
    assert imported.outputs[0].dtype == float_dtype
    x = np.ones((1, 3), dtype=float_dtype)
    [y] = run_imported(model, {"x": x}, float_dtype=float_dtype)
    assert y.dtype == float_dtype
    np.testing.assert_allclose(y, expected_linear_tanh(model, x), rtol=1e-6)


def test_shared_initializers_can_be_swapped():
    model = linear_tanh_model()
    imported = import_onnx(model, shared_initializers=True)
    assert set(imported.shared) == {"w", "b"}
    f = pytensor.function(imported.inputs, imported.outputs[0], mode=FAST_MODE)
    x = np.ones((1, 3), dtype="float32")
    imported.shared["b"].set_value(np.full(2, 100, dtype="float32"))
    np.testing.assert_allclose(f(x), np.tanh(x @ weights(model)["w"] + 100))


def test_a_path_is_accepted(tmp_path):
    model = linear_tanh_model()
    onnx.save(model, tmp_path / "m.onnx")
    x = np.ones((1, 3), dtype="float32")
    [y] = run_imported(tmp_path / "m.onnx", {"x": x})
    np.testing.assert_allclose(y, expected_linear_tanh(model, x), rtol=1e-6)


def test_one_error_lists_every_unsupported_op_and_type():
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="fine"),
        helper.make_node("NoSuchOp", ["a"], ["b"], name="first_bad", domain="custom"),
        helper.make_node("Cast", ["b"], ["c"], name="to_bf16", to=TensorProto.BFLOAT16),
        helper.make_node("StringNormalizer", ["s"], ["t"], name="strings"),
    ]
    model = make_model(
        nodes,
        [("x", TensorProto.FLOAT, [2]), ("s", TensorProto.STRING, [2])],
        [("c", TensorProto.BFLOAT16, [2]), ("t", TensorProto.STRING, [2])],
        domains=[helper.make_opsetid("custom", 1)],
    )
    with pytest.raises(UnsupportedONNXError) as error:
        import_onnx(model)
    message = str(error.value)
    for expected in [
        "op custom.NoSuchOp at graph, node first_bad",
        "type BFLOAT16 at graph, node to_bf16",
        "type STRING at value 's'",
        "type STRING at value 't'",
        "type BFLOAT16 at value 'c'",
    ]:
        assert expected in message
    assert "fine" not in message
    assert len(error.value.problems) == 6


def test_unsupported_ops_inside_subgraphs_are_reported_with_their_path():
    branch = helper.make_graph(
        [helper.make_node("NoSuchOp", [], ["r"], name="inner", domain="custom")],
        "branch",
        [],
        [helper.make_tensor_value_info("r", TensorProto.FLOAT, [1])],
    )
    node = helper.make_node(
        "If", ["c"], ["y"], name="choice", then_branch=branch, else_branch=branch
    )
    model = make_model(
        [node],
        [("c", TensorProto.BOOL, [])],
        [("y", TensorProto.FLOAT, [1])],
        domains=[helper.make_opsetid("custom", 1)],
    )
    with pytest.raises(
        UnsupportedONNXError, match="node choice/then_branch, node inner"
    ):
        import_onnx(model)


def test_unknown_input_names_are_refused():
    with pytest.raises(ValueError, match="no inputs named"):
        import_onnx(linear_tanh_model(), inputs={"nope": pt.matrix()})
