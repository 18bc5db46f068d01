import numpy as np
import onnx
import pytensor.tensor as pt
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import pytensor
from pytensor.link.onnx import export_onnx
from pytensor.link.onnx.passes.fold_constants import fold_constants


I64 = np.int64

# (op_type, constant inputs, attributes): each folds to what the ONNX
# reference implementation computes
FOLDABLE = {
    "Shape": ("Shape", [np.zeros((2, 3, 4))], {"start": 1}),
    "Gather": ("Gather", [np.array([5, 6, 7]), np.array([-1, 0])], {}),
    "Gather_axis": ("Gather", [np.arange(6).reshape(2, 3), np.array(1)], {"axis": 1}),
    "Concat": ("Concat", [np.array([1]), np.array([2, 3])], {"axis": 0}),
    "Reshape_zero": ("Reshape", [np.zeros((2, 0)), np.array([0, 5])], {"allowzero": 1}),
    "Reshape_copy": ("Reshape", [np.zeros((2, 3)), np.array([0, -1])], {}),
    "Unsqueeze": ("Unsqueeze", [np.array([1, 2]), np.array([0, -1])], {}),
    "Squeeze": ("Squeeze", [np.zeros((1, 2, 1)), np.array([2])], {}),
    "Slice": (
        "Slice",
        [np.arange(10), *(np.array([v]) for v in (-2, -(2**63), 0, -3))],
        {},
    ),
    "Transpose": ("Transpose", [np.arange(6).reshape(2, 3)], {"perm": [1, 0]}),
    "Expand": ("Expand", [np.array([[1], [2]]), np.array([2, 3])], {}),
    "Cast_int_to_float": ("Cast", [np.array([3, -4])], {"to": onnx.TensorProto.FLOAT}),
    "Range": ("Range", [I64(2), I64(11), I64(3)], {}),
    "Div": ("Div", [np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])], {}),
    "Mod": ("Mod", [np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3])], {}),
    "Mod_fmod": (
        "Mod",
        [np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3])],
        {"fmod": 1},
    ),
    "Max": ("Max", [np.array([1, 5]), np.array(3), np.array([[0], [9]])], {}),
    "Sub": ("Sub", [np.array([3]), np.array([5, 1])], {}),
    "Less": ("Less", [np.array([3]), np.array([5, 1])], {}),
    "Where": ("Where", [np.array([True, False]), np.array(1.5), np.array([2.5])], {}),
    "ReduceProd": ("ReduceProd", [np.array([[2, 3], [4, 5]]), np.array([1])], {}),
    "ReduceSum_all": ("ReduceSum", [np.array([[2, 3], [4, 5]])], {"keepdims": 0}),
}


def single_node_model(op_type, values, attributes):
    names = [f"in{i}" for i in range(len(values))]
    node = helper.make_node(op_type, names, ["folded"], **attributes)
    final = helper.make_node("Identity", ["folded"], ["out"])
    graph = helper.make_graph(
        [node, final],
        "g",
        [],
        [helper.make_tensor_value_info("out", onnx.TensorProto.UNDEFINED, None)],
        initializer=[
            numpy_helper.from_array(np.asarray(value), name)
            for name, value in zip(names, values, strict=True)
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("case", FOLDABLE.values(), ids=FOLDABLE.keys())
def test_folding_computes_what_onnx_specifies(case):
    model = single_node_model(*case)
    [expected] = ReferenceEvaluator(model).run(None, {})
    fold_constants(model, {})
    assert [node.op_type for node in model.graph.node] == ["Identity"]
    [folded] = [t for t in model.graph.initializer if t.name == "folded"]
    result = numpy_helper.to_array(folded)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize(
    "case",
    [
        ("Add", [np.array([0.1]), np.array([0.2])], {}),
        ("Cast", [np.array([np.nan, 1e30])], {"to": onnx.TensorProto.INT32}),
        ("Div", [np.array([1, 2]), np.array([0, 1])], {}),
        ("Range", [I64(0), I64(10**6), I64(1)], {}),
    ],
    ids=["float_arithmetic", "float_to_int", "by_zero", "too_large"],
)
def test_what_the_runtime_defines_is_not_folded(case):
    model = single_node_model(*case)
    fold_constants(model, {})
    assert case[0] in [node.op_type for node in model.graph.node]


def digits_cnn(images, kernels, dense):
    maps = pt.signal.convolve2d(images[:, None], kernels[None], mode="valid")
    activations = pt.maximum(maps.sum(axis=2), 0)
    b, c, h, w = activations.shape
    pooled = activations.reshape((b, c, h // 2, 2, w // 2, 2)).max(axis=(3, 5))
    return pooled.reshape((b, -1)) @ dense


def test_fixed_dims_fold_the_shape_arithmetic_of_an_export():
    rng = np.random.default_rng(0)
    images = pt.tensor4("images", dtype="float32")
    kernels = rng.normal(size=(4, 1, 3, 3)).astype("float32")
    kernels = pytensor.shared(kernels, name="kernels")
    dense = pytensor.shared(rng.normal(size=(36, 3)).astype("float32"), name="dense")
    f = pytensor.function([images], digits_cnn(images, kernels, dense), mode="ONNX")
    example = rng.uniform(0, 16, (5, 1, 8, 8)).astype("float32")

    free = export_onnx(f, verify=True, example_inputs=[example])
    fixed = export_onnx(
        f,
        dims={"images": ("batch", 1, 8, 8)},
        verify=True,
        example_inputs=[example],
    )

    def shape_reads(model):
        return sum(node.op_type in ("Shape", "Size") for node in model.graph.node)

    # Only the batch size is read at run time; the weights keep their names
    assert shape_reads(fixed) < shape_reads(free)
    assert len(fixed.graph.node) < len(free.graph.node) / 2
    assert {"kernels", "dense"} <= {t.name for t in fixed.graph.initializer}
