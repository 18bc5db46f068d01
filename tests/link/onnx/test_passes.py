import numpy as np
import onnxruntime as ort
import pytensor.tensor as pt
import pytest
from onnx import TensorProto, helper

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
