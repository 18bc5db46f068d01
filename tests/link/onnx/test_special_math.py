from functools import cache, partial

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
import scipy.special as sc
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import pytensor
from pytensor.link.onnx.dispatch.special_math import XlogX
from tests.link.onnx.test_basic import assert_same_values, compare_onnx_and_py


EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, -1e-300]
EDGES += [1e-20, -1e-20, 0.5, -0.5, 1.0, -1.0, 2.0, 3.0, -3.0, 1e300, -1e300]

# Values where each function changes method, meets a pole, a zero or the edge
# of its domain, overflows or underflows, on top of EDGES.
CASES = {
    "gammaln": (
        pt.gammaln,
        [-34.0, -34.5, -33.9, 12.9, 13.0, 171.7, 2.556348e305, 2.6e305, -2.4570247],
    ),
    "gamma": (
        pt.gamma,
        [-33.5, -33.0, 33.0, 33.5, 143.0, 143.1, 171.6, 171.7, -170.5, -171.5],
    ),
    "psi": (
        pt.psi,
        [-0.5040830082644554, -0.21, -0.8, 1.4616321449683623, 10.0, 10.5, 1e17],
    ),
    "tri_gamma": (pt.tri_gamma, [9.99, 10.0, 10.01, -0.5, -2.5, -1e6 - 0.5, 1e-160]),
    "erfcx": (pt.erfcx, [-27.0, -26.6, -6.0, 0.99, 1.0, 8.0, 49.9, 50.0, 1e307]),
    "erfinv": (pt.erfinv, [0.7293, 0.73, -0.73, 1 - 2.0**-53, 1.5, -1.5, 1e-300]),
    "erfcinv": (
        pt.erfcinv,
        [0.27, 0.2708, 1.7293, 1.73, 2 - 2.0**-52, 2.5, -0.5, 1e-310, 0.7],
    ),
    "log1mexp": (pt.log1mexp, [-0.6931471805599453, -0.69, -0.7, -40.0, -800.0]),
    "i0": (pt.i0, [7.99, 8.0, 8.01, 709.0, 710.0, 713.9, 714.0, -710.0]),
    "i1": (pt.i1, [7.99, 8.0, 8.01, 709.0, 710.0, 713.9, 714.0, -710.0]),
}


def log1mexp_reference(x):
    """PyTensor's Log1mexp.impl, vectorized."""
    with np.errstate(all="ignore"):
        return np.where(x < np.log(0.5), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def trigamma_reference(x):
    """SciPy's polygamma(1, x), through the reflection formula below -1e4.

    SciPy sums the series term by term from x up, which takes hours for
    large negative non-integers.
    """
    far = np.isfinite(x) & (x < -1e4)
    direct = sc.polygamma(1, np.where(far, 1.0, x))
    negative = np.where(far, x, -0.5)
    fraction = negative - np.round(negative)
    with np.errstate(all="ignore"):
        sin_pi_x = np.sin(np.pi * fraction)
        reflected = (np.pi / sin_pi_x) ** 2 - sc.polygamma(1, 1 - negative)
    return np.where(far, reflected, direct).astype(x.dtype)


REFERENCES = {
    "gammaln": sc.gammaln,
    "gamma": sc.gamma,
    "psi": sc.psi,
    "tri_gamma": trigamma_reference,
    "erfcx": sc.erfcx,
    "erfinv": sc.erfinv,
    "erfcinv": sc.erfcinv,
    "log1mexp": log1mexp_reference,
    "i0": sc.i0,
    "i1": sc.i1,
}

# Bounds of |result - SciPy| <= ATOL + RTOL * |SciPy| over the domain grids.
# gammaln and psi have zeros that SciPy resolves to an absolute, not relative,
# accuracy (gammaln has a relative error of 1e-11 next to 1 and 2 against
# mpmath, psi of 1 next to its zeros below -1). Below -1, gammaln uses the
# reflection formula, whose terms cancel next to negative integers to an
# absolute error of |gammaln(-x)| * 2**-52 at most (there the rounding of x
# itself changes the result by |psi(x)| * ulp(x), which is far more). erfcx is
# off by up to x**2 * 2**-53 for x < 0 in SciPy, which rounds x*x in exp(x*x).
FLOAT64_RTOL = dict.fromkeys(CASES, 2e-15) | {"erfcx": 2e-13}
FLOAT64_ATOL = dict.fromkeys(CASES, 0.0) | {"gammaln": 2e-14, "psi": 1e-14}
FLOAT32_RTOL = 1e-6
SUBNORMAL_ATOL = {"float64": 64 * 2.0**-1074, "float32": 8 * 2.0**-149}


def as_dtype(values, dtype):
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype="float64").astype(dtype)


