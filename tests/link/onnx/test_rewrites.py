import subprocess
import sys

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
import scipy.special as sc
from hypothesis import given
from hypothesis import strategies as st
from pytensor.compile.mode import get_mode
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import vectorize_graph
from pytensor.raise_op import CheckAndRaise
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.math import Sum
from pytensor.tensor.slinalg import Cholesky
from pytensor.tensor.subtensor import (
    AdvancedIncSubtensor1,
    advanced_inc_subtensor1,
    advanced_subtensor1,
)

import pytensor
from pytensor.link.onnx.passes.graphs import count_nodes
from pytensor.link.onnx.rewrites.batching import BatchScalarCalls
from tests.link.onnx.utils import compare_onnx_and_py, onnx_model_of, py_mode


without_batching = get_mode("ONNX").excluding("batch_scalar_calls")


def log_diff_normal_cdf(mu, sigma, lower, upper):
    # PyMC's normalising constant of a truncated normal (4 erfcx, 2 erf)
    x = (upper - mu) / sigma / np.sqrt(2.0)
    y = (lower - mu) / sigma / np.sqrt(2.0)
    return np.log(0.5) + pt.switch(
        pt.gt(y, 0),
        -pt.square(y)
        + pt.log(pt.erfcx(y) - pt.exp(pt.square(y) - pt.square(x)) * pt.erfcx(x)),
        pt.switch(
            pt.lt(x, 0),
            -pt.square(x)
            + pt.log(pt.erfcx(-x) - pt.exp(pt.square(x) - pt.square(y)) * pt.erfcx(-y)),
            pt.log(pt.erf(x) - pt.erf(y)),
        ),
    )


def truncated_normal_logp(dtype):
    mu = pt.vector("mu", dtype=dtype, shape=(1,))
    sigma = pt.vector("sigma", dtype=dtype, shape=(1,))
    x = pt.vector("x", dtype=dtype, shape=(50,))
    z = (x - mu) / sigma
    logp = (-0.5 * z**2 - pt.log(sigma) - log_diff_normal_cdf(mu, sigma, -1, 2)).sum()
    inputs = [mu, sigma, x]
    values = [np.array([0.3]), np.array([1.2]), np.linspace(-1, 2, 50)]
    return inputs, [logp, *pytensor.grad(logp, [mu, sigma])], values


def student_t_logp(dtype):
    # StudentT's normalising constant in nu: gammaln and, in its gradient, psi
    nu = pt.scalar("nu", dtype=dtype)
    x = pt.vector("x", dtype=dtype, shape=(20,))
    logp = (
        pt.gammaln((nu + 1) / 2)
        - pt.gammaln(nu / 2)
        - 0.5 * pt.log(nu)
        - (nu + 1) / 2 * pt.log1p(x**2 / nu)
    ).sum()
    return [nu, x], [logp, pytensor.grad(logp, nu)], [np.array(4.5), np.arange(20.0)]


def negative_binomial_logp(dtype):
    # gammaln of same-shaped values, and psi of them in the gradient
    n = pt.vector("n", dtype=dtype, shape=(30,))
    alpha = pt.scalar("alpha", dtype=dtype)
    logp = (pt.gammaln(n + alpha) - pt.gammaln(n + 1) - pt.gammaln(alpha)).sum()
    values = [np.arange(30.0), np.array(2.5)]
    return [n, alpha], [logp, pytensor.grad(logp, alpha)], values


def onnx_nodes(inputs, outputs, mode):
    fn = pytensor.function(inputs, outputs, mode=mode)
    return count_nodes(onnx_model_of(fn).graph)


def calls_of(fn, scalar_op_class) -> int:
    return sum(
        isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, scalar_op_class)
        for node in fn.maker.fgraph.apply_nodes
    )


def elements_computed(fn, scalar_op_class) -> int:
    return sum(
        np.prod(node.outputs[0].type.shape)
        for node in fn.maker.fgraph.apply_nodes
        if isinstance(node.op, Elemwise)
        and isinstance(node.op.scalar_op, scalar_op_class)
    )


def cast_all(values, dtype):
    return [np.asarray(value, dtype=dtype) for value in values]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "log_density", [truncated_normal_logp, student_t_logp, negative_binomial_logp]
)
def test_pymc_like_log_densities_lose_nodes_and_keep_their_values(log_density, dtype):
    inputs, outputs, values = log_density(dtype)
    rtol = {"float64": 1e-12, "float32": 2e-5}[dtype]
    compare_onnx_and_py(
        inputs,
        outputs,
        cast_all(values, dtype),
        assert_fn=lambda a, b: np.testing.assert_allclose(a, b, rtol=rtol),
    )
    batched = onnx_nodes(inputs, outputs, "ONNX")
    assert batched < 0.75 * onnx_nodes(inputs, outputs, without_batching)


