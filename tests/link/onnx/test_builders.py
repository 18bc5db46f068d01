import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.sharedvalue import shared
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

import pytensor
from tests.link.onnx.utils import compare_onnx_and_py, no_rewrites, onnx_mode


MODES = [
    pytest.param(onnx_mode, id="default_rewrites"),
    pytest.param(no_rewrites, id="no_rewrites"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("inline", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint8"])
def test_several_outputs(dtype, inline, mode):
    a = pt.vector("a", dtype=dtype)
    b = pt.vector("b", dtype=dtype)
    op = OpFromGraph([a, b], [a * b + a, pt.maximum(a, b), a], inline=inline)
    x = pt.vector("x", dtype=dtype)
    y = pt.vector("y", dtype=dtype)
    compare_onnx_and_py(
        [x, y],
        op(x, y),
        [np.array([1, 2, 3], dtype=dtype), np.array([3, 0, 2], dtype=dtype)],
        onnx_mode=mode,
    )


@pytest.mark.parametrize("mode", MODES)
def test_nested_and_called_twice(mode):
    a, b = pt.vectors("a", "b")
    inner = OpFromGraph([a, b], [pt.exp(a) - b])
    c = pt.vector("c")
    outer = OpFromGraph([c], [inner(c, c).sum() * inner(c, c[::-1])])
    x = pt.vector("x")
    compare_onnx_and_py(
        [x], [outer(x), inner(x, x * 2)], [np.linspace(-1, 1, 5)], onnx_mode=mode
    )


@pytest.mark.parametrize("mode", MODES)
def test_shared_variable_inside(mode):
    w = shared(np.array([[1.0, 2.0], [3.0, 4.0]]), name="w")
    v = pt.vector("v")
    op = OpFromGraph([v], [pt.dot(w, v) + 1])
    x = pt.vector("x")
    compare_onnx_and_py([x], [op(x)], [np.array([0.5, -1.0])], onnx_mode=mode)


def test_constant_output():
    a = pt.vector("a")
    op = OpFromGraph([a], [a + 1, pt.constant(np.arange(3.0))])
    x = pt.vector("x")
    compare_onnx_and_py([x], op(x), [np.ones(2)], onnx_mode=no_rewrites)


def test_scan_inside():
    s = pt.vector("s")
    totals = pytensor.scan(
        lambda s_t, total: total + s_t**2,
        sequences=[s],
        outputs_info=[pt.constant(0.0, dtype="float64")],
        return_updates=False,
    )
    op = OpFromGraph([s], [totals])
    x = pt.vector("x")
    compare_onnx_and_py([x], [op(x)], [np.arange(4.0)], onnx_mode=no_rewrites)


def test_gradient_of_an_op_from_graph():
    a, b = pt.vectors("a", "b")
    op = OpFromGraph([a, b], [pt.tanh(a) * b])
    x, y = pt.vectors("x", "y")
    cost = op(x, y).sum()
    compare_onnx_and_py(
        [x, y],
        pytensor.grad(cost, [x, y]),
        [np.linspace(-1, 1, 3), np.array([1.0, 2.0, 3.0])],
        onnx_mode=no_rewrites,
    )


def test_inner_op_without_converter_is_named():
    class Mystery(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0]

    a = pt.vector("a")
    op = OpFromGraph([a], [Mystery()(a) * 2])
    x = pt.vector("x")
    with pytest.raises(
        NotImplementedError, match=r"(?s)OpFromGraph.*inner graph.*Mystery"
    ):
        pytensor.function([x], op(x), mode=no_rewrites)
