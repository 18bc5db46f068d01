import numpy as np
import pytensor.tensor as pt
import pytest
from hypothesis import given, settings
from hypothesis.extra import numpy as hnp
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.graph.replace import vectorize_graph
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.extra_ops import CumOp
from pytensor.tensor.math import Dot, Max

import pytensor
from pytensor.link.onnx.dispatch import onnx_funcify
from tests.link.onnx.utils import compare_onnx_and_py, n_runtime_checks, no_rewrites


rng = np.random.default_rng(7)


def random(shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-3 if np.dtype(dtype).kind == "i" else 0, 4, shape).astype(
            dtype
        )
    return rng.normal(size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int8"])
@pytest.mark.parametrize(
    "x_shape, y_shape, x_value, y_value",
    [
        ((None, None, None), (None, None, None), (3, 2, 4), (3, 4, 5)),
        ((3, 2, 4), (1, 4, 5), (3, 2, 4), (1, 4, 5)),
        ((None, 1, None, None), (3, None, None), (2, 1, 2, 4), (3, 4, 2)),
        ((1, None, None), (None, None, None), (1, 0, 4), (2, 4, 3)),
    ],
    ids=["symbolic", "static_broadcast", "broadcast_both", "empty_rows"],
)
def test_batched_matmul(dtype, x_shape, y_shape, x_value, y_value):
    x = pt.tensor("x", dtype=dtype, shape=x_shape)
    y = pt.tensor("y", dtype=dtype, shape=y_shape)
    out = pt.matmul(x, y)
    assert isinstance(out.owner.op, Blockwise)
    compare_onnx_and_py(
        [x, y],
        out,
        [random(x_value, dtype), random(y_value, dtype)],
        onnx_mode=no_rewrites,
    )


def test_batched_matmul_int8_wraps():
    x = pt.tensor3("x", dtype="int8")
    y = pt.tensor3("y", dtype="int8")
    values = np.full((2, 3, 3), 100, dtype="int8")
    compare_onnx_and_py(
        [x, y], pt.matmul(x, y), [values, values], onnx_mode=no_rewrites
    )


def test_batched_matmul_with_default_rewrites():
    x = pt.tensor4("x")
    y = pt.tensor("y", shape=(1, None, None, None))
    compare_onnx_and_py(
        [x, y],
        pt.matmul(x, y).sum(axis=1),
        [random((2, 3, 4, 5), "float64"), random((1, 3, 5, 2), "float64")],
    )


@settings(max_examples=15, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(
        signature="(m,n),(n,p)->(m,p)", max_dims=2, max_side=3
    )
)
def test_batched_matmul_broadcasts_like_numpy(shapes):
    (x_shape, y_shape), _ = shapes

    def tensor(name, shape):
        batch = tuple(1 if dim == 1 else None for dim in shape[:-2])
        return pt.tensor(name, shape=(*batch, None, None))

    x, y = tensor("x", x_shape), tensor("y", y_shape)
    compare_onnx_and_py(
        [x, y],
        pt.matmul(x, y),
        [random(x_shape, "float64"), random(y_shape, "float64")],
        onnx_mode=no_rewrites,
    )


# Core Ops without a batched converter run once per batch element in a Loop


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize(
    "shape, value",
    [
        ((None, None, None), (3, 2, 4)),
        ((2, 1, 3, 2), (2, 1, 3, 2)),
        ((None, 1, None, None), (2, 1, 0, 3)),
    ],
    ids=["symbolic", "static", "empty_core"],
)
def test_loop_over_batch(dtype, shape, value):
    cumsum = Blockwise(CumOp(axis=0, mode="add"), signature="(m,n)->(m,n)")
    x = pt.tensor("x", dtype=dtype, shape=shape)
    compare_onnx_and_py([x], cumsum(x), [random(value, dtype)], onnx_mode=no_rewrites)


def test_loop_reads_constant_core_inputs():
    # vectorizing sort gives a Blockwise whose sort axis is a constant input
    m = pt.matrix("m")
    batched = pt.tensor3("batched")
    out = vectorize_graph(pt.sort(m, axis=0), {m: batched})
    assert isinstance(out.owner.op, Blockwise)
    compare_onnx_and_py(
        [batched], out, [random((3, 4, 2), "float64")], onnx_mode=no_rewrites
    )


def test_loop_with_unbatched_and_broadcast_inputs():
    sorted_rows = pt.tensor("sorted_rows", shape=(None, 1, None))
    values = pt.tensor("values", shape=(1, None, None))
    batched = Blockwise(
        pt.extra_ops.SearchsortedOp(side="right"), signature="(n),(k)->(k)"
    )
    unbatched_values = pt.vector("unbatched_values")
    compare_onnx_and_py(
        [sorted_rows, values, unbatched_values],
        [
            batched(sorted_rows, values),
            batched(sorted_rows, unbatched_values[None, None]),
        ],
        [
            np.sort(random((2, 1, 5), "float64"), axis=-1),
            random((1, 3, 4), "float64"),
            random((6,), "float64"),
        ],
        onnx_mode=no_rewrites,
    )


class MinAndMax(Op):
    """A test Op with two outputs, converted with a handler of this module."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor(x)
        return Apply(self, [x], [x.type.clone(shape=())(), x.type.clone(shape=())()])

    def perform(self, node, inputs, outputs):
        [x] = inputs
        outputs[0][0] = np.asarray(x.min(), dtype=x.dtype)
        outputs[1][0] = np.asarray(x.max(), dtype=x.dtype)


@onnx_funcify.register(MinAndMax)
def onnx_funcify_MinAndMax(op, node, builder, inputs, **kwargs):
    [x] = inputs
    return [
        builder.add("ReduceMin", [x], keepdims=0),
        builder.add("ReduceMax", [x], keepdims=0),
    ]


def test_loop_with_several_core_outputs():
    x = pt.tensor3("x")
    low, high = Blockwise(MinAndMax(), signature="(n)->(),()")(x)
    compare_onnx_and_py(
        [x], [low, high], [random((2, 3, 4), "float64")], onnx_mode=no_rewrites
    )


def test_runtime_checks_of_the_core_op_are_kept():
    batched_max = Blockwise(Max(axis=(0,)), signature="(n)->()")
    x = pt.matrix("x")
    fn = pytensor.function([x], batched_max(x), mode=no_rewrites)
    np.testing.assert_array_equal(fn(np.array([[1.0, 3.0], [4.0, 2.0]])), [3.0, 4.0])
    with pytest.raises(ValueError, match="zero-size array"):
        fn(np.zeros((2, 0)))


class CoreOpWithoutConverter(Op):
    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]


def test_unsupported_core_op_is_named():
    x = pt.matrix("x")
    out = Blockwise(CoreOpWithoutConverter(), signature="(n)->(n)")(x)
    with pytest.raises(NotImplementedError, match="core Op CoreOpWithoutConverter"):
        pytensor.function([x], out, mode=no_rewrites)


def test_blockwise_runtime_broadcasting():
    batched_dot = Blockwise(Dot(), signature="(m,k),(k,n)->(m,n)")
    a, b = pt.tensor3("a"), pt.tensor3("b")
    fn = pytensor.function([a, b], batched_dot(a, b), mode="ONNX")
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        fn(np.ones((1, 2, 2)), np.ones((3, 2, 2)))
    with pytest.raises(ValueError):
        fn(np.ones((3, 2, 2)), np.ones((4, 2, 2)))
    rng = np.random.default_rng(3)
    compare_onnx_and_py(
        [a, b],
        batched_dot(a, b),
        [rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 4, 2))],
    )
    assert n_runtime_checks(fn) == 1
    static = pt.tensor("static", shape=(3, None, None))
    fn = pytensor.function([static, b], batched_dot(static, b), mode="ONNX")
    assert n_runtime_checks(fn) == 1
    fn = pytensor.function([static], batched_dot(static, static), mode="ONNX")
    assert n_runtime_checks(fn) == 0
