"""Models built for the shapes of the shared values a function is compiled with
(`pytensor.link.onnx.shared_shapes`), and the model for any shape that runs
when those shapes change."""

import pickle

import numpy as np
import pytensor.tensor as pt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytensor.compile.mode import Mode

import pytensor
from pytensor.link.onnx import ONNXLinker
from tests.link.onnx.utils import PYMC_MISSING, onnx_model_of, py_mode


def input_dims(fn, name):
    [model_input] = [i for i in onnx_model_of(fn).graph.input if i.name == name]
    return [d.dim_value or d.dim_param for d in model_input.type.tensor_type.shape.dim]


def op_types(graph):
    """The operators of the nodes of ``graph`` and of its subgraphs."""
    types = set()
    for node in graph.node:
        types.add(node.op_type)
        for attribute in node.attribute:
            for subgraph in (attribute.g, *attribute.graphs):
                types |= op_types(subgraph)
    return types


def both_modes(inputs, outputs, **kwargs):
    return [
        pytensor.function(inputs, outputs, mode=mode, **kwargs)
        for mode in ("ONNX", py_mode)
    ]


def assert_same_calls(functions, *args):
    onnx_fn, py_fn = functions
    np.testing.assert_allclose(onnx_fn(*args), py_fn(*args), rtol=1e-12)


def factor_and_solve(x, y):
    """The Cholesky factor of ``x @ x.T + I`` solved against ``y``."""
    gram = x @ x.T + pt.eye(x.shape[0])
    return pt.linalg.solve_triangular(pt.linalg.cholesky(gram), y, lower=True)


def test_model_has_the_shapes_of_the_shared_values():
    x = pytensor.shared(np.ones((3, 2)), name="x")
    y = pt.vector("y")
    fn = pytensor.function([y], (x * y).sum(0), mode="ONNX")
    assert input_dims(fn, "x") == [3, 2]
    assert input_dims(fn, "y") == ["y_dim0"]


def test_converters_choose_the_code_of_the_shared_shapes():
    gen = np.random.default_rng(0)
    x = pytensor.shared(gen.normal(size=(40, 3)), name="x")
    y = pytensor.shared(gen.normal(size=40), name="y")
    specialized = pytensor.function([], factor_and_solve(x, y), mode="ONNX")
    general = pytensor.function(
        [],
        factor_and_solve(x, y),
        mode=Mode(ONNXLinker(specialize_shared_shapes=False), "fast_run"),
    )
    assert "Loop" not in op_types(onnx_model_of(specialized).graph)
    assert "Loop" in op_types(onnx_model_of(general).graph)
    assert input_dims(general, "x") == ["x_dim0", "x_dim1"]
    np.testing.assert_allclose(specialized(), general(), rtol=1e-12)


def test_lengths_of_one_stay_symbolic_and_never_broadcast():
    z = pytensor.shared(np.ones((1, 4)), name="z")
    m = pt.matrix("m")
    onnx_fn, py_fn = both_modes([m], z + m)
    assert input_dims(onnx_fn, "z") == ["z_dim0", 4]
    for fn in (onnx_fn, py_fn):
        with pytest.raises(ValueError):
            fn(np.ones((3, 4)))


@pytest.mark.parametrize(
    "new_shape",
    [(5, 3), (70, 3), (1, 3), (0, 3), (40, 1)],
    ids=["fewer rows", "more rows than unrolled", "one row", "no rows", "one column"],
)
def test_other_shapes_run_a_model_for_any_shape(new_shape):
    gen = np.random.default_rng(1)
    x = pytensor.shared(gen.normal(size=(40, 3)), name="x")
    y = pt.vector("y")
    functions = both_modes([y], factor_and_solve(x, y))
    specialized_model = onnx_model_of(functions[0])
    assert_same_calls(functions, gen.normal(size=40))
    x.set_value(gen.normal(size=new_shape))
    assert_same_calls(functions, gen.normal(size=new_shape[0]))
    x.set_value(gen.normal(size=(40, 3)))
    assert_same_calls(functions, gen.normal(size=40))
    assert onnx_model_of(functions[0]) is specialized_model


SHAPE_COMPUTATIONS = {
    "shape": lambda x: x.shape,
    "length times two": lambda x: x.shape[0] * 2,
    "shape and sum": lambda x: [x.shape, x.sum()],
    "zeros of its shape": lambda x: pt.zeros(x.shape).sum(0),
    "range of its length": lambda x: pt.arange(x.shape[0]),
    "reshaped by its shape": lambda x: x.reshape((x.shape[1], -1)),
}