def test_the_calls_of_the_value_and_of_its_gradient_become_one():
    inputs, outputs, _ = truncated_normal_logp("float64")
    fn = pytensor.function(inputs, outputs, mode="ONNX")
    assert calls_of(fn, ps.Erfcx) == 1
    assert calls_of(fn, ps.Erf) == 1


def test_a_call_reading_another_is_not_merged_with_it():
    x = pt.dvector("x", shape=(3,))
    inner = pt.erfcx(x)
    outputs = [pt.erfcx(inner), pt.erfcx(2 * x), inner]
    fn, _ = compare_onnx_and_py([x], outputs, [np.array([-1.0, 0.5, 3.0])])
    assert calls_of(fn, ps.Erfcx) == 2


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_calls_on_symbolic_and_mixed_shapes(dtype):
    x = pt.vector("x", dtype=dtype)
    m = pt.matrix("m", dtype=dtype, shape=(2, 3))
    s = pt.scalar("s", dtype=dtype)
    c = pt.tensor("c", dtype=dtype, shape=(None, 1, 2))
    v = pt.vector("v", dtype=dtype, shape=(3,))
    outputs = [pt.erfcx(x), pt.erfcx(m), pt.erfcx(s), pt.erfcx(c), pt.erfcx(v)]
    rng = np.random.default_rng(3)
    for n in (0, 1, 5):
        values = [
            rng.normal(size=n),
            rng.normal(size=(2, 3)),
            rng.normal(),
            rng.normal(size=(n, 1, 2)),
            rng.normal(size=3),
        ]
        fn, _ = compare_onnx_and_py([x, m, s, c, v], outputs, cast_all(values, dtype))
    assert calls_of(fn, ps.Erfcx) == 1


def test_inputs_broadcast_and_shared_by_the_calls_of_a_multi_input_function():
    k = pt.dscalar("k")
    a = pt.dmatrix("a", shape=(3, 1))
    b = pt.dmatrix("b", shape=(1, 4))
    x = pt.dvector("x")
    outputs = [pt.gammaincc(a, b), pt.gammaincc(k, x), pt.gammaincc(2.5, a)]
    values = [
        np.array(1.5),
        np.array([[0.5], [1.0], [4.0]]),
        np.array([[0.1, 1.0, 2.0, 8.0]]),
        np.array([0.2, 3.0]),
    ]
    fn, _ = compare_onnx_and_py([k, a, b, x], outputs, values)
    assert calls_of(fn, ps.GammaIncC) == 1


def test_calls_whose_lengths_need_a_runtime_check_keep_it():
    x, y, z = pt.dvectors("x", "y", "z")
    outputs = [pt.gammaincc(x, y), pt.gammaincc(y, z)]
    fn = pytensor.function([x, y, z], outputs, mode="ONNX")
    reference = pytensor.function([x, y, z], outputs, mode=py_mode)
    good = [np.array([1.0, 2.0]), np.array([0.5, 3.0]), np.array([2.0, 1.0])]
    np.testing.assert_allclose(fn(*good), reference(*good), rtol=1e-12)
    bad = [np.array([1.0, 2.0]), np.array([0.5, 3.0]), np.array([2.0, 1.0, 4.0])]
    with pytest.raises(ValueError):
        reference(*bad)
    with pytest.raises(ValueError):
        fn(*bad)


def test_calls_on_different_dtypes_stay_apart():
    x = pt.fvector("x", shape=(3,))
    y = pt.dvector("y", shape=(3,))
    outputs = [pt.erfcx(x), pt.erfcx(y)]
    values = [np.array([0.1, 1.0, 3.0], "float32"), np.array([-2.0, 0.0, 9.0])]
    fn, results = compare_onnx_and_py([x, y], outputs, values)
    assert [r.dtype for r in results] == ["float32", "float64"]
    assert calls_of(fn, ps.Erfcx) == 2


def test_cheap_calls_on_large_values_are_left_alone():
    x, y = pt.dvectors("x", "y")
    xs = pt.dvector("xs", shape=(100_000,))
    ys = pt.dvector("ys", shape=(100_000,))
    fn = pytensor.function(
        [x, y, xs, ys], [pt.exp(x), pt.exp(y), pt.exp(xs), pt.exp(ys)], mode="ONNX"
    )
    assert calls_of(fn, ps.Exp) == 4


