import numpy as np
import onnxruntime as ort
import pytensor.tensor as pt
import pytest
from onnx import TensorProto, helper
from pytensor.compile.mode import Mode

import pytensor
from pytensor.link.onnx import export_onnx
from pytensor.link.onnx.passes import PassContext, run_graph_passes
from tests.link.onnx.utils import compare_onnx_and_py, onnx_model_of


def descending(x, step=-1):
    return pt.arange(x.shape[0] - 1, -1, step)


@pytest.mark.parametrize("static", [True, False])
@pytest.mark.parametrize("step", [-1, -2])
def test_indices_from_a_descending_range(static, step):
    # onnxruntime's GatherToSliceFusion turned such a Gather into an empty Slice
    x = pt.matrix("x", shape=(4, 3) if static else (None, 3))
    compare_onnx_and_py([x], [x[descending(x, step)]], [np.arange(12.0).reshape(4, 3)])


def test_indices_from_a_range_of_symbolic_step():
    x, step = pt.matrix("x"), pt.lscalar("step")
    f = pytensor.function([x, step], x[pt.arange(0, x.shape[0], step)], mode="ONNX")
    value = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(f(value, 2), value[0:4:2])
    np.testing.assert_array_equal(f(value, -1), value[0:4:-1])


def test_an_exported_descending_gather_runs_in_a_default_session(tmp_path):
    x = pt.matrix("x", shape=(None, 3))
    y = x[descending(x)]
    export_onnx(([x], [y]), tmp_path / "reversed.onnx")
    session = ort.InferenceSession(
        tmp_path / "reversed.onnx", providers=["CPUExecutionProvider"]
    )
    value = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(session.run(None, {"x": value})[0], value[::-1])


@pytest.mark.parametrize("mode", ["ONNX", "export"])
def test_ascending_ranges_of_constant_step_are_left_as_they_are(mode):
    x = pt.matrix("x")
    y = x[pt.arange(0, x.shape[0], 2)]
    if mode == "export":
        model = export_onnx(([x], [y]))
    else:
        model = onnx_model_of(pytensor.function([x], y, mode="ONNX"))
    producers = {out: node for node in model.graph.node for out in node.output}
    [range_node] = [node for node in model.graph.node if node.op_type == "Range"]
    assert all(
        producers[name].op_type != "Neg"
        for name in range_node.input
        if name in producers
    )


def test_a_value_only_an_unread_node_shares_with_a_branch_moves_into_it():
    # Converters may leave nodes nothing reads (removed after the passes);
    # they must not keep the failing product below out of the else branch.
    def returning(name, value):
        output = helper.make_tensor_value_info(name, TensorProto.DOUBLE, None)
        return helper.make_graph(
            [helper.make_node("Identity", [value], [name])], name, [], [output]
        )

    nodes = [
        helper.make_node("MatMul", ["m", "v"], ["product"]),
        helper.make_node("Neg", ["product"], ["unread"]),
        helper.make_node(
            "If",
            ["c"],
            ["result"],
            then_branch=returning("then", "v"),
            else_branch=returning("else", "product"),
        ),
    ]
    inputs = [
        helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        helper.make_tensor_value_info("m", TensorProto.DOUBLE, [None, None]),
        helper.make_tensor_value_info("v", TensorProto.DOUBLE, [None]),
    ]
    result = helper.make_tensor_value_info("result", TensorProto.DOUBLE, None)
    graph = helper.make_graph(nodes, "g", inputs, [result])
    run_graph_passes(graph, PassContext())
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=9
    )
    session = ort.InferenceSession(model.SerializeToString())
    feeds = {"c": np.array(True), "m": np.ones((2, 3)), "v": np.arange(4.0)}
    np.testing.assert_array_equal(session.run(None, feeds)[0], np.arange(4.0))


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_a_reduction_keeps_the_axes_a_dimshuffle_restores(axis):
    x = pt.matrix("x", shape=(3, 4))
    total = x.sum(axis=axis, keepdims=True)
    fn, _ = compare_onnx_and_py([x], [total], [np.arange(12.0).reshape(3, 4)])
    op_types = [node.op_type for node in onnx_model_of(fn).graph.node]
    assert op_types == ["ReduceSum"]


def test_a_reduction_read_without_its_axes_too_keeps_them_apart():
    x = pt.matrix("x", shape=(3, 4))
    total = x.sum(axis=1)
    outputs = [total, total[:, None] * 2.0, total.dimshuffle("x", 0)]
    compare_onnx_and_py([x], outputs, [np.arange(12.0).reshape(3, 4)])