@pytest.mark.parametrize(
    "compute", SHAPE_COMPUTATIONS.values(), ids=SHAPE_COMPUTATIONS.keys()
)
def test_shapes_computed_from_shared_values_follow_their_values(compute):
    x = pytensor.shared(np.arange(6.0).reshape(3, 2), name="x")
    outputs = compute(x)
    functions = both_modes([], outputs if isinstance(outputs, list) else [outputs])
    for shape in [(4, 5), (3, 2), (1, 7)]:
        x.set_value(np.ones(shape))
        onnx_values, py_values = (fn() for fn in functions)
        for onnx_value, py_value in zip(onnx_values, py_values, strict=True):
            np.testing.assert_array_equal(onnx_value, py_value)
            assert onnx_value.dtype == py_value.dtype


def test_errors_for_other_shapes_are_pytensors():
    x = pytensor.shared(np.ones((3, 2)), name="x")
    y = pt.vector("y")
    onnx_fn, py_fn = both_modes([y], (x * y).sum(0))
    x.set_value(np.ones((3, 4)))
    for fn in (onnx_fn, py_fn):
        with pytest.raises(ValueError):
            fn(np.ones(2))
    np.testing.assert_array_equal(onnx_fn(np.ones(4)), py_fn(np.ones(4)))


def test_shared_shapes_that_cannot_broadcast_fail_when_called_like_pytensor():
    a = pytensor.shared(np.ones(3), name="a")
    b = pytensor.shared(np.ones(4), name="b")
    onnx_fn, py_fn = both_modes([], a + b)
    assert input_dims(onnx_fn, "a") == ["a_dim0"]
    for fn in (onnx_fn, py_fn):
        with pytest.raises(ValueError):
            fn()


def test_updates_that_change_a_shape():
    sums, values = [], []
    for mode in ("ONNX", py_mode):
        w = pytensor.shared(np.ones(2), name="w")
        grow = pytensor.function(
            [], w.sum(), updates={w: pt.concatenate([w, [2.0]])}, mode=mode
        )
        sums.append([float(grow()) for _ in range(4)])
        values.append(w.get_value())
    assert sums[0] == sums[1] == [2.0, 4.0, 6.0, 8.0]
    np.testing.assert_array_equal(values[0], values[1])


def test_a_pickled_function_keeps_its_model_and_its_guard():
    x = pytensor.shared(np.arange(6.0).reshape(3, 2), name="x")
    y = pt.vector("y")
    fn = pytensor.function([y], (x * y).sum(0), mode="ONNX")
    copy = pickle.loads(pickle.dumps(fn))
    assert onnx_model_of(copy) == onnx_model_of(fn)
    [copied_x] = copy.input_storage[1:]
    copied_x.storage[0] = np.ones((4, 3))
    np.testing.assert_array_equal(copy(np.ones(3)), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(fn(np.ones(2)), [6.0, 9.0])


# rtol, and atol for the sums of at most 4 terms exp(x) * y that cancel
TOLERANCES = {"float64": (1e-12, 1e-12), "float32": (1e-5, 1e-4)}


@pytest.mark.parametrize("dtype", TOLERANCES)
@settings(max_examples=15, deadline=None)
@given(
    shapes=st.lists(
        st.tuples(st.integers(0, 6), st.integers(1, 4)), min_size=1, max_size=4
    )
)
def test_any_sequence_of_shared_shapes(dtype, shapes):
    gen = np.random.default_rng(2)
    x = pytensor.shared(gen.normal(size=(4, 3)).astype(dtype), name="x")
    y = pt.vector("y", dtype=dtype)
    functions = both_modes([y], [pt.exp(x) @ y, (x**2).sum(0)])
    for rows, columns in shapes:
        x.set_value(gen.normal(size=(rows, columns)).astype(dtype))
        y_value = gen.normal(size=columns).astype(dtype)
        for onnx_value, py_value in zip(
            functions[0](y_value), functions[1](y_value), strict=True
        ):
            assert onnx_value.dtype == py_value.dtype == dtype
            rtol, atol = TOLERANCES[dtype]
            np.testing.assert_allclose(onnx_value, py_value, rtol=rtol, atol=atol)


def test_pymc_data_replaced_by_data_of_another_shape():
    pm = pytest.importorskip("pymc", reason=PYMC_MISSING)
    gen = np.random.default_rng(3)

    def points(n):
        x = np.sort(gen.uniform(0, 10, n))[:, None]
        return x, np.sin(x[:, 0]) + gen.normal(0, 0.3, n)

    x, y = points(30)
    with pm.Model() as model:
        X = pm.Data("X", x)
        Y = pm.Data("Y", y)
        ls = pm.Gamma("ls", 2, 1)
        noise = pm.HalfNormal("noise", 1)
        gp = pm.gp.Marginal(cov_func=pm.gp.cov.ExpQuad(1, ls=ls))
        gp.marginal_likelihood("y", X=X, y=Y, sigma=noise)
    point = model.initial_point()
    functions = [
        model.compile_logp(mode=mode) for mode in ("ONNX", Mode("py", "fast_run"))
    ]
    assert_same_calls(functions, point)
    with model:
        pm.set_data(dict(zip(("X", "Y"), points(70), strict=True)))
    assert_same_calls(functions, point)