def test_many_cheap_calls_on_single_values_become_one():
    xs = pt.dvector("x", shape=(6,))
    outputs = [pt.exp(xs[i : i + 1] * 2) for i in range(6)]
    fn, _ = compare_onnx_and_py([xs], outputs, [np.linspace(-2, 2, 6)])
    assert calls_of(fn, ps.Exp) == 1


def test_small_calls_are_batched_apart_from_large_ones():
    small = pt.dvector("small", shape=(3,))
    large = pt.dvector("large", shape=(100_000,))
    outputs = [pt.erfcx(small), pt.erfcx(-small), pt.erfcx(large), pt.erfcx(-large)]
    values = [np.array([-1.0, 0.0, 2.0]), np.linspace(-3, 30, 100_000)]
    fn, _ = compare_onnx_and_py([small, large], outputs, values)
    assert calls_of(fn, ps.Erfcx) == 3


@pytest.mark.parametrize("shape", [(4,), (None,)])
def test_calls_on_different_constants(shape):
    x = pt.dvector("x", shape=shape)
    y = pt.dvector("y", shape=shape)
    outputs = [pt.gammaincc(x, 1.5), pt.gammaincc(y, 2.5), pt.gammaincc(3.0, x)]
    values = [np.array([0.5, 1.0, 2.0, 7.0]), np.array([0.1, 0.2, 4.0, 9.0])]
    fn, _ = compare_onnx_and_py([x, y], outputs, values)
    assert calls_of(fn, ps.GammaIncC) == 1


def truncated_normal_logp_of_chains(dtype, n_chains=4):
    # The log-density a sampler evaluates for all its chains at once: each
    # scalar call of the one-point graph becomes a call on one row per chain
    inputs, outputs, values = truncated_normal_logp(dtype)
    mu, sigma, x = inputs
    mus, sigmas = (
        pt.matrix(name, dtype=dtype, shape=(n_chains, 1)) for name in ("mus", "sigmas")
    )
    batched = vectorize_graph(outputs, replace={mu: mus, sigma: sigmas})
    offsets = np.linspace(-0.5, 0.5, n_chains)[:, None]
    chain_values = [values[0] + offsets, values[1] + offsets**2, values[2]]
    return [mus, sigmas, x], batched, chain_values


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_calls_of_every_chain_join_along_their_last_axis(dtype):
    inputs, outputs, values = truncated_normal_logp_of_chains(dtype)
    rtol = {"float64": 1e-12, "float32": 2e-5}[dtype]
    fn, _ = compare_onnx_and_py(
        inputs,
        outputs,
        cast_all(values, dtype),
        assert_fn=lambda a, b: np.testing.assert_allclose(a, b, rtol=rtol),
    )
    assert calls_of(fn, ps.Erfcx) == 1


# Measured (both PyTensor versions): 630 nodes unbatched, 326 when each
# batch was flattened, reshaped and split back
CHAINS_TRUNCATED_NORMAL_NODES = 282


def test_calls_of_every_chain_join_with_no_reshape():
    inputs, outputs, _ = truncated_normal_logp_of_chains("float64")
    assert onnx_nodes(inputs, outputs, "ONNX") <= CHAINS_TRUNCATED_NORMAL_NODES


def test_calls_of_one_shape_with_broadcast_constant_and_shared_inputs():
    a, b = (pt.dmatrix(name, shape=(3, 2)) for name in ("a", "b"))
    row = pt.dmatrix("row", shape=(1, 2))
    k = pt.dscalar("k")
    outputs = [
        pt.gammaincc(a, b),
        pt.gammaincc(b, 2.5),
        pt.gammaincc(row, a),
        pt.gammaincc(np.array([[0.5, 1.5]]), b),
        pt.gammaincc(k, a),
        pt.gammaincc(k, b),
    ]
    rng = np.random.default_rng(7)
    values = [rng.uniform(0.1, 4, (3, 2)), rng.uniform(0.1, 4, (3, 2))]
    values += [rng.uniform(0.1, 4, (1, 2)), np.array(1.7)]
    fn, _ = compare_onnx_and_py([a, b, row, k], outputs, values)
    assert calls_of(fn, ps.GammaIncC) == 1


