from functools import cache

import numpy as np
import onnx
import pytensor.tensor as pt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytensor.compile.sharedvalue import shared
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.ifelse import ifelse
from pytensor.raise_op import Assert
from pytensor.scan.utils import until

import pytensor
from tests.link.onnx.utils import (
    assert_same_values,
    compare_onnx_and_py,
    no_rewrites,
    onnx_mode,
    py_mode,
)


MODES = [
    pytest.param(onnx_mode, id="default_rewrites"),
    pytest.param(no_rewrites, id="no_rewrites"),
]


def scan(*args, **kwargs):
    return pytensor.scan(*args, return_updates=False, **kwargs)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "dtype, step, initial, sequence",
    [
        ("float64", lambda s, x: 0.5 * x + s, 1.5, [0.1, -2.0, 3.0, 0.25]),
        ("float32", lambda s, x: np.float32(0.5) * x + s, 1.5, [0.1, -2.0, 3.0]),
        ("int64", lambda s, x: 3 * x - s, 2, [1, -4, 7, 2]),
        ("int32", lambda s, x: x * s + 1, -2, [3, 1, -2]),
        ("uint8", lambda s, x: (x * 3 + s).astype("uint8"), 200, [1, 2, 250]),
        ("bool", lambda s, x: pt.xor(x, s), True, [True, False, True]),
    ],
)
def test_sit_sot_over_a_sequence(dtype, step, initial, sequence, mode):
    s = pt.vector("s", dtype=dtype)
    x0 = pt.scalar("x0", dtype=dtype)
    xs = scan(step, sequences=[s], outputs_info=[x0])
    assert xs.dtype == dtype
    compare_onnx_and_py(
        [s, x0],
        [xs, xs[-1]],
        [np.array(sequence, dtype=dtype), np.array(initial, dtype=dtype)],
        onnx_mode=mode,
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n_steps", [0, 1, 4])
def test_symbolic_number_of_steps(n_steps, mode):
    # With no step, Scan returns its initial buffers and empty nit-sot outputs
    n = pt.lscalar("n")
    x0 = pt.vector("x0")
    m0 = pt.matrix("m0")
    seq = pt.vector("seq")
    xs = scan(lambda x: x * 2 + 1, outputs_info=[x0], n_steps=n)
    ms = scan(
        lambda older, old: older - old,
        outputs_info=[dict(initial=m0, taps=[-2, -1])],
        n_steps=n,
    )
    per_step = scan(lambda e: e * 2, sequences=[seq[:n]])
    compare_onnx_and_py(
        [x0, m0, seq, n],
        [xs, ms, per_step],
        [np.arange(3.0), np.arange(6.0).reshape(2, 3), np.arange(5.0), n_steps],
        onnx_mode=mode,
    )


@pytest.mark.parametrize("mode", MODES)
def test_mit_sot_with_several_taps(mode):
    x0 = pt.matrix("x0")
    s = pt.vector("s")
    xs = scan(
        lambda s_t, x_tm4, x_tm2, x_tm1: x_tm4 * s_t + x_tm2 - x_tm1,
        sequences=[s],
        outputs_info=[dict(initial=x0, taps=[-4, -2, -1])],
    )
    compare_onnx_and_py(
        [x0, s],
        [xs],
        [np.arange(8.0).reshape(4, 2), np.linspace(-1, 1, 6)],
        onnx_mode=mode,
    )


@pytest.mark.parametrize(
    "select",
    [
        pytest.param(lambda xs: xs[-1], id="last"),
        pytest.param(lambda xs: xs[-3:], id="last_three"),
        pytest.param(lambda xs: xs[2], id="third"),
        pytest.param(lambda xs: xs[-2] + xs[-1], id="two_last"),
        pytest.param(lambda xs: xs, id="all"),
    ],
)
def test_outputs_of_truncated_buffers(select):
    # scan_save_mem_no_prealloc shortens the outer buffers to what is used:
    # the last value, a window of the last values, or the first steps
    x0 = pt.vector("x0")
    s = pt.vector("s")
    xs, ys, zs = scan(
        lambda s_t, x_tm2, x_tm1, z_tm1: (
            x_tm2 + x_tm1 * s_t,
            (x_tm1 * 2).sum(),
            z_tm1 * s_t + 1,
        ),
        sequences=[s],
        outputs_info=[dict(initial=x0, taps=[-2, -1]), None, x0[0]],
    )
    compare_onnx_and_py(
        [x0, s],
        [select(xs), select(ys), select(zs)],
        [np.array([1.0, 2.0]), np.linspace(0.5, 1.5, 7)],
    )


@pytest.mark.parametrize("mode", MODES)
def test_several_sequences_with_taps_and_nit_sot(mode):
    a = pt.vector("a")
    b = pt.matrix("b")

    def step(a_tm2, a_t, a_tp1, b_t, total):
        return total + a_tm2 * a_t - a_tp1 + b_t.sum(), b_t * a_t

    total, products = scan(
        step,
        sequences=[dict(input=a, taps=[-2, 0, 1]), b],
        outputs_info=[pt.constant(0.0, dtype="float64"), None],
    )
    compare_onnx_and_py(
        [a, b],
        [total, products, products[-2:]],
        [np.arange(10.0), np.arange(21.0).reshape(7, 3)],
        onnx_mode=mode,
    )


@pytest.mark.parametrize("mode", MODES)
def test_non_sequences_and_several_states(mode):
    w = pt.matrix("w")
    h0 = pt.vector("h0")
    c0 = pt.scalar("c0", dtype="int64")
    xs = pt.matrix("xs")

    def step(x_t, h, c, w):
        return pt.tanh(pt.dot(w, h) + x_t), c + 1

    hs, cs = scan(step, sequences=[xs], outputs_info=[h0, c0], non_sequences=[w])
    rng = np.random.default_rng(1)
    compare_onnx_and_py(
        [w, h0, c0, xs],
        [hs, cs, hs[-1]],
        [
            rng.normal(size=(3, 3)),
            rng.normal(size=3),
            np.int64(5),
            rng.normal(size=(4, 3)),
        ],
        onnx_mode=mode,
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("n_steps", [1, 4, 20])
def test_while_loop(n_steps, mode):
    # The condition stops the loop after 6 steps unless n_steps stops it first
    x = pt.scalar("x")
    n = pt.lscalar("n")
    xs, ys = scan(
        lambda x_tm1: ((x_tm1 * 2, x_tm1 + 1), until(x_tm1 * 2 > 50)),
        outputs_info=[x, None],
        n_steps=n,
    )
    compare_onnx_and_py(
        [x, n],
        [xs, ys, xs[-1], xs[-2:]],
        [np.float64(1.0), np.int64(n_steps)],
        onnx_mode=mode,
    )


def test_while_loop_over_a_sequence():
    s = pt.vector("s", dtype="int32")

    def step(s_t, total):
        new_total = total + s_t
        return new_total, until(pt.eq(new_total % 5, 0))

    totals = scan(step, sequences=[s], outputs_info=[pt.constant(0, dtype="int32")])
    compare_onnx_and_py([s], [totals], [np.array([1, 2, 3, 4, 5, 6], dtype="int32")])


def run_with_updates(mode, values):
    total = shared(np.float64(1.0), name="total")
    count = shared(np.int64(0), name="count")
    x = pt.vector("x")

    def step(x_t):
        return x_t * total, {total: total + x_t, count: count + 1}

    with pytest.warns(DeprecationWarning, match="return signature"):
        out, updates = pytensor.scan(step, sequences=[x], return_updates=True)
    fn = pytensor.function([x], out, updates=updates, mode=mode)
    results = [fn(values), fn(values[::-1])]
    return [*results, total.get_value(), count.get_value()]


@pytest.mark.parametrize("mode", MODES)
def test_shared_variables_updated_in_scan(mode):
    values = np.array([1.0, -2.0, 0.5])
    for onnx_value, py_value in zip(
        run_with_updates(mode, values),
        run_with_updates(py_mode, values),
        strict=True,
    ):
        assert_same_values(onnx_value, py_value)


@pytest.mark.parametrize("mode", MODES)
def test_gradient_through_scan(mode):
    # The gradient is a second Scan, running backwards with a mit-mot output
    x0 = pt.scalar("x0")
    w = pt.scalar("w")
    s = pt.vector("s")
    xs = scan(
        lambda s_t, x, w: pt.tanh(x * w + s_t),
        sequences=[s],
        outputs_info=[x0],
        non_sequences=[w],
    )
    cost = (xs**2).sum() + xs[-1]
    compare_onnx_and_py(
        [x0, w, s],
        pytensor.grad(cost, [x0, w, s]),
        [np.float64(0.3), np.float64(0.9), np.linspace(-1, 1, 6)],
        onnx_mode=mode,
    )


def test_gradient_through_mit_sot_and_vector_states():
    # PyTensor's own Scan fails on this gradient ("expected an ndarray"), so
    # the reference is the gradient of the same recurrence unrolled.
    x0 = pt.matrix("x0")
    w = pt.matrix("w")
    s = pt.vector("s")

    def step(s_t, x_tm3, x_tm1, w):
        return pt.dot(w, x_tm1) * s_t + pt.sin(x_tm3)

    xs = scan(
        step,
        sequences=[s],
        outputs_info=[dict(initial=x0, taps=[-3, -1])],
        non_sequences=[w],
    )
    unrolled = [x0[0], x0[1], x0[2]]
    for t in range(5):
        unrolled.append(step(s[t], unrolled[-3], unrolled[-1], w))
    wrt = [x0, w, s]
    onnx_fn = pytensor.function(wrt, pytensor.grad((xs**2).sum(), wrt), mode="ONNX")
    unrolled_cost = sum((x**2).sum() for x in unrolled[3:])
    py_fn = pytensor.function(wrt, pytensor.grad(unrolled_cost, wrt), mode=py_mode)
    rng = np.random.default_rng(2)
    values = [
        rng.normal(size=(3, 2)),
        rng.normal(size=(2, 2)) / 2,
        np.linspace(0, 1, 5),
    ]
    for onnx_value, py_value in zip(onnx_fn(*values), py_fn(*values), strict=True):
        assert_same_values(onnx_value, py_value, rtol=1e-10)


def test_gradient_in_float32():
    x0 = pt.vector("x0", dtype="float32")
    s = pt.matrix("s", dtype="float32")
    xs = scan(lambda s_t, x: pt.exp(-x) * s_t, sequences=[s], outputs_info=[x0])
    compare_onnx_and_py(
        [x0, s],
        pytensor.grad(xs.sum(), [x0, s]),
        [
            np.ones(3, dtype="float32"),
            np.linspace(0, 1, 12, dtype="float32").reshape(4, 3),
        ],
    )


def test_nested_scans():
    m = pt.matrix("m")

    def row_step(row, acc):
        inner = scan(lambda e, a: a * 0.5 + e, sequences=[row], outputs_info=[acc])
        return inner[-1]

    totals = scan(
        row_step, sequences=[m], outputs_info=[pt.constant(0.0, dtype="float64")]
    )
    compare_onnx_and_py([m], [totals], [np.arange(12.0).reshape(3, 4)])


def test_ifelse_inside_scan():
    v = pt.vector("v")
    totals = scan(
        lambda e, a: ifelse(e > 2, a + e, a * e),
        sequences=[v],
        outputs_info=[pt.constant(1.0, dtype="float64")],
    )
    compare_onnx_and_py([v], [totals], [np.arange(6.0)])


def test_assertion_inside_scan_raises():
    v = pt.vector("v")
    totals = scan(
        lambda e, a: Assert("elements must be non-negative")(a + e, e >= 0),
        sequences=[v],
        outputs_info=[pt.constant(1.0, dtype="float64")],
    )
    fn = pytensor.function([v], totals, mode="ONNX")
    np.testing.assert_array_equal(fn(np.arange(3.0)), [1.0, 2.0, 4.0])
    with pytest.raises(AssertionError, match="elements must be non-negative"):
        fn(np.array([1.0, -1.0, 2.0]))


def test_thousand_steps():
    s = pt.vector("s")
    x0 = pt.scalar("x0")
    xs = scan(lambda s_t, x: 0.999 * x + s_t, sequences=[s], outputs_info=[x0])
    values = np.random.default_rng(3).normal(size=1000)
    compare_onnx_and_py(
        [s, x0],
        [xs, pytensor.grad(xs.sum(), x0)],
        [values, np.float64(0.5)],
        # 1000 rounding errors accumulate differently in the two backends
        assert_fn=lambda a, b: assert_same_values(a, b, rtol=1e-10),
    )


@cache
def compiled_recurrences():
    n = pt.lscalar("n")
    x0 = pt.vector("x0")
    xs, ys = scan(
        lambda x_tm3, x_tm1: (x_tm1 - 0.5 * x_tm3, (x_tm3 * x_tm1).sum()),
        outputs_info=[dict(initial=x0, taps=[-3, -1]), None],
        n_steps=n,
    )
    outputs = [xs, ys, xs[-1], xs[-2:], ys[-3:]]
    onnx_fn = pytensor.function([x0, n], outputs, mode="ONNX")
    onnx.checker.check_model(onnx_fn.maker.linker.onnx_model, full_check=True)
    return onnx_fn, pytensor.function([x0, n], outputs, mode=py_mode)


@given(
    n_steps=st.integers(3, 40),
    initial=st.lists(st.integers(-20, 20), min_size=3, max_size=3),
)
def test_truncated_outputs_for_any_number_of_steps(n_steps, initial):
    onnx_fn, py_fn = compiled_recurrences()
    # Integer-valued floats: the buffers are under test, not the rounding
    values = [np.array(initial, dtype="float64"), np.int64(n_steps)]
    for onnx_value, py_value in zip(onnx_fn(*values), py_fn(*values), strict=True):
        assert_same_values(onnx_value, py_value)


def test_inner_op_without_converter_is_named():
    class Mystery(Op):
        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0]

    x0 = pt.scalar("x0")
    xs = scan(lambda x: Mystery()(x) + 1, outputs_info=[x0], n_steps=3)
    with pytest.raises(NotImplementedError, match=r"(?s)Scan.*inner graph.*Mystery"):
        pytensor.function([x0], xs, mode="ONNX")
