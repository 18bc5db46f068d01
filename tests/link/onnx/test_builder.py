import numpy as np
import onnx
import onnxruntime as ort
import pytest

from pytensor.link.onnx.builder import (
    DEFAULT_OPSET,
    ONNXGraphBuilder,
    OpsetError,
    at_opset,
    sanitize_name,
)
from pytensor.link.onnx.passes.dense_layers import (
    DENSE_LAYER_PRODUCT_AT,
    GEMM_PRODUCT,
)


def run(builder, feeds):
    model = builder.make_model()
    onnx.checker.check_model(model, full_check=True)
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def vector_input(builder, name="x", dtype="float64"):
    return builder.add_input(name, dtype, (None,))


@pytest.mark.parametrize(
    "name, expected",
    [("x", "x"), ("x.T", "x_T"), ("1st", "v_1st"), ("", "v_"), ("a b/c", "a_b_c")],
)
def test_names_are_sanitized(name, expected):
    assert sanitize_name(name) == expected


def test_names_are_unique_and_keep_the_first_as_asked():
    builder = ONNXGraphBuilder()
    assert [builder.fresh_name("x") for _ in range(3)] == ["x", "x_1", "x_2"]
    assert builder.fresh_name("x_1") == "x_1_1"


def test_equal_constants_share_one_initializer():
    builder = ONNXGraphBuilder()
    first = builder.constant([1.0, 2.0], "float64")
    assert builder.constant(np.array([1.0, 2.0]), "float64") == first
    assert builder.constant([1.0, 2.0], "float32") != first
    assert builder.constant([[1.0, 2.0]], "float64") != first
    assert len(builder.initializers) == 3


def test_a_zero_dimensional_constant_stays_zero_dimensional():
    builder = ONNXGraphBuilder()
    name = builder.constant(2.5, "float64")
    [tensor] = [t for t in builder.initializers if t.name == name]
    assert list(tensor.dims) == []


def test_constants_of_dtypes_onnx_lacks_are_refused():
    with pytest.raises(NotImplementedError, match="complex128"):
        ONNXGraphBuilder().constant(1j)


def test_identical_nodes_are_added_once_but_random_ones_each_time():
    builder = ONNXGraphBuilder()
    x = vector_input(builder)
    assert builder.add("Exp", [x]) == builder.add("Exp", [x])
    assert builder.add("Exp", [x]) != builder.add("Log", [x])
    shape = builder.constant([3], "int64")
    first = builder.add("RandomUniformLike", [x])
    assert builder.add("RandomUniformLike", [x]) != first
    assert builder.add("Expand", [x, shape]) == builder.add("Expand", [x, shape])


def test_a_cast_to_the_same_dtype_adds_nothing():
    builder = ONNXGraphBuilder()
    x = vector_input(builder)
    assert builder.cast(x, "float64", "float64") == x
    assert builder.cast(x, "float64", "int64") != x
    assert len(builder.nodes) == 1


def test_outputs_keep_their_names_whatever_computes_them():
    builder = ONNXGraphBuilder()
    x = vector_input(builder)
    exp = builder.add("Exp", [x])
    doubled = builder.add("Add", [exp, exp])
    builder.add_output(exp, "e", "float64", (None,))
    builder.add_output(doubled, "d", "float64", (None,))
    builder.add_output(x, "same_as_x", "float64", (None,))
    builder.add_output(builder.constant([1.0], "float64"), "one", "float64", (1,))
    model = builder.make_model()
    assert [o.name for o in model.graph.output] == ["e", "d", "same_as_x", "one"]
    value = np.array([0.0, 1.0])
    e, d, same, one = run(builder, {"x": value})
    np.testing.assert_allclose(e, np.exp(value))
    np.testing.assert_allclose(d, 2 * np.exp(value))
    np.testing.assert_array_equal(same, value)
    np.testing.assert_array_equal(one, [1.0])


def test_a_value_can_be_two_outputs():
    builder = ONNXGraphBuilder()
    exp = builder.add("Exp", [vector_input(builder)])
    builder.add_output(exp, "first", "float64", (None,))
    builder.add_output(exp, "second", "float64", (None,))
    first, second = run(builder, {"x": np.array([1.0])})
    np.testing.assert_array_equal(first, second)


def test_unknown_dims_are_named_after_the_value():
    builder = ONNXGraphBuilder()
    builder.add_input("x", "float64", (None, 3))
    dims = builder.inputs[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["x_dim0", 3]


def test_nodes_nothing_reads_are_removed():
    builder = ONNXGraphBuilder()
    x = vector_input(builder)
    builder.add("Log", [x])
    builder.add_output(builder.add("Exp", [x]), "y", "float64", (None,))
    assert [node.op_type for node in builder.make_graph().node] == ["Exp"]


def test_subgraphs_share_the_name_generator():
    builder = ONNXGraphBuilder()
    x = vector_input(builder)
    body = builder.loop_body()
    assert [info.name for info in body.inputs] == ["iteration", "condition"]
    assert body.fresh_name("x") != x


@pytest.mark.parametrize("keep_checks", [True, False])
def test_runtime_checks_are_collected_only_when_kept(keep_checks):
    builder = ONNXGraphBuilder(keep_checks=keep_checks)
    x = vector_input(builder)
    positive = builder.add("Greater", [x, builder.constant(0.0, "float64")])
    builder.require(positive, ValueError, "x must be positive")
    assert len(builder.checks) == keep_checks
    if keep_checks:
        [(condition, check)] = builder.checks
        assert (check.exc_type, check.msg) == (ValueError, "x must be positive")
        builder.add_output(condition, "holds", "bool", ())
        assert run(builder, {"x": np.array([1.0, 2.0])})[0]
        assert not run(builder, {"x": np.array([1.0, -2.0])})[0]


@pytest.mark.parametrize("marked", [True, False])
def test_marked_dense_layers_become_gemm(marked):
    builder = ONNXGraphBuilder()
    a = builder.add_input("a", "float64", (None, 3))
    b = builder.constant(np.ones((3, 2)), "float64")
    c = builder.constant(np.ones(2), "float64")
    product = builder.add("MatMul", [a, b])
    layer = builder.add("Add", [product, c])
    if marked:
        builder.mark(GEMM_PRODUCT, product)
        builder.mark(DENSE_LAYER_PRODUCT_AT[0], layer)
    builder.add_output(layer, "y", "float64", (None, 2))
    op_types = [node.op_type for node in builder.make_graph().node]
    assert op_types == (["Gemm"] if marked else ["MatMul", "Add"])
    np.testing.assert_allclose(run(builder, {"a": np.eye(3)})[0], np.full((3, 2), 2.0))


def test_models_pin_the_oldest_ir_version_of_their_opset():
    builder = ONNXGraphBuilder()
    builder.add_output(
        builder.add("Exp", [vector_input(builder)]), "y", "float64", (None,)
    )
    model = builder.make_model()
    assert model.opset_import[0].version == DEFAULT_OPSET
    assert model.ir_version == 8


def test_a_model_converts_to_an_older_opset_but_not_to_an_impossible_one():
    builder = ONNXGraphBuilder()
    m = builder.add_input("m", "float64", (None, None))
    axes = builder.constant([0], "int64")
    builder.add_output(builder.add("ReduceMax", [m, axes]), "y", "float64", (1, None))
    model = builder.make_model()
    lowered = at_opset(model, 17)
    assert lowered.opset_import[0].version == 17
    assert at_opset(model, 21) is model
    with pytest.raises(OpsetError, match="opset 1"):
        at_opset(model, 1)
