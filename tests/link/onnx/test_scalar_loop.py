from functools import cache, partial

import numpy as np
import onnxruntime
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pytensor.compile.mode import Mode
from pytensor.graph.traversal import applys_between
from pytensor.scalar.loop import ScalarLoop
from pytensor.tensor.elemwise import Elemwise

import pytensor
from pytensor.link.onnx import export_onnx
from tests.link.onnx.utils import (
    assert_same_values,
    compare_onnx_and_py,
    no_rewrites,
    onnx_mode,
    py_mode,
)


def scalar_loop(init_dtypes, constant_dtypes, step):
    """A ``ScalarLoop`` over carries and constants of the given dtypes.

    ``step(*carries, *constants)`` returns the updates and the until
    condition (``None`` for a for loop).
    """
    init = [ps.get_scalar_type(dtype)() for dtype in init_dtypes]
    constant = [ps.get_scalar_type(dtype)() for dtype in constant_dtypes]
    update, until = step(*init, *constant)
    return ScalarLoop(init=init, update=update, constant=constant, until=until)


def affine_step(x, c):
    return [x * c + ps.constant(np.asarray(1, x.type.dtype))], None


def count_up_step(x, limit):
    return [x + ps.constant(np.asarray(1, x.type.dtype))], x >= limit


N_STEPS = {
    "scalar": (pt.scalar("n", dtype="int64"), np.asarray(4, dtype="int64")),
    "per_element": (pt.vector("n", dtype="int64"), np.array([0, 3, 1, 5, 2, -2])),
}