def assert_same_values_and_zero_signs(onnx_value, py_value, **kwargs):
    assert_same_values(onnx_value, py_value, **kwargs)
    zeros = py_value == 0
    np.testing.assert_array_equal(
        np.signbit(onnx_value[zeros]), np.signbit(py_value[zeros])
    )


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("name", CASES)
def test_edge_values(name, dtype):
    function, cases = CASES[name]
    x = pt.vector("x", dtype=dtype)
    values = as_dtype(EDGES + cases, dtype)
    atol = FLOAT64_ATOL[name] if dtype == "float64" else 0.0
    compare_onnx_and_py(
        [x],
        function(x),
        [values],
        assert_fn=partial(assert_same_values_and_zero_signs, atol=atol),
    )


@pytest.mark.parametrize(
    "name, dtype",
    [
        ("gammaln", "int64"),
        ("gamma", "int8"),
        ("psi", "uint8"),
        ("tri_gamma", "int16"),
        ("erfcx", "int32"),
        ("i0", "uint16"),
    ],
)
def test_integer_inputs(name, dtype):
    x = pt.vector("x", dtype=dtype)
    info = np.iinfo(dtype)
    values = np.array([info.min, 0, 1, 2, 5, info.max], dtype=dtype)
    compare_onnx_and_py([x], CASES[name][0](x), [values])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", CASES)
def test_scalar_graphs(name):
    # The nodes of Composite inner graphs have scalar inputs and outputs: the
    # steps of the gamma functions go along a new axis of a 0-d value.
    s = ps.float64("s")
    scalar_op = CASES[name][0](pt.scalar()).owner.op.scalar_op
    for value in [-0.0, 0.7, -2.5, 25.0]:
        compare_onnx_and_py([s], scalar_op(s), [np.float64(value)])


def domain_grid(name):
    magnitudes = np.logspace(-300, 300, 20_001)
    grid = np.concatenate(
        [
            magnitudes,
            -magnitudes[magnitudes < 1e4] if name == "tri_gamma" else -magnitudes,
            np.linspace(-40, 40, 40_001),
            np.linspace(-200, 200, 20_001),
            np.linspace(0.9, 2.1, 10_001),
            [0.0, -0.0],
        ]
    )
    if name == "erfinv":
        near_one = 1 - np.logspace(-16, 0, 5_001)
        grid = np.concatenate([np.linspace(-1, 1, 40_001), near_one, -near_one])
        grid = np.concatenate([grid, magnitudes, -magnitudes])
    if name == "erfcinv":
        small = np.logspace(-320, 0, 10_001)
        grid = np.concatenate([np.linspace(0, 2, 40_001), small, 2 - small[-5_000:]])
    return grid


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", CASES)
def test_accuracy_over_the_domain(name, dtype):
    x = pt.vector("x", dtype=dtype)
    fn = pytensor.function([x], CASES[name][0](x), mode="ONNX")
    grid = as_dtype(domain_grid(name), dtype)
    with np.errstate(all="ignore"):
        expected = REFERENCES[name](grid)
    if dtype == "float64":
        rtol, atol = FLOAT64_RTOL[name], FLOAT64_ATOL[name]
    else:
        rtol, atol = FLOAT32_RTOL, 0.0
    np.testing.assert_allclose(
        fn(grid),
        expected,
        rtol=rtol,
        atol=max(atol, SUBNORMAL_ATOL[dtype]),
        strict=True,
    )


def test_gammaln_and_psi_are_relatively_accurate_for_positive_arguments():
    # The absolute tolerance above is needed only on the negative axis and
    # next to gammaln's zeros at 1 and 2.
    x = pt.dvector("x")
    fn = pytensor.function([x], [pt.gammaln(x), pt.psi(x)], mode="ONNX")
    values = np.concatenate(
        [np.logspace(-300, 300, 10_001), np.linspace(2.1, 50, 10_001)]
    )
    values = values[(values < 0.9) | (values > 2.1)]
    gammaln, psi = fn(values)
    np.testing.assert_allclose(gammaln, sc.gammaln(values), rtol=2e-15, atol=0)
    np.testing.assert_allclose(psi, sc.psi(values), rtol=2e-15, atol=0)


ELEMENTS = {
    "erfinv": st.floats(-1, 1),
    "erfcinv": st.floats(0, 2),
}


@cache
def onnx_function(name):
    x = pt.dvector("x")
    return pytensor.function([x], CASES[name][0](x), mode="ONNX")


@pytest.mark.parametrize("name", CASES)
@given(data=st.data())
def test_matches_scipy_on_any_float64(name, data):
    elements = ELEMENTS.get(
        name, st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
    )
    values = data.draw(arrays(np.float64, st.integers(0, 10), elements=elements))
    with np.errstate(all="ignore"):
        expected = REFERENCES[name](values)
    result = onnx_function(name)(values)
    np.testing.assert_allclose(
        result,
        expected,
        rtol=FLOAT64_RTOL[name],
        atol=max(FLOAT64_ATOL[name], SUBNORMAL_ATOL["float64"]),
    )
    zeros = expected == 0
    np.testing.assert_array_equal(
        np.signbit(result[zeros]), np.signbit(expected[zeros])
    )