def censored_normal_logp(dtype):
    # PyMC's Censored: the log-CDFs are taken at the observed values and used
    # only where those equal the bounds
    mu, sigma = (pt.scalar(name, dtype=dtype) for name in ("mu", "sigma"))
    observed = np.clip(np.linspace(-2.0, 3.5, 40), -1.0, 2.5).astype(dtype)
    sqrt2 = np.asarray(np.sqrt(2.0), dtype)
    z = (observed - mu) / sigma
    log_cdf = pt.log(0.5 * pt.erfc(-z / sqrt2))
    log_sf = pt.log(0.5 * pt.erfc(z / sqrt2))
    log_pdf = -0.5 * z**2 - pt.log(sigma)
    logp = pt.switch(
        pt.eq(observed, -1.0), log_cdf, pt.switch(pt.eq(observed, 2.5), log_sf, log_pdf)
    ).sum()
    values = cast_all([0.4, 1.3], dtype)
    return [mu, sigma], [logp, *pytensor.grad(logp, [mu, sigma])], values


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_censored_log_cdfs_are_computed_once_per_bound(dtype):
    fn = compare_censored_logp(*censored_normal_logp(dtype), dtype)
    assert 0 < elements_computed(fn, ps.Erfc) < 10


def compare_censored_logp(inputs, outputs, values, dtype):
    rtol = {"float64": 1e-13, "float32": 2e-6}[dtype]
    fn, _ = compare_onnx_and_py(
        inputs,
        outputs,
        values,
        assert_fn=lambda a, b: np.testing.assert_allclose(a, b, rtol=rtol),
    )
    return fn


def checked_censored_normal_logp(dtype):
    # PyMC's Censored evaluated for 4 chains at once: the log-CDF goes
    # through its parameter check before the switch on the observed values
    mu, sigma = (pt.vector(name, shape=(4,), dtype=dtype) for name in ("mu", "sigma"))
    observed = np.clip(np.linspace(-2.0, 3.5, 40), -1.0, 2.5).astype(dtype)[None]
    z = (observed - mu[:, None]) / sigma[:, None]
    sqrt2 = np.asarray(np.sqrt(2.0), dtype)
    log_cdf = CheckAndRaise(ValueError, "sigma > 0")(
        pt.log(0.5 * pt.erfc(-z / sqrt2)), pt.all(sigma > 0)
    )
    logp = pt.switch(pt.eq(observed, -1.0), log_cdf, -0.5 * z**2).sum()
    return [mu, sigma], [logp, *pytensor.grad(logp, [mu, sigma])]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_censored_log_cdfs_behind_a_parameter_check_are_computed_once_per_bound(
    dtype,
):
    inputs, outputs = checked_censored_normal_logp(dtype)
    values = cast_all([[0.4, -0.2, 1.0, 0.0], [1.3, 0.5, 2.0, 1.0]], dtype)
    fn = compare_censored_logp(inputs, outputs, values, dtype)
    assert 0 < elements_computed(fn, ps.Erfc) <= 4
    with pytest.raises(ValueError, match="sigma > 0"):
        fn(values[0], -values[1])


def branch_of(name):
    """``switch(mask, branch(c, y), y)`` over three elements, ``mask`` taking
    the first two, for the constant ``c`` of the case ``name``."""
    y = pt.dvector("y", shape=(3,))
    mask = np.array([True, True, False])
    c, branch = {
        "signed zeros differ": ([0.0, -0.0, 1.0], lambda c: 1 / c + y),
        "NaNs are one value": ([np.nan, np.nan, 2.0], lambda c: pt.exp(c) + y),
        "also summed": ([2.0, 2.0, 5.0], lambda c: c * y + c.sum()),
        "integers": ([3, 3, 7], lambda c: pt.gammaln(c + y)),
        "first of two inputs": ([1.5, 1.5, 0.5], lambda c: pt.gammaincc(c, y)),
    }[name]
    c = pt.constant(np.array(c))
    return [y], pt.switch(mask, branch(c), y)


@pytest.mark.parametrize(
    "name",
    [
        "signed zeros differ",
        "NaNs are one value",
        "also summed",
        "integers",
        "first of two inputs",
    ],
)
def test_switch_on_a_constant_mask_keeps_its_values(name):
    inputs, output = branch_of(name)
    compare_onnx_and_py(inputs, [output], [np.array([0.5, 2.0, 3.0])])


@given(
    mask=st.lists(st.booleans(), min_size=4, max_size=4),
    constant=st.lists(
        st.sampled_from([0.0, -0.0, 1.5, np.nan, np.inf]), min_size=4, max_size=4
    ),
)
def test_switch_on_a_constant_mask_matches_python_for_any_constants(mask, constant):
    y = pt.dvector("y", shape=(4,))
    c = pt.constant(np.array(constant))
    output = pt.switch(np.array(mask), pt.exp(-c) / (c + y), pt.log(c * y))
    compare_onnx_and_py([y], [output], [np.array([0.5, -1.0, 2.0, 0.0])])