def digits_cnn(images, first, second, dense):
    """Two 3x3 convolution layers, 2x2 max-pooling and a dense softmax layer."""

    def layer(x, kernels):
        return pt.maximum(
            pt.signal.convolve2d(x[:, None], kernels[None], mode="valid").sum(axis=2), 0
        )

    features = layer(layer(images, first), second)
    b, c, h, w = features.shape
    pooled = features.reshape((b, c, h // 2, 2, w // 2, 2)).max(axis=(3, 5))
    return pt.special.softmax(pooled.reshape((images.shape[0], -1)) @ dense, axis=-1)


def digits_cnn_function(dtype, mode="ONNX"):
    gen = np.random.default_rng(3)
    # constant weights, as in benchmarks/workloads.py: the reshape before the
    # max then has static channel and window lengths
    weights = [
        gen.normal(0, 0.3, shape).astype(dtype)
        for shape in [(8, 1, 3, 3), (16, 8, 3, 3), (64, 10)]
    ]
    images = pt.tensor("x", dtype=dtype, shape=(None, 1, 8, 8))
    return pytensor.function([images], digits_cnn(images, *weights), mode=mode)


def cnn_images(dtype, batch):
    values = np.random.default_rng(4).uniform(0, 16, (batch, 1, 8, 8)).astype(dtype)
    if batch > 1:
        # NaN, +inf and -inf, some in one pooling window
        values[0, 0, 0, :3] = [np.nan, np.inf, -np.inf]
        values[1, 0, 4:7, 4] = [np.inf, -np.inf, np.inf]
    return values


def test_the_exported_cnn_has_no_shape_arithmetic_left():
    model = export_onnx(digits_cnn_function("float32"), dims={"x": ("batch", 1, 8, 8)})
    op_types = [node.op_type for node in model.graph.node]
    # torch.onnx's export of this network: Conv, Relu, Conv, Relu, MaxPool,
    # Flatten, MatMul, Softmax; the NaN of PyTensor's max costs 6 more
    assert sorted(op_types) == sorted(
        [
            *("Conv", "Relu", "Conv", "Relu", "MaxPool", "Flatten", "MatMul"),
            *("Softmax", "IsNaN", "Cast", "MaxPool", "Neg", "Sqrt", "Add"),
        ]
    )


def test_the_exported_cnn_output_carries_the_batch_dim_name():
    model = export_onnx(digits_cnn_function("float32"), dims={"x": ("batch", 1, 8, 8)})
    [output] = model.graph.output
    dims = output.type.tensor_type.shape.dim
    assert [dim.dim_param or dim.dim_value for dim in dims] == ["batch", 10]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [1, 5, 0])
def test_the_exported_cnn_computes_what_pytensor_computes(dtype, batch):
    f = digits_cnn_function(dtype)
    model = export_onnx(f, dims={"x": ("batch", 1, 8, 8)})
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    images = cnn_images(dtype, batch)
    [probabilities] = session.run(None, {"x": images})
    tolerance = {"float32": 1e-5, "float64": 1e-12}[dtype]
    # PyTensor's default mode (Numba in 3.x) drops the NaN of a convolution
    # window holding NaN or both infinities, where its Python linker keeps it
    # (and NumPy's vectorize, which the Python linker uses, rejects batch 0)
    modes = ["ONNX", *[Mode(linker="py")] * (batch > 0), *[None] * (batch == 1)]
    for mode in modes:
        expected = digits_cnn_function(dtype, mode)(images)
        assert probabilities.dtype == expected.dtype
        np.testing.assert_allclose(
            probabilities, expected, rtol=tolerance, atol=tolerance
        )


def test_a_reshape_of_the_batch_keeps_its_name_and_reads_no_shape():
    x = pt.matrix("x")
    w = pytensor.shared(np.arange(3.0), name="w")
    y = pt.tanh(x.reshape((x.shape[0], 2, 3)) * w).sum(-1)
    f = pytensor.function([x], y, mode="ONNX")
    model = export_onnx(f, dims={"x": ("batch", 6)})
    [output] = model.graph.output
    dims = output.type.tensor_type.shape.dim
    assert [dim.dim_param or dim.dim_value for dim in dims] == ["batch", 2]
    assert "Shape" not in [node.op_type for node in model.graph.node]
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    for batch in (0, 1, 4):
        values = np.random.default_rng(batch).normal(size=(batch, 6))
        [result] = session.run(None, {"x": values})
        np.testing.assert_allclose(result, f(values), rtol=1e-12)