@pytest.mark.parametrize("order", [0, 1, -1, [0, 1, -1, 1]])
@pytest.mark.parametrize("function", [pt.ive, pt.iv])
def test_bessel_functions_of_constant_orders(function, order):
    x = pt.dvector("x")
    # SciPy's own underflow thresholds and limits
    values = [0.0, -0.0, 5e-324, -1e-310, 7.844454502088054e-305, -7.85e-305, 1e-300]
    values += [1.0547686614862998e-154, -1.0547686614863e-154, 0.5, -3.0]
    values += [7.99, 8.01, 100.0, -700.0, 711.0, -713.9, 714.0, 2.0**30 - 0.5]
    values = np.array([*values, -(2.0**30), np.inf, -np.inf, np.nan])
    order = np.asarray(order, dtype="float64")
    if order.ndim:
        values = values[:4]
    compare_onnx_and_py(
        [x], function(order, x), [values], assert_fn=assert_same_values_and_zero_signs
    )


def test_bessel_functions_of_other_orders_are_not_converted():
    v, x = pt.dscalar("v"), pt.dvector("x")
    with pytest.raises(NotImplementedError, match="constant order v of -1, 0 or 1"):
        pytensor.function([v, x], pt.ive(v, x), mode="ONNX")
    with pytest.raises(NotImplementedError, match=r"not for \[2.0\]"):
        pytensor.function([x], pt.ive(2, x), mode="ONNX")


@pytest.mark.parametrize(
    "build",
    [
        lambda a, x: pt.gammainc(a, x),
        lambda a, x: pt.gammaincc(a, x),
        lambda a, x: pt.betainc(a, a, x),
    ],
    ids=["gammainc", "gammaincc", "betainc"],
)
def test_incomplete_gamma_and_beta_functions_are_not_converted(build):
    # Their series and continued fractions need a number of iterations that
    # grows with the parameters (an ONNX Loop); no fixed unrolling is exact.
    a, x = pt.dvectors("a", "x")
    with pytest.raises(NotImplementedError, match="ONNX Loop"):
        pytensor.function([a, x], build(a, x), mode="ONNX")


@pytest.mark.skipif(
    XlogX is None, reason="PyTensor 3 replaced XlogX and XlogY0 with xlogy"
)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_xlogx_and_xlogy0(dtype):
    from pytensor.tensor.xlogx import xlogx, xlogy0

    x, y = pt.vector("x", dtype=dtype), pt.vector("y", dtype=dtype)
    special = [0.0, -0.0, 1.0, 2.5, np.inf, np.nan, 1e-300, -1.0]
    if dtype == "int32":
        special = [0, 1, 3, -1]
    xs, ys = (as_dtype(v.ravel(), dtype) for v in np.meshgrid(special, special))
    compare_onnx_and_py(
        [x, y],
        [xlogx(x), xlogy0(x, y)],
        [xs, ys],
        assert_fn=assert_same_values_and_zero_signs,
    )


def poisson_logp(value, mu):
    return value * pt.log(mu) - mu - pt.gammaln(value + 1)


def gamma_logp(value, alpha, beta):
    return (
        alpha * pt.log(beta) - pt.gammaln(alpha) + (alpha - 1) * pt.log(value)
    ) - beta * value


def von_mises_logp(value, mu, kappa):
    return kappa * pt.cos(mu - value) - pt.log(2 * np.pi) - pt.log(pt.i0(kappa))


def test_log_densities_and_gradients_as_pymc_builds_them():
    # Poisson and Gamma log-densities and their gradients (psi, and tri_gamma
    # in the second derivative) and von Mises' (i0, i1), as the default
    # rewrites leave them.
    value, alpha, beta, mu, kappa = pt.dvectors("value", "alpha", "beta", "mu", "kappa")
    counts = pt.dvector("counts")
    poisson = poisson_logp(counts, mu).sum()
    gamma = gamma_logp(value, alpha, beta).sum()
    von_mises = von_mises_logp(value, mu, kappa).sum()
    d_alpha = pytensor.grad(gamma, alpha)
    outputs = [
        poisson,
        pytensor.grad(poisson, mu),
        gamma,
        d_alpha,
        pytensor.grad(d_alpha.sum(), alpha),
        von_mises,
        pytensor.grad(von_mises, kappa),
    ]
    rng = np.random.default_rng(1)
    n = 20
    test_values = [
        rng.gamma(2.0, size=n),
        rng.gamma(0.5, size=n) + 1e-3,
        rng.gamma(3.0, size=n),
        rng.gamma(4.0, size=n),
        rng.gamma(1.0, size=n) * 50,
        rng.poisson(7.0, size=n).astype("float64"),
    ]
    compare_onnx_and_py([value, alpha, beta, mu, kappa, counts], outputs, test_values)


def test_log1mexp_as_default_rewrites_leave_it():
    # fast_run turns log(1 - exp(x)) into log1mexp, which must stay accurate
    # where the naive formula returns log(0) or loses every digit.
    x = pt.dvector("x")
    fn = pytensor.function([x], pt.log(1 - pt.exp(x)), mode="ONNX")
    values = np.array([-1e-20, -1e-10, -0.5, -40.0, -800.0])
    np.testing.assert_allclose(
        fn(values), log1mexp_reference(values), rtol=1e-15, atol=0
    )