COUNTS = np.array([0, 1, 1, 2, 5, 0, 0, 3, 1, 2, 7, 1] * 25, dtype="int64")


def negative_binomial_terms(dtype="float64"):
    # gammaln of counts plus a parameter, and psi of them in the gradient (the
    # counts integers, or of the parameter's dtype)
    log_alpha = pt.scalar("log_alpha", dtype=dtype)
    alpha = pt.exp(log_alpha)
    counts = COUNTS if dtype == "float64" else COUNTS.astype(dtype)
    logp = (pt.gammaln(counts + alpha) - pt.gammaln(alpha)).sum()
    values = cast_all([0.3], dtype)
    return [log_alpha], [logp, pytensor.grad(logp, log_alpha)], values


def test_special_functions_of_repeated_float32_data():
    inputs, outputs, values = negative_binomial_terms("float32")
    fn, results = compare_onnx_and_py(
        inputs,
        outputs,
        values,
        assert_fn=lambda a, b: np.testing.assert_allclose(a, b, rtol=2e-6),
    )
    assert [result.dtype for result in results] == ["float32", "float32"]
    assert elements_computed(fn, ps.GammaLn) <= 7 + 5


def chains_negative_binomial_terms():
    # the counts broadcast against a parameter per chain, as the log-density
    # of several chains evaluated at once reads them
    log_alpha = pt.dvector("log_alpha", shape=(3,))
    alpha = pt.exp(log_alpha)[:, None]
    logp = (pt.gammaln(COUNTS[None] + alpha) - pt.gammaln(alpha)).sum()
    values = [np.array([0.3, -1.0, 2.0])]
    return [log_alpha], [logp, pytensor.grad(logp, log_alpha)], values


def dirichlet_multinomial_terms():
    # a parameter per category, broadcast along the observations' rows
    log_alpha = pt.dvector("log_alpha", shape=(4,))
    alpha = pt.exp(log_alpha)
    counts = COUNTS.reshape(75, 4)
    logp = (
        pt.gammaln(counts + alpha).sum() - pt.gammaln(counts.sum(1) + alpha.sum()).sum()
    )
    values = [np.array([0.1, -0.5, 1.2, 0.0])]
    return [log_alpha], [logp, pytensor.grad(logp, log_alpha)], values


def matrix_and_one_value_terms():
    # a parameter of one element in a matrix, a constant broadcast along rows
    scale = pt.dmatrix("scale", shape=(1, 1))
    counts = COUNTS.reshape(30, 10).astype("float64")
    offsets = np.linspace(0.5, 2.0, 10)[None]
    logp = pt.psi(counts * scale + offsets).sum()
    return [scale], [logp, pytensor.grad(logp, scale)], [np.array([[1.5]])]


def signed_zeros_and_nans_terms():
    # 0.0 and -0.0 (and NaN) are distinct values: psi(1 / -0.0) is NaN
    s = pt.dscalar("s")
    data = np.array([0.0, -0.0, np.nan, 2.0] * 50)
    return [s], [pt.psi(1 / (data * s))], [np.array(1.0)]


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.parametrize(
    "terms",
    [
        negative_binomial_terms,
        chains_negative_binomial_terms,
        dirichlet_multinomial_terms,
        matrix_and_one_value_terms,
        signed_zeros_and_nans_terms,
    ],
)
def test_special_functions_of_repeated_data_keep_their_values(terms):
    inputs, outputs, values = terms()
    compare_onnx_and_py(
        inputs,
        outputs,
        values,
        assert_fn=lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-13),
    )


@pytest.mark.parametrize(
    "terms, distinct",
    [
        (negative_binomial_terms, 7),
        (chains_negative_binomial_terms, 3 * 7),
        (dirichlet_multinomial_terms, 4 * 7),
    ],
)
def test_special_functions_of_repeated_data_run_once_per_distinct_element(
    terms, distinct
):
    inputs, outputs, _ = terms()
    fn = pytensor.function(inputs, outputs, mode="ONNX")
    # the distinct elements, and the parameters' own calls batched with them
    assert elements_computed(fn, ps.GammaLn) <= distinct + 5
    assert elements_computed(fn, ps.Psi) <= distinct + 5


def test_distinct_data_make_the_same_model_each_time():
    inputs, outputs, _ = dirichlet_multinomial_terms()
    models = [
        onnx_model_of(pytensor.function(inputs, outputs, mode="ONNX")) for _ in range(2)
    ]
    assert models[0].SerializeToString() == models[1].SerializeToString()


