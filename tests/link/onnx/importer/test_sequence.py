"""Sequences (as PyTensor typed lists) and plain optionals imported with
ONNX's semantics."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from pytensor.link.onnx import backend, import_onnx
from tests.link.onnx.utils import FAST_MODE, PYTENSOR_2, make_model, reference_outputs


FLOAT = TensorProto.FLOAT


def sequence_info(name, shape=None):
    return helper.make_tensor_sequence_value_info(name, FLOAT, shape)


def sequence_model(nodes, inputs, output, opset=18):
    graph = helper.make_graph(nodes, "test", inputs, [output])
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10
    )


def tensor_info(name, shape, elem_type=FLOAT):
    return helper.make_tensor_value_info(name, elem_type, shape)


def assert_same_sequences(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        assert a.dtype == e.dtype
        np.testing.assert_array_equal(a, e)


def run(model, feeds, mode=FAST_MODE):
    rep = backend.prepare(model, mode=mode)
    return rep.run([feeds[name] for name in rep_input_names(model)])


def rep_input_names(model):
    return [i.name for i in model.graph.input]


A = np.arange(4, dtype="float32")
B = np.arange(3, dtype="float32") + 10
C = np.arange(2, dtype="float32") + 20


NUMBA_SLICES = pytest.mark.xfail(
    not PYTENSOR_2,
    strict=True,
    reason="PyTensor 3's Numba backend cannot slice typed lists at run-time bounds",
)
EDITS = [
    ("SequenceInsert", []),
    ("SequenceInsert", [np.array(0, dtype="int64")]),
    ("SequenceInsert", [np.array(-1, dtype="int64")]),
    ("SequenceErase", []),
    ("SequenceErase", [np.array(1, dtype="int64")]),
    ("SequenceErase", [np.array(-3, dtype="int64")]),
]


def edit_cases():
    for op_type, extra in EDITS:
        for mode in [FAST_MODE, "CVM", "NUMBA"]:
            slices = op_type == "SequenceErase" and extra and mode == "NUMBA"
            marks = [NUMBA_SLICES] if slices else []
            yield pytest.param(op_type, extra, mode, marks=marks)


@pytest.mark.parametrize(("op_type", "extra", "mode"), edit_cases())
def test_sequence_edits_of_a_constructed_sequence(op_type, extra, mode):
    names = [f"e{i}" for i in range(len(extra))]
    nodes = [helper.make_node("SequenceConstruct", ["a", "b", "c"], ["s"])]
    inputs = ["s", "t"] if op_type == "SequenceInsert" else ["s"]
    nodes.append(helper.make_node(op_type, inputs + names, ["out"]))
    infos = [tensor_info(n, [None]) for n in "abct"] + [
        tensor_info(n, [], TensorProto.INT64) for n in names
    ]
    model = sequence_model(nodes, infos, sequence_info("out", [None]))
    feeds = {"a": A, "b": B, "c": C, "t": A[:1]} | dict(zip(names, extra, strict=True))
    [actual] = run(model, feeds, mode)
    [expected] = reference_outputs(model, feeds)
    assert_same_sequences(actual, expected)


@pytest.mark.parametrize("position", [0, 2, -1, -3])
def test_sequence_at_and_length(position):
    nodes = [
        helper.make_node("SequenceAt", ["s", "p"], ["at"]),
        helper.make_node("SequenceLength", ["s"], ["n"]),
    ]
    graph = helper.make_graph(
        nodes,
        "test",
        [sequence_info("s", [None]), tensor_info("p", [], TensorProto.INT32)],
        [tensor_info("at", [None]), tensor_info("n", [], TensorProto.INT64)],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10
    )
    feeds = {"s": [A, B, C], "p": np.array(position, dtype="int32")}
    at, n = run(model, feeds)
    expected_at, expected_n = reference_outputs(model, feeds)
    np.testing.assert_array_equal(at, expected_at)
    assert n == expected_n == 3


@pytest.mark.parametrize(
    ("split", "attributes"),
    [
        (None, {"axis": 1}),
        (None, {"axis": -1, "keepdims": 0}),
        (np.array(4, dtype="int64"), {"axis": 1}),
        (np.array([1, 2], dtype="int64"), {"axis": 0}),
    ],
)
def test_split_to_sequence(split, attributes):
    x = np.arange(18, dtype="float32").reshape(3, 6)
    inputs = ["x"] if split is None else ["x", "split"]
    node = helper.make_node("SplitToSequence", inputs, ["out"], **attributes)
    infos = [tensor_info("x", [3, 6])]
    if split is not None:
        infos.append(tensor_info("split", list(split.shape), TensorProto.INT64))
    model = sequence_model([node], infos, sequence_info("out"))
    feeds = {"x": x} if split is None else {"x": x, "split": split}
    [actual] = run(model, feeds)
    [expected] = reference_outputs(model, feeds)
    assert_same_sequences(actual, expected)


def test_an_empty_sequence_takes_the_rank_of_its_first_element():
    nodes = [
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=FLOAT),
        helper.make_node("SequenceInsert", ["empty", "x"], ["s"]),
        helper.make_node("SequenceInsert", ["s", "x"], ["out"]),
    ]
    model = sequence_model(
        nodes, [tensor_info("x", [2, 2])], sequence_info("out", [2, 2])
    )
    x = np.eye(2, dtype="float32")
    [actual] = run(model, {"x": x})
    assert_same_sequences(actual, [x, x])


def test_inputs_of_undeclared_rank_take_the_rank_of_the_values_run():
    node = helper.make_node("SequenceInsert", ["s", "t"], ["out"])
    model = sequence_model(
        [node], [sequence_info("s"), tensor_info("t", [None])], sequence_info("out")
    )
    with pytest.raises(Exception, match="input_shapes"):
        import_onnx(model)
    rep = backend.prepare(model, mode=FAST_MODE)
    [out] = rep.run([[A, B], C])
    assert_same_sequences(out, [A, B, C])
    imported = import_onnx(model, input_shapes={"s": (None,)})
    assert imported.inputs[0].type.ttype.shape == (None,)


def test_a_loop_carrying_a_sequence_is_refused_clearly():
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("SequenceInsert", ["seq_in", "x"], ["seq_out"]),
        ],
        "body",
        [
            tensor_info("i", [], TensorProto.INT64),
            tensor_info("cond_in", [], TensorProto.BOOL),
            sequence_info("seq_in", [2]),
        ],
        [tensor_info("cond_out", [], TensorProto.BOOL), sequence_info("seq_out", [2])],
    )
    node = helper.make_node("Loop", ["n", "", "s"], ["out"], body=body)
    model = sequence_model(
        [node],
        [tensor_info("n", [], TensorProto.INT64), sequence_info("s", [2]),
         tensor_info("x", [2])],
        sequence_info("out", [2]),
    )  # fmt: skip
    with pytest.raises(NotImplementedError, match="Loop carrying sequences"):
        import_onnx(model)


@pytest.mark.parametrize("given", [True, False])
def test_optional_has_element_of_a_plain_or_omitted_input(given):
    node = helper.make_node("OptionalHasElement", ["x"] if given else [""], ["y"])
    inputs = [tensor_info("x", [2])] if given else []
    model = make_model(
        [node],
        [(i.name, FLOAT, [2]) for i in inputs],
        [("y", TensorProto.BOOL, [])],
    )
    feeds = {"x": A[:2]} if given else {}
    [actual] = run(model, feeds)
    assert actual == given


def test_optional_get_element_of_a_sequence_is_the_sequence():
    node = helper.make_node("OptionalGetElement", ["s"], ["out"])
    model = sequence_model(
        [node], [sequence_info("s", [None])], sequence_info("out", [None])
    )
    [actual] = run(model, {"s": [A, B]})
    assert_same_sequences(actual, [A, B])