@pytest.mark.parametrize("steps", N_STEPS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int8"])
def test_for_loop(dtype, steps):
    n, n_value = N_STEPS[steps]
    if steps == "per_element":
        # a for loop raises for negative steps
        n_value = np.abs(n_value)
    x, c = pt.vector("x", dtype=dtype), pt.vector("c", dtype=dtype)
    out = Elemwise(scalar_loop([dtype], [dtype], affine_step))(n, x, c)
    x_value = np.array([1, -2, 3, 0, 2, 1], dtype=dtype)
    c_value = np.array([2, 3, -1, 2, 1, 5], dtype=dtype)
    compare_onnx_and_py([n, x, c], out, [n_value, x_value, c_value])


@pytest.mark.parametrize("steps", N_STEPS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int16"])
def test_while_loop(dtype, steps):
    n, n_value = N_STEPS[steps]
    x, limit = pt.vector("x", dtype=dtype), pt.vector("limit", dtype=dtype)
    outs = Elemwise(scalar_loop([dtype], [dtype], count_up_step))(n, x, limit)
    x_value = np.array([0, 1, 2, -3, 9, 4], dtype=dtype)
    limit_value = np.array([3, 2, 2, 0, 12, 30], dtype=dtype)
    compare_onnx_and_py([n, x, limit], outs, [n_value, x_value, limit_value])


def test_while_loop_keeps_the_last_update_and_reports_done_like_perform():
    """``perform`` keeps the update of the step whose condition is true, and
    reports ``done=False`` when it takes no step (``n_steps <= 0``), where
    the C implementation of PyTensor 2.x reports ``True``."""
    n = pt.vector("n", dtype="int32")
    x = pt.vector("x", dtype="int64")
    limit = pt.constant(np.int64(3))
    x_out, done = Elemwise(scalar_loop(["int64"], ["int64"], count_up_step))(
        n, x, limit
    )
    _, (x_value, done_value) = compare_onnx_and_py(
        [n, x],
        [x_out, done],
        [np.array([10, 2, 0, -1, 10], "int32"), np.array([0, 0, 0, 0, 7])],
    )
    np.testing.assert_array_equal(x_value, [4, 2, 0, 0, 8])
    np.testing.assert_array_equal(done_value, [True, False, False, False, True])


@pytest.mark.parametrize("steps", N_STEPS)
@pytest.mark.parametrize("float_dtype", ["float64", "float32"])
def test_carries_of_mixed_dtypes(float_dtype, steps):
    def step(total, count, sign, flag, scale, limit):
        term = scale * ps.cast(count, float_dtype) * ps.cast(sign, float_dtype)
        next_count = count + ps.constant(np.int32(1))
        flip = ps.constant(np.bool_(True))
        return [total + term, next_count, -sign, flag ^ flip], total > limit

    op = scalar_loop(
        [float_dtype, "int32", "int8", "bool"], [float_dtype, float_dtype], step
    )
    n, n_value = N_STEPS[steps]
    total, count = (
        pt.vector("total", dtype=float_dtype),
        pt.vector("count", dtype="int32"),
    )
    sign, flag = pt.vector("sign", dtype="int8"), pt.vector("flag", dtype="bool")
    scale, limit = (
        pt.vector("scale", dtype=float_dtype),
        pt.scalar("limit", dtype=float_dtype),
    )
    outs = Elemwise(op)(n, total, count, sign, flag, scale, limit)
    compare_onnx_and_py(
        [n, total, count, sign, flag, scale, limit],
        outs,
        [
            n_value,
            np.array([0.0, 1.5, -2.0, 0.25, 3.0, 0.5], float_dtype),
            np.array([0, 1, 2, 3, -4, 5], "int32"),
            np.array([1, -1, 1, 1, -1, 1], "int8"),
            np.array([True, False, True, False, False, True]),
            np.array([0.5, 2.0, 1.25, -1.0, 3.0, 0.75], float_dtype),
            np.asarray(2.0, float_dtype),
        ],
    )


@pytest.mark.parametrize("is_while", [False, True])
def test_broadcasting_between_inputs(is_while):
    step = count_up_step if is_while else affine_step
    op = scalar_loop(["float64"], ["float64"], step)
    n = pt.tensor("n", shape=(None, 1, 1), dtype="int64")
    x = pt.tensor("x", shape=(1, None, 1))
    c = pt.tensor("c", shape=(1, 1, None))
    rng = np.random.default_rng(0)
    compare_onnx_and_py(
        [n, x, c],
        Elemwise(op)(n, x, c),
        [
            np.array([0, 2, 5]).reshape(3, 1, 1),
            rng.normal(size=(1, 4, 1)),
            np.array([0.5, 1.5]).reshape(1, 1, 2),
        ],
    )


def test_updates_that_ignore_the_carries():
    """The carries keep their broadcast shape when an update depends only on
    the constants, and swapped carries go through identities."""

    def step(a, b, fill, c):
        return [ps.identity(b), ps.identity(a), c * ps.constant(2.0)], None

    op = scalar_loop(["float64"] * 3, ["float64"], step)
    n = pt.scalar("n", dtype="int32")
    a, b, fill = pt.matrix("a"), pt.matrix("b"), pt.matrix("fill")
    c = pt.matrix("c", shape=(1, 1))
    compare_onnx_and_py(
        [n, a, b, fill, c],
        Elemwise(op)(n, a, b, fill, c),
        [
            np.int32(3),
            np.arange(6.0).reshape(2, 3),
            -np.arange(6.0).reshape(2, 3),
            np.zeros((2, 3)),
            np.array([[1.5]]),
        ],
    )


@pytest.mark.parametrize("n_steps_dtype", ["int8", "int16", "int32", "int64"])
def test_n_steps_dtypes(n_steps_dtype):
    n = pt.vector("n", dtype=n_steps_dtype)
    x, limit = pt.vector("x"), pt.vector("limit")
    outs = Elemwise(scalar_loop(["float64"], ["float64"], count_up_step))(n, x, limit)
    compare_onnx_and_py(
        [n, x, limit],
        outs,
        [np.array([0, 127, 3], n_steps_dtype), np.zeros(3), np.array([1.0, 50, 99])],
    )


@pytest.mark.parametrize(
    "loop_dtype, data_dtype, c_value",
    [("float64", "float32", [0.3, 0.7, 2.1, 1.3]), ("int32", "int8", [1, 1, 1, 0])],
)
def test_loop_runs_in_its_own_dtypes(loop_dtype, data_dtype, c_value):
    """An Elemwise of a loop built for other dtypes runs the loop in its own
    dtypes and casts the results, like ``perform`` (float32 rounds only once)."""

    def step(x, c):
        return [x * c + x], x > ps.constant(np.asarray(20, loop_dtype))

    n = pt.scalar("n", dtype="int64")
    x, c = pt.vector("x", dtype=data_dtype), pt.vector("c", dtype=data_dtype)
    outs = Elemwise(scalar_loop([loop_dtype], [loop_dtype], step))(n, x, c)
    compare_onnx_and_py(
        [n, x, c],
        outs,
        [
            np.int64(5),
            np.array([1, 3, -2, 2], data_dtype),
            np.array(c_value, data_dtype),
        ],
        assert_fn=partial(assert_same_values, rtol=0),
    )


@pytest.mark.parametrize("is_while", [False, True])
def test_empty_inputs(is_while):
    step = count_up_step if is_while else affine_step
    n = pt.vector("n", dtype="int64")
    x, c = pt.matrix("x"), pt.matrix("c")
    compare_onnx_and_py(
        [n, x, c],
        Elemwise(scalar_loop(["float64"], ["float64"], step))(n, x, c),
        [np.array([2, 3]), np.zeros((0, 2)), np.zeros((0, 2))],
    )


@pytest.mark.parametrize("n_value", [np.int64(-1), np.array([2, -3])])
def test_negative_steps_of_a_for_loop_raise_like_perform(n_value):
    n = pt.tensor("n", dtype="int64", shape=(None,) * n_value.ndim)
    x = pt.vector("x")
    out = Elemwise(scalar_loop(["float64"], ["float64"], affine_step))(n, x, x)
    for mode in (onnx_mode, py_mode):
        fn = pytensor.function([n, x], out, mode=mode)
        with pytest.raises(ValueError, match="does not have a termination condition"):
            fn(n_value, np.ones(2))


def test_negative_steps_are_no_steps_in_exported_models():
    n, x = pt.vector("n", dtype="int64"), pt.vector("x")
    out = Elemwise(scalar_loop(["float64"], ["float64"], affine_step))(n, x, x)
    model = export_onnx(([n, x], out))
    session = onnxruntime.InferenceSession(model.SerializeToString())
    [result] = session.run(None, {"n": np.array([-2, 1]), "x": np.array([3.0, 3.0])})
    np.testing.assert_array_equal(result, [3.0, 10.0])


def test_graph_around_the_loop_with_default_rewrites():
    x0, c0 = ps.float64("x0"), ps.float64("c0")
    op = ScalarLoop(init=[x0], update=[x0 * c0 + 1], constant=[c0], until=x0 > 10)
    n, x, c = pt.vector("n", dtype="int64"), pt.vector("x"), pt.vector("c")
    value, done = Elemwise(op)(n, pt.exp(x) * 2, c + 1)
    out = pt.log(value) * done + pt.switch(done, 0, n)
    compare_onnx_and_py(
        [n, x, c],
        out,
        [np.array([0, 1, 4, 50, -1]), np.linspace(-1, 1, 5), np.linspace(0, 3, 5)],
    )


@cache
def collatz_functions():
    """``ScalarLoop`` of the Collatz steps on int64, compiled for ONNX and Python."""

    def step(x, steps_taken):
        one, two, three = (ps.constant(np.int64(v)) for v in (1, 2, 3))
        next_x = ps.switch(ps.eq(x % two, 0), x // two, three * x + one)
        return [next_x, steps_taken + one], ps.le(next_x, one)

    n = pt.vector("n", dtype="int64")
    x = pt.matrix("x", dtype="int64")
    outs = Elemwise(scalar_loop(["int64", "int64"], [], step))(n, x, pt.zeros_like(x))
    return tuple(
        pytensor.function([n, x], outs, mode=mode) for mode in (onnx_mode, py_mode)
    )


@given(
    st.integers(1, 4).flatmap(
        lambda columns: st.tuples(
            hnp.arrays("int64", columns, elements=st.integers(-3, 40)),
            hnp.arrays(
                "int64",
                hnp.array_shapes(min_dims=2, max_dims=2, max_side=4).map(
                    lambda shape: (shape[0], columns)
                ),
                elements=st.integers(-5, 10**6),
            ),
        )
    )
)
def test_per_element_steps_and_conditions_match_perform(values):
    n_value, x_value = values
    onnx_fn, py_fn = collatz_functions()
    for onnx_value, py_value in zip(
        onnx_fn(n_value, x_value), py_fn(n_value, x_value), strict=True
    ):
        assert_same_values(onnx_value, py_value)


def gradient_loops(inputs, cost, wrt):
    """The outputs of the ``ScalarLoop``s in the gradient of ``cost``."""
    grads = pytensor.grad(cost, wrt)
    nodes = [
        node
        for node in applys_between(
            inputs, grads if isinstance(grads, list) else [grads]
        )
        if isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, ScalarLoop)
    ]
    assert nodes
    return [out for node in nodes for out in node.outputs]


REWRITES = {"default_rewrites": onnx_mode, "no_rewrites": no_rewrites}
# Thousands of steps through exp, log1p and digamma, each within a few ulp
RTOL = {"float64": 1e-10, "float32": 1e-5}


@pytest.mark.parametrize("rewrites", REWRITES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("function", ["gammainc", "gammaincc"])
def test_incomplete_gamma_gradient_loops(function, dtype, rewrites):
    """The loops of the gradients wrt ``k``, whose forward Ops are left out.

    The values take the series, the asymptotic expansion and the
    continued-fraction branches, and skip the loops (0 steps) elsewhere.
    """
    k, x = pt.vector("k", dtype=dtype), pt.vector("x", dtype=dtype)
    outs = gradient_loops([k, x], getattr(pt, function)(k, x).sum(), k)
    compare_onnx_and_py(
        [k, x],
        outs,
        [
            np.array([0.5, 1.0, 3.0, 10.0, 20.0, 0.3, 2.0], dtype),
            np.array([0.1, 2.0, 3.0, 12.0, 40.0, 20.0, 0.0], dtype),
        ],
        onnx_mode=REWRITES[rewrites],
        assert_fn=partial(assert_same_values, rtol=RTOL[dtype]),
    )


@pytest.mark.parametrize("rewrites", REWRITES)
def test_betainc_gradient_loops(rewrites):
    p, q, x = pt.vector("p"), pt.vector("q"), pt.vector("x")
    outs = gradient_loops([p, q, x], pt.betainc(p, q, x).sum(), [p, q])
    compare_onnx_and_py(
        [p, q, x],
        outs,
        [
            np.array([0.5, 2.0, 10.0, 30.0]),
            np.array([1.5, 3.0, 0.7, 20.0]),
            np.array([0.2, 0.5, 0.9, 0.6]),
        ],
        onnx_mode=REWRITES[rewrites],
        assert_fn=partial(assert_same_values, rtol=RTOL["float64"]),
    )


@pytest.mark.parametrize("rewrites", REWRITES)
def test_hyp2f1_gradient_loop(rewrites):
    """The reference is the Python linker after ``fast_compile`` rewrites,
    which split the loop: NumPy's ufuncs behind ``Elemwise.perform`` take at
    most 32 operands, and the whole loop has 33."""
    a, b, c, z = pt.vector("a"), pt.vector("b"), pt.vector("c"), pt.vector("z")
    outs = gradient_loops([a, b, c, z], pt.hyp2f1(a, b, c, z).sum(), [a, b, c])
    grads_and_converges = [*outs[:3], outs[-1]]
    compare_onnx_and_py(
        [a, b, c, z],
        grads_and_converges,
        [
            np.array([0.5, 2.0, 1.0]),
            np.array([1.5, 0.3, 2.0]),
            np.array([3.0, 2.5, 4.0]),
            np.array([0.2, -0.5, 0.7]),
        ],
        onnx_mode=REWRITES[rewrites],
        py_mode=Mode(linker="py", optimizer="fast_compile"),
        assert_fn=partial(assert_same_values, rtol=RTOL["float64"]),
    )


@pytest.mark.parametrize("negate", ["invert", "xor"])
def test_bool_carries(negate):
    """A flag negated at each step ends as ``flag ^ (n_steps is odd)``.

    Not compared with the Python linker: ``Elemwise.perform`` hands Python
    bools to the loop, for which ``~True == -2`` is true.
    """

    def step(flag):
        if negate == "invert":
            return [~flag], None
        return [flag ^ ps.constant(np.bool_(True))], None

    n, flag = pt.vector("n", dtype="int64"), pt.vector("flag", dtype="bool")
    fn = pytensor.function(
        [n, flag], Elemwise(scalar_loop(["bool"], [], step))(n, flag), mode=onnx_mode
    )
    n_value = np.array([0, 1, 2, 3, 0, 1, 2, 3])
    flag_value = np.array([True] * 4 + [False] * 4)
    np.testing.assert_array_equal(
        fn(n_value, flag_value), flag_value ^ (n_value % 2 == 1)
    )