@given(
    counts=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    alpha=st.floats(0.05, 20.0),
)
def test_gammaln_of_repeated_counts_matches_python(counts, alpha):
    a = pt.dscalar("a")
    data = np.array(counts, dtype="float64").reshape(10, 4)
    output = pt.gammaln(data + a) + pt.psi(data * a)
    compare_onnx_and_py([a], [output], [np.array(alpha)])


def test_identical_calls_left_for_pytensor_to_merge():
    # copies of one call (a rewrite may make them before PyTensor's next
    # merge) are not one batch: each is the whole call
    x = pt.dvector("x", shape=(1,))
    fgraph = FunctionGraph([x], [pt.erfcx(x), pt.erfcx(x)], clone=False)
    BatchScalarCalls().rewrite(fgraph)
    fn = pytensor.function([x], fgraph.outputs, mode=py_mode)
    value = np.array([0.7])
    np.testing.assert_allclose(fn(value), [sc.erfcx(value)] * 2, rtol=1e-15)


def test_special_functions_of_mostly_distinct_data_stay_whole():
    # a Gather would cost about what the smaller call saves
    a = pt.dscalar("a")
    data = np.random.default_rng(5).normal(size=5000)
    fn = pytensor.function([a], pt.gammaln(data**2 + a), mode="ONNX")
    assert elements_computed(fn, ps.GammaLn) == data.size


def gp_like_cholesky_factors(dtype):
    # PyMC's raveled inputs read a scalar as ``joined[:1]`` reshaped to ``()``
    # in the log-density and as ``joined[0]`` in its gradient; ``exp(...)``
    # of the second has another client, so PyTensor leaves it as
    # ``exp(joined[0])[None, None]`` beside ``exp(joined[0][None, None])``
    joined = pt.vector("joined", dtype=dtype, shape=(2,))
    distances = (np.subtract.outer(np.arange(6.0), np.arange(6.0)) ** 2).astype(dtype)
    jitter = (1e-6 * np.eye(6)).astype(dtype)
    read_as_slice = pt.exp(joined[:1].reshape(()))
    read_as_index = pt.exp(joined[0])
    factors = [
        pt.linalg.cholesky(pt.exp(-0.5 * distances / lengthscale**2) + jitter)
        for lengthscale in (read_as_slice, read_as_index)
    ]
    outputs = [
        pt.log(pt.diagonal(factors[0])).sum(),
        pt.linalg.solve_triangular(factors[1], np.ones(6, dtype), lower=True),
        read_as_index * joined[1],
    ]
    return [joined], outputs, [np.array([0.3, 2.0], dtype)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_value_read_through_a_slice_and_an_index_is_factored_once(dtype):
    inputs, outputs, values = gp_like_cholesky_factors(dtype)
    fn, _ = compare_onnx_and_py(inputs, outputs, values)
    factorizations = [
        node
        for node in fn.maker.fgraph.apply_nodes
        if isinstance(node.op, Cholesky)
        or isinstance(getattr(node.op, "core_op", None), Cholesky)
    ]
    assert len(factorizations) == 1


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_what_reads_a_value_shuffled_before_or_after_is_computed_once(dtype):
    # ``scaled`` has a client besides the ``DimShuffle``, so PyTensor does not
    # lift that through it, and the two ``gammaln`` calls read different forms
    x = pt.scalar("x", dtype=dtype)
    matrix = pt.matrix("matrix", dtype=dtype, shape=(2, 3))
    scaled = pt.exp(x) * 2.5
    outputs = [
        scaled,
        pt.gammaln(scaled[None, None] + matrix),
        pt.gammaln(pt.exp(x[None, None]) * 2.5 + matrix),
    ]
    values = cast_all([0.7, np.arange(6.0).reshape(2, 3)], dtype)
    fn, _ = compare_onnx_and_py([x, matrix], outputs, values)
    assert elements_computed(fn, ps.GammaLn) == 6


def unit_slice_of(name):
    """A ``DimShuffle`` dropping an axis that a slice of ``x`` cut to one row."""
    x = pt.dmatrix("x", shape=(4, 5))
    column = pt.dmatrix("column", shape=(4, 1))
    if name == "axis never indexed":
        return column, column[1:3].dimshuffle(0)
    return x, {
        "start": x[1:2].dimshuffle(1),
        "negative start": x[-1:].dimshuffle("x", 1),
        "no start": x[:1].dimshuffle(1, "x"),
        "step of one": x[2:3:1].dimshuffle(1),
        "both axes": x[3:, 1:2].dimshuffle(("x",)),
        "transposed": x[1:3, 4:].dimshuffle("x", 0),
        "negative step": x[:-2:-1].dimshuffle(1),
        "after an index": x[2, 1:2].dimshuffle(()),
    }[name]


@pytest.mark.parametrize(
    "name",
    [
        "start",
        "negative start",
        "no start",
        "step of one",
        "both axes",
        "transposed",
        "negative step",
        "after an index",
        "axis never indexed",
    ],
)
def test_a_slice_of_one_row_dropped_keeps_its_values(name):
    x, output = unit_slice_of(name)
    value = np.arange(np.prod(x.type.shape), dtype="float64").reshape(x.type.shape)
    compare_onnx_and_py([x], [output * 1.5], [value])


def test_a_slice_of_one_row_beside_a_symbolic_slice():
    x = pt.dmatrix("x", shape=(4, 5))
    start, stop = pt.iscalars("start", "stop")
    output = x[start:stop, 2:3].dimshuffle(0) * 1.5
    values = [np.arange(20.0).reshape(4, 5), np.int32(1), np.int32(3)]
    compare_onnx_and_py([x, start, stop], [output], values)


@given(
    start=st.none() | st.integers(-7, 7),
    stop=st.none() | st.integers(-7, 7),
    step=st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3]),
)
def test_any_slice_of_one_element_matches_python(start, stop, step):
    v = pt.dvector("v", shape=(6,))
    sliced = v[start:stop:step]
    if sliced.type.shape != (1,):
        return
    output = pt.exp(sliced.dimshuffle("x", "x")) + pt.exp(v[5])
    compare_onnx_and_py([v], [output], [np.linspace(-1.0, 1.0, 6)])


