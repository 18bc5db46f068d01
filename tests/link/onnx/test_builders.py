import warnings

import numpy as np
import onnxruntime as ort
import pytensor.tensor as pt
import pytest
import scipy.stats as stats
from pytensor.compile.builders import OpFromGraph
from pytensor.compile.sharedvalue import shared
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.scan.op import Scan
from pytensor.tensor.random.type import random_generator_type

import pytensor
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.numerics.random import draw_key
from tests.link.onnx.utils import (
    COMPLEX_DTYPES,
    MIN_P_VALUE,
    close,
    compare_onnx_and_py,
    complex_values,
    no_rewrites,
    onnx_mode,
    random_variable,
)


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


def sampling_function(op, *params, seed):
    """A function drawing from ``op``, which takes and returns a generator like
    PyMC's ``SymbolicRandomVariable``, with a shared generator that it updates."""
    rng = shared(np.random.default_rng(seed), name="rng")
    next_rng, draws = op(rng, *params)
    return pytensor.function([], draws, updates={rng: next_rng}, mode=onnx_mode), rng


@pytest.mark.parametrize("inline", [False, True])
def test_random_variable_inside(inline):
    rng = random_generator_type("rng")
    mu = pt.scalar("mu", dtype="float64")
    next_rng, draws = random_variable(pt.random.normal, mu, 2.0, rng=rng, size=(10**4,))
    op = OpFromGraph([rng, mu], [next_rng, draws], inline=inline)
    fn, shared_rng = sampling_function(op, pt.constant(np.float64(3.0)), seed=0)
    first, second = fn(), fn()
    assert stats.kstest(first, stats.norm(3.0, 2.0).cdf).pvalue > MIN_P_VALUE
    assert not np.isin(second, first).any()
    shared_rng.set_value(np.random.default_rng(0))
    np.testing.assert_array_equal(fn(), first)
    np.testing.assert_array_equal(fn(), second)


def test_random_walk_scan_inside():
    # like a PyMC CustomDist whose dist function draws in a Scan
    rng = random_generator_type("rng")

    def step(position, rng):
        next_rng, increment = random_variable(
            pt.random.normal, 0.0, 1.0, rng=rng, size=(10,)
        )
        return (position + increment, next_rng)

    walks, next_rng = pytensor.scan(
        step, outputs_info=[pt.zeros((10,)), rng], n_steps=500, return_updates=False
    )
    op = OpFromGraph([rng], [next_rng, walks])
    fn, _ = sampling_function(op, seed=1)
    first = fn()
    increments = np.diff(first, axis=0, prepend=0.0)
    assert stats.kstest(increments.ravel(), "norm").pvalue > MIN_P_VALUE
    lagged = np.corrcoef(increments[:-1].ravel(), increments[1:].ravel())[0, 1]
    assert abs(lagged) < 5 / np.sqrt(increments.size)
    assert not np.isin(fn(), first).any()


def test_numba_core_shape_wrapper_in_a_scan_draws_like_the_onnx_mode():
    # Numba's rewrites wrap each RandomVariable in a RandomVariableWithCoreShape,
    # an OpFromGraph taking the generator: a graph compiled for Numba (as
    # export_onnx meets it) draws what mode="ONNX" draws from the same key
    rng = shared(np.random.default_rng(0), name="rng")

    def step(position, rng):
        next_rng, increment = random_variable(
            pt.random.normal, 0.0, 1.0, rng=rng, size=(3,)
        )
        return position + increment, {rng: next_rng}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        walk, updates = pytensor.scan(
            step, outputs_info=[pt.zeros((3,))], non_sequences=[rng], n_steps=5
        )
    numba_graph = pytensor.function([], walk, updates=updates, mode="NUMBA")
    inner_ops = [
        type(inner.op).__name__
        for node in numba_graph.maker.fgraph.toposort()
        if isinstance(node.op, Scan)
        for inner in node.op.fgraph.toposort()
    ]
    assert "RandomVariableWithCoreShape" in inner_ops
    converted = onnx_funcify(numba_graph.maker.fgraph, random_generators=True)
    session = ort.InferenceSession(converted.model.SerializeToString())
    key = draw_key(np.random.default_rng(0))
    draws = session.run(None, {"rng": np.asarray(key)})[0]
    onnx_walk = pytensor.function([], walk, updates=updates, mode="ONNX")
    np.testing.assert_array_equal(draws, onnx_walk())


def test_inner_op_taking_a_generator_without_converter_is_named():
    class RandomMystery(Op):
        def make_node(self, rng, x):
            return Apply(self, [rng, x], [x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[1]

    rng = random_generator_type("rng")
    a = pt.vector("a")
    op = OpFromGraph([rng, a], [RandomMystery()(rng, a)])
    x = pt.vector("x")
    with pytest.raises(
        NotImplementedError, match=r"(?s)inner graph.*RandomMystery.*random generator"
    ):
        pytensor.function(
            [x], op(shared(np.random.default_rng(0)), x), mode=no_rewrites
        )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
def test_complex_values_inside(dtype, mode):
    # kron is an OpFromGraph; complex values cross the inner graph's boundary
    a, b = pt.vector("a", dtype=dtype), pt.vector("b", dtype=dtype)
    op = OpFromGraph([a, b], [a * b + 1j, pt.abs(a), pt.real(b) * 2])
    z, w = pt.matrix("z", dtype=dtype), pt.matrix("w", dtype=dtype)
    rng = np.random.default_rng(0)
    values = [complex_values(rng, (2, 3), dtype) for _ in range(2)]
    outputs = [*op(z[0], w[1]), pt.linalg.kron(z, w)]
    compare_onnx_and_py([z, w], outputs, values, assert_fn=close(dtype), onnx_mode=mode)


def test_an_inner_graph_may_index_with_a_slice_it_builds():
    # PyTensor 2 indexes with slice variables (the gradient of AllocDiag)
    from pytensor.tensor.type_other import make_slice

    x, n = pt.vector("x"), pt.lscalar("n")
    try:
        sliced = x[make_slice(1, n, None)]
    except TypeError:
        pytest.skip("PyTensor 3 indexes with slices of scalars, not slice variables")
    doubled = OpFromGraph([x, n], [sliced * 2])
    compare_onnx_and_py([x, n], [doubled(x, n)], [np.arange(5.0), np.int64(3)])
