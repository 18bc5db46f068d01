import warnings
from functools import cache

import numpy as np
import onnx
import pytensor.tensor as pt
import pytest
import scipy.stats as stats
from hypothesis import given
from hypothesis import strategies as st
from pytensor.compile.mode import get_mode
from pytensor.compile.sharedvalue import shared
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op
from pytensor.ifelse import ifelse
from pytensor.raise_op import Assert
from pytensor.scan.op import Scan
from pytensor.scan.utils import until
from pytensor.tensor.random.basic import UniformRV
from pytensor.tensor.random.type import random_generator_type

import pytensor
from pytensor.link.onnx.dispatch import onnx_funcify
from pytensor.link.onnx.passes.graphs import count_nodes
from tests.link.onnx.utils import (
    MIN_P_VALUE,
    assert_same_values,
    compare_onnx_and_py,
    no_rewrites,
    onnx_mode,
    onnx_model_of,
    py_mode,
    random_variable,
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


@pytest.mark.parametrize("n_steps", [2, 20])
def test_while_loop_with_boolean_states(n_steps):
    # the outer buffers of a while loop are padded past its last step
    x = pt.scalar("x")
    n = pt.lscalar("n")
    xs, above, crossed = scan(
        lambda x_tm1, above_tm1: (
            (x_tm1 * 2, above_tm1 | (x_tm1 > 10), x_tm1 > 20),
            until(x_tm1 * 2 > 50),
        ),
        outputs_info=[x, x < 0, None],
        n_steps=n,
    )
    compare_onnx_and_py(
        [x, n],
        [xs, above, crossed, above[-1]],
        [np.float64(1.0), np.int64(n_steps)],
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


# Random generators in loops. The draws cannot equal NumPy's, so these tests
# check their distribution (at fixed seeds) and how the generators advance.


def scan_with_updates(step, **kwargs):
    """``(outputs, updates)`` of a Scan whose ``step`` returns generator updates,
    as PyMC's ``collect_default_updates`` gives them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pytensor.scan(step, return_updates=True, **kwargs)


def random_walk(n_steps, n_chains, dtype="float64", seed=0):
    """A function returning ``n_chains`` Gaussian random walks of ``n_steps``
    steps (increments N(0.5, 2)), and its shared generator."""
    rng = shared(np.random.default_rng(seed), name="rng")

    def step(position, rng):
        next_rng, increment = random_variable(
            pt.random.normal, 0.5, 2.0, rng=rng, size=(n_chains,), dtype=dtype
        )
        return position + increment, {rng: next_rng}

    walks, updates = scan_with_updates(
        step,
        outputs_info=[pt.zeros((n_chains,), dtype=dtype)],
        non_sequences=[rng],
        n_steps=n_steps,
    )
    return pytensor.function([], walks, updates=updates, mode="ONNX"), rng


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_random_walk_increments_are_iid_normal(dtype):
    fn, _ = random_walk(n_steps=1000, n_chains=100, dtype=dtype)
    walks = fn()
    assert walks.dtype == dtype and walks.shape == (1000, 100)
    increments = np.diff(walks, axis=0, prepend=0.0).astype("float64")
    assert (
        stats.kstest(increments.ravel(), stats.norm(0.5, 2.0).cdf).pvalue > MIN_P_VALUE
    )
    bound = 5 / np.sqrt(increments.size)
    for lag in (1, 2):
        lagged = np.corrcoef(increments[:-lag].ravel(), increments[lag:].ravel())
        assert abs(lagged[0, 1]) < bound
    # the chains are independent too
    assert abs(np.corrcoef(increments[:, 0], increments[:, 1])[0, 1]) < 0.2


def test_random_walk_advances_its_generator_and_reproduces_for_a_seed():
    fn, rng = random_walk(n_steps=5, n_chains=3, seed=42)
    first, second = fn(), fn()
    assert not np.isin(second, first).any()
    rng.set_value(np.random.default_rng(42))
    np.testing.assert_array_equal(fn(), first)
    np.testing.assert_array_equal(fn(), second)
    other_fn, _ = random_walk(n_steps=5, n_chains=3, seed=42)
    np.testing.assert_array_equal(other_fn(), first)
    different_seed, _ = random_walk(n_steps=5, n_chains=3, seed=43)
    assert not np.isin(different_seed(), first).any()


def test_ar1_reaches_its_stationary_variance():
    rho, n_chains = 0.6, 20_000
    rng = shared(np.random.default_rng(1))

    def step(x, rng):
        next_rng, noise = random_variable(
            pt.random.normal, 0.0, 1.0, rng=rng, size=(n_chains,)
        )
        return rho * x + noise, {rng: next_rng}

    xs, updates = scan_with_updates(
        step, outputs_info=[pt.zeros((n_chains,))], non_sequences=[rng], n_steps=60
    )
    last, before_last = pytensor.function(
        [], [xs[-1], xs[-2]], updates=updates, mode="ONNX"
    )()
    variance = 1 / (1 - rho**2)
    assert abs(last.var() - variance) < 5 * variance * np.sqrt(2 / n_chains)
    assert abs(np.corrcoef(last, before_last)[0, 1] - rho) < 5 / np.sqrt(n_chains)
    assert stats.kstest(last, stats.norm(0, np.sqrt(variance)).cdf).pvalue > MIN_P_VALUE


def test_several_draws_and_generators_per_step():
    rng_a = shared(np.random.default_rng(2))
    rng_b = shared(np.random.default_rng(3))

    def step(rng_a, rng_b):
        rng_a_1, normal = random_variable(
            pt.random.normal, 0.0, 1.0, rng=rng_a, size=(50,)
        )
        rng_a_2, uniform = random_variable(
            pt.random.uniform, 0.0, 1.0, rng=rng_a_1, size=(50,)
        )
        rng_b_1, coin = random_variable(pt.random.bernoulli, 0.3, rng=rng_b, size=(50,))
        return [normal, uniform, coin], {rng_a: rng_a_2, rng_b: rng_b_1}

    (normal, uniform, coin), updates = scan_with_updates(
        step, non_sequences=[rng_a, rng_b], n_steps=400
    )
    fn = pytensor.function([], [normal, uniform, coin], updates=updates, mode="ONNX")
    normal, uniform, coin = (value.ravel() for value in fn())
    assert stats.kstest(normal, "norm").pvalue > MIN_P_VALUE
    assert stats.kstest(uniform, "uniform").pvalue > MIN_P_VALUE
    assert abs(coin.mean() - 0.3) < 5 * np.sqrt(0.3 * 0.7 / coin.size)
    bound = 5 / np.sqrt(normal.size)
    assert abs(np.corrcoef(normal, uniform)[0, 1]) < bound
    assert abs(np.corrcoef(normal, coin)[0, 1]) < bound


def test_draws_whose_size_depends_on_the_step():
    rng = shared(np.random.default_rng(4))

    def step(k, rng):
        next_rng, draws = random_variable(
            pt.random.normal, 0.0, 1.0, rng=rng, size=(k,)
        )
        # the sum of k standard normal draws, standardized
        return draws.sum() / pt.sqrt(k), {rng: next_rng}

    sizes = pt.arange(1, 3001)
    sums, updates = scan_with_updates(step, sequences=[sizes], non_sequences=[rng])
    values = pytensor.function([], sums, updates=updates, mode="ONNX")()
    assert values.shape == (3000,)
    assert stats.kstest(values, "norm").pvalue > MIN_P_VALUE


def normal_draws_step(size):
    """A Scan step drawing standard normal draws of ``size`` and updating its
    generator."""

    def step(rng):
        next_rng, draws = random_variable(
            pt.random.normal, 0.0, 1.0, rng=rng, size=size
        )
        return draws, {rng: next_rng}

    return step


def test_random_draws_in_nested_scans():
    rng = shared(np.random.default_rng(5))

    def outer_step(rng):
        return scan_with_updates(
            normal_draws_step((10,)), non_sequences=[rng], n_steps=20
        )

    draws, updates = scan_with_updates(outer_step, non_sequences=[rng], n_steps=30)
    fn = pytensor.function([], draws, updates=updates, mode="ONNX")
    first = fn()
    assert first.shape == (30, 20, 10)
    assert np.unique(first).size == first.size
    assert stats.kstest(first.ravel(), "norm").pvalue > MIN_P_VALUE
    assert not np.isin(fn(), first).any()


def test_random_draws_in_a_while_loop_stop_where_the_draws_say():
    rng = shared(np.random.default_rng(6))

    def step(rng):
        next_rng, u = random_variable(pt.random.uniform, 0.0, 1.0, rng=rng)
        return u, {rng: next_rng}, until(u < 0.1)

    draws, updates = scan_with_updates(step, non_sequences=[rng], n_steps=1000)
    fn = pytensor.function([], draws, updates=updates, mode="ONNX")
    lengths = []
    for _ in range(200):
        values = fn()
        assert (values[:-1] >= 0.1).all() and values[-1] < 0.1
        lengths.append(values.size)
    # the number of draws is geometric with p = 0.1
    assert abs(np.mean(lengths) - 10) < 5 * np.sqrt(0.9 / 0.01 / len(lengths))


class RedrawnUniformRV(UniformRV):
    """A subclass of PyTensor's uniform, as PyMC's tests define for pm.Truncated."""


def test_a_while_loop_redrawing_a_random_variable_subclass_until_accepted():
    # pm.Truncated's rejection sampler: redraw the rejected elements until all
    # are accepted (the while loop stopped converting while subclasses had no
    # sampler: "its inner graph ... Op RedrawnUniformRV")
    rng = shared(np.random.default_rng(7))
    redrawn_uniform = RedrawnUniformRV()

    def step(draws, rng):
        next_rng, proposals = redrawn_uniform(size=draws.shape, rng=rng).owner.outputs
        draws = pt.where(draws < 0.9, proposals, draws)
        return draws, {rng: next_rng}, until(pt.all(draws >= 0.9))

    start = pt.zeros(500)
    draws, updates = scan_with_updates(
        step, outputs_info=[start], non_sequences=[rng], n_steps=10_000
    )
    fn = pytensor.function([], draws[-1], updates=updates, mode="ONNX")
    values = fn()
    assert (values >= 0.9).all() and np.unique(values).size == values.size
    assert stats.kstest(values, stats.uniform(0.9, 0.1).cdf).pvalue > MIN_P_VALUE


def test_explicit_generator_carried_as_state():
    rng = random_generator_type("rng")

    def step(rng):
        return random_variable(pt.random.normal, 0.0, 1.0, rng=rng, size=(2,))

    final_rng, draws = scan(step, outputs_info=[rng, None], n_steps=4)
    fn = pytensor.function([rng], [final_rng, draws], mode="ONNX")
    generator = np.random.default_rng(7)
    state = generator.bit_generator.state
    advanced, first = fn(generator)
    assert generator.bit_generator.state == state
    assert isinstance(advanced, np.random.Generator)
    assert np.unique(first).size == first.size
    np.testing.assert_array_equal(fn(generator)[1], first)
    assert not np.isin(fn(advanced)[1], first).any()


MAX_UNROLLED = 6


@cache
def scanned_and_unrolled_draws():
    """Functions of a generator: the draws of a Scan of ``n`` steps, and those of
    `MAX_UNROLLED` ``RandomVariable`` nodes chained one after the other."""
    rng = random_generator_type("rng")
    n = pt.lscalar("n")

    def step(rng):
        return random_variable(pt.random.normal, 0.0, 1.0, rng=rng, size=(2,))

    _, scanned = scan(step, outputs_info=[rng, None], n_steps=n)
    unrolled, next_rng = [], rng
    for _ in range(MAX_UNROLLED):
        next_rng, draws = step(next_rng)
        unrolled.append(draws)
    return (
        pytensor.function([rng, n], scanned, mode="ONNX"),
        pytensor.function([rng], pt.stack(unrolled), mode="ONNX"),
    )


@given(seed=st.integers(0, 2**32 - 1), n_steps=st.integers(0, MAX_UNROLLED))
def test_each_step_draws_like_the_next_node_of_a_chain(seed, n_steps):
    # the generator a step leaves is the one the next step draws from, exactly
    # as for RandomVariable nodes chained outside a loop
    scanned, unrolled = scanned_and_unrolled_draws()
    generator = np.random.default_rng(seed)
    np.testing.assert_array_equal(
        scanned(generator, n_steps), unrolled(generator)[:n_steps]
    )


def test_generator_without_update_draws_the_same_at_every_step_like_pytensor():
    rng = shared(np.random.default_rng(8))

    def step(rng):
        return random_variable(pt.random.normal, 0.0, 1.0, rng=rng, size=(3,))[1]

    draws = scan(step, non_sequences=[rng], n_steps=4)
    for mode in ("ONNX", py_mode):
        values = pytensor.function([], draws, mode=mode)()
        assert (values == values[0]).all()


def test_steps_differ_and_calls_repeat_without_the_update_like_pytensor():
    rng = shared(np.random.default_rng(9))
    draws, _ = scan_with_updates(
        normal_draws_step((2,)), non_sequences=[rng], n_steps=4
    )
    for mode in ("ONNX", py_mode):
        fn = pytensor.function([], draws, mode=mode)
        first = fn()
        assert np.unique(first).size == first.size
        np.testing.assert_array_equal(fn(), first)


def test_a_scan_without_steps_returns_empty_nit_sot_outputs():
    # scan_save_mem keeps one entry of zs; without steps it still has none
    x0 = pt.scalar("x0")
    seq = pt.vector("seq")
    n_steps = pt.scalar("n_steps", dtype="int64")
    [_, zs] = scan(
        lambda s, previous: ((previous + 1, previous + 1 + s), until(previous >= 9)),
        sequences=[seq],
        outputs_info=[x0, None],
        n_steps=n_steps,
    )
    last = pytensor.function([x0, seq, n_steps], zs[-1], mode="ONNX")
    np.testing.assert_allclose(last(0.0, np.zeros(20), 20), 10.0)
    with pytest.raises(IndexError):
        last(0.0, np.zeros(20), 0)
    steps = pytensor.function([x0, seq, n_steps], zs.shape[0], mode="ONNX")
    assert steps(0.0, np.zeros(20), 0) == 0


def test_checks_onnxruntime_makes_itself_cost_no_loop_output():
    # the reshape's and dot's checks would be carried out of every iteration
    x, w = pt.matrix("x"), pt.matrix("w")

    def step(row, total):
        return total + (row.reshape((2, -1)) @ w).sum()

    totals = scan(step, sequences=[x], outputs_info=[pt.constant(0.0, dtype="float64")])
    fn = pytensor.function([x, w], totals[-1], mode="ONNX")
    unchecked = onnx_funcify(fn.maker.fgraph, keep_checks=False).model

    def loop_outputs(model):
        [loop] = [n for n in model.graph.node if n.op_type == "Loop"]
        return len(loop.output)

    assert loop_outputs(onnx_model_of(fn)) == loop_outputs(unchecked)
    np.testing.assert_allclose(fn(np.ones((3, 4)), np.ones((2, 2))), 24.0)


@pytest.mark.parametrize(
    "step",
    [
        lambda position, x: x[position],
        lambda position, x: pt.inc_subtensor(x[position], 1.0),
    ],
    ids=["read", "increment"],
)
def test_an_index_out_of_bounds_in_a_step_raises_index_error(step):
    x, positions = pt.vector("x"), pt.lvector("positions")
    steps = scan(step, sequences=[positions], non_sequences=[x])
    fn, expected = (
        pytensor.function([x, positions], steps, mode=mode)
        for mode in ("ONNX", py_mode)
    )
    np.testing.assert_array_equal(
        fn(np.arange(3.0), np.array([2, -3])), expected(np.arange(3.0), [2, -3])
    )
    for function in (fn, expected):
        with pytest.raises(IndexError):
            function(np.arange(3.0), np.array([0, 3]))


def while_loop_over(x, step):
    # PyTensor pushes no computation out of a while loop: the step stays inside
    return scan(
        lambda row: (step(row), until(pt.all(row > 100.0))), sequences=[x], n_steps=4
    )


@pytest.mark.parametrize(
    "x, step",
    [
        # a constant number of steps over sequences of static length
        (pt.matrix("x", shape=(4, 3)), lambda row: row * 2.0),
        # where's inputs have the length of the step's input by construction
        (
            pt.matrix("x", shape=(4, None)),
            lambda row: pt.where(pt.isnan(row), 0.0, row) * 2.0,
        ),
    ],
    ids=["static_lengths", "equal_by_construction"],
)
def test_lengths_known_when_the_graph_is_built_cost_no_check(x, step):
    fn = pytensor.function([x], while_loop_over(x, step), mode="ONNX")
    unchecked = onnx_funcify(fn.maker.fgraph, keep_checks=False).model
    assert count_nodes(onnx_model_of(fn).graph) == count_nodes(unchecked.graph)
    expected = pytensor.function([x], while_loop_over(x, step), mode=py_mode)
    values = np.array([[1.0, np.nan, 3.0]] * 4)
    np.testing.assert_allclose(fn(values), expected(values))


@pytest.mark.parametrize(
    "n_steps, error", [(5, ValueError), (-1, IndexError)], ids=["too_many", "negative"]
)
def test_a_scan_run_for_more_steps_than_its_sequence_raises_like_pytensor(
    n_steps, error
):
    # scan() cuts its sequences to the number of steps: a Scan built by hand
    # can ask for more
    x, n = pt.vector("x"), pt.lscalar("n")
    totals = scan(
        lambda value, total: total + 2 * value,
        sequences=[x],
        outputs_info=[pt.constant(0.0, dtype="float64")],
    )
    scan_node = totals.owner
    while not isinstance(scan_node.op, Scan):
        scan_node = scan_node.inputs[0].owner
    asked = scan_node.op.make_node(n, *scan_node.inputs[1:]).outputs[0]
    # without the scan rewrites, which would push the whole step out of it
    mode = get_mode("ONNX").excluding("scan")
    fn, expected = (pytensor.function([x, n], asked, mode=m) for m in (mode, py_mode))
    np.testing.assert_allclose(fn(np.ones(3), 3), expected(np.ones(3), 3))
    for function in (fn, expected):
        with pytest.raises(error):
            function(np.ones(3), n_steps)