EXCLUDING_UNREGISTERED_NAMES = """
import pytensor
import pytensor.tensor as pt

x, y, a = pt.vector("x"), pt.vector("y"), pt.scalar("a")
pytensor.function([x, y, a], x - a * y, mode="ONNX")
import pytensor.sparse  # registers its rewrites by name after the compile
"""


def test_the_mode_leaves_rewrites_that_register_later_registrable():
    """Excluding a rewrite by a name that is not yet registered creates that
    name in ``optdb`` (a defaultdict), and the module that registers it later
    (``pytensor.sparse``: ``local_usmm``) fails to import."""
    result = subprocess.run(
        [sys.executable, "-c", EXCLUDING_UNREGISTERED_NAMES],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "already present in the database" not in result.stderr


def broadcast_sums():
    # gradients of parameters broadcast against data: sums of an alloc or of
    # a second, over axes the summed array already has in full
    a = pt.dmatrix("a", shape=(3, 1))
    v = pt.tensor3("v", shape=(3, 5, 1), dtype="float64")
    data = pt.constant(np.linspace(-1.0, 2.0, 40).reshape(1, 40))
    outputs = [
        pt.second(a, data).sum(axis=1),
        pt.alloc(v, 3, 5, 4).sum(axis=1),
        pt.alloc(v, 3, 5, 4).sum(axis=(0, 1)),
        pt.alloc(v, 3, 5, 4).sum(axis=2),
    ]
    values = [
        np.array([[0.5], [1.0], [-2.0]]),
        np.linspace(0.0, 1.0, 15).reshape(3, 5, 1),
    ]
    return [a, v], outputs, values


def test_sums_of_broadcast_arrays_keep_their_values():
    inputs, outputs, values = broadcast_sums()
    compare_onnx_and_py(inputs, outputs, values)


def test_sums_of_broadcast_arrays_sum_before_broadcasting():
    inputs, outputs, _ = broadcast_sums()
    fn = pytensor.function(inputs, outputs[:3], mode="ONNX")
    sums = [node for node in fn.maker.fgraph.apply_nodes if isinstance(node.op, Sum)]
    assert all(node.inputs[0].owner is None for node in sums)


def chains_of_a_random_walk():
    # a time series' innovations (a split and a join of one vector) evaluated
    # for 3 chains at once
    x = pt.dvector("x", shape=(6,))
    first, rest = pt.split(x, [1, 5], n_splits=2)
    steps = pt.concatenate([first, rest[1:] - rest[:-1]])
    chains = pt.dmatrix("chains", shape=(3, 6))
    [batched] = vectorize_graph([steps], replace={x: chains})
    return [chains], [batched], [np.arange(18.0).reshape(3, 6) ** 1.5]


def chains_of_a_simplex():
    # a simplex transform's stick appends a constant to each chain's values
    x = pt.dvector("x", shape=(4,))
    stick = pt.concatenate([pt.cumsum(x), np.zeros(1)])
    probabilities = pt.special.softmax(stick)
    chains = pt.dmatrix("chains", shape=(3, 4))
    [batched] = vectorize_graph([probabilities], replace={x: chains})
    return [chains], [batched], [np.linspace(-1.0, 2.0, 12).reshape(3, 4)]


def test_a_join_of_chains_and_a_constant_keeps_its_values_with_no_batch_loop():
    fn, _ = compare_onnx_and_py(*chains_of_a_simplex())
    ops = [type(node.op) for node in fn.maker.fgraph.apply_nodes]
    assert Blockwise not in ops


def test_joins_and_splits_for_chains_keep_their_values():
    compare_onnx_and_py(*chains_of_a_random_walk())


def test_joins_and_splits_for_chains_become_one_join_and_one_split():
    inputs, outputs, _ = chains_of_a_random_walk()
    fn = pytensor.function(inputs, outputs, mode="ONNX")
    ops = [type(node.op) for node in fn.maker.fgraph.apply_nodes]
    assert Blockwise not in ops


def chains_indexing_by_data(dtype, x_batch, y_core_shape, x_core_shape=(6,)):
    # a hierarchical model's a[county] and its gradient evaluated for 3
    # chains: the index data gets a batch axis of length 1
    x = pt.tensor("x", dtype=dtype, shape=x_core_shape)
    y = pt.tensor("y", dtype=dtype, shape=y_core_shape)
    index = pt.lvector("index", shape=(8,))
    set_rows = AdvancedIncSubtensor1(set_instead_of_inc=True)
    core = [
        advanced_subtensor1(x, index),
        advanced_inc_subtensor1(x, y, index),
        set_rows(x, y, index),
    ]
    xs = pt.tensor("xs", dtype=dtype, shape=(x_batch, *x_core_shape))
    ys = pt.tensor("ys", dtype=dtype, shape=(3, *y_core_shape))
    indices = pt.lmatrix("indices", shape=(1, 8))
    outputs = vectorize_graph(core, replace={x: xs, y: ys, index: indices})
    rng = np.random.default_rng(24)
    values = [
        rng.normal(size=xs.type.shape).astype(dtype),
        rng.normal(size=ys.type.shape).astype(dtype),
        np.array([[0, 5, -1, 2, 0, -6, 3, 5]]),
    ]
    return [xs, ys, indices], outputs, values


def loops_in(graph):
    return [node for node in graph.node if node.op_type == "Loop"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "x_batch, y_core_shape, x_core_shape",
    [
        (3, (8,), (6,)),
        (1, (8,), (6,)),
        (3, (), (6,)),
        (3, (8, 2), (6, 2)),
        (3, (2,), (6, 2)),
    ],
    ids=["rows", "x broadcast", "scalar update", "matrix rows", "row update"],
)
def test_indexing_by_data_for_chains_is_one_gather_and_one_scatter(
    dtype, x_batch, y_core_shape, x_core_shape
):
    inputs, outputs, values = chains_indexing_by_data(
        dtype, x_batch, y_core_shape, x_core_shape
    )
    fn, _ = compare_onnx_and_py(inputs, outputs, values)
    assert not loops_in(onnx_model_of(fn).graph)


def test_an_update_of_unknown_length_for_chains_still_refuses_to_broadcast():
    # AdvancedIncSubtensor1 raises where y of one element would be broadcast
    # to the index; the general increment the rewrite makes would broadcast
    x = pt.dvector("x", shape=(6,))
    y = pt.dvector("y")
    index = pt.lvector("index", shape=(8,))
    xs = pt.dmatrix("xs", shape=(3, 6))
    ys = pt.dmatrix("ys", shape=(3, None))
    indices = pt.lmatrix("indices", shape=(1, 8))
    [out] = vectorize_graph(
        [advanced_inc_subtensor1(x, y, index)],
        replace={x: xs, y: ys, index: indices},
    )
    fn, _ = compare_onnx_and_py(
        [xs, ys, indices],
        [out],
        [np.zeros((3, 6)), np.ones((3, 8)), np.array([[0, 5, -1, 2, 0, -6, 3, 5]])],
    )
    with pytest.raises(ValueError, match="Runtime broadcasting not allowed"):
        fn(np.zeros((3, 6)), np.ones((3, 1)), np.zeros((1, 8), dtype="int64"))
