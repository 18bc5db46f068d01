from functools import cache, partial

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
import scipy.special as sc
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from pytensor.compile.mode import get_mode

import pytensor
from pytensor.link.onnx.dispatch.special import XlogX
from tests.link.onnx.utils import (
    STATIC_SIZES,
    assert_same_values,
    compare_elementwise_at_size,
    compare_onnx_and_py,
    elementwise_function,
    no_rewrites,
)


EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, -1e-300]
EDGES += [1e-20, -1e-20, 0.5, -0.5, 1.0, -1.0, 2.0, 3.0, -3.0, 1e300, -1e300]

# Values where each function changes method, meets a pole, a zero or the edge
# of its domain, overflows or underflows, on top of EDGES.
CASES = {
    "gammaln": (
        pt.gammaln,
        [
            *(-34.0, -34.5, -33.9, 12.9, 13.0, 171.7, 2.556348e305, 2.6e305),
            -2.4570247,
            # where 1 / x overflows (SciPy: inf) but 1 / (x (x + 1) (x + 2)) not
            *(-3.85059918e-309, -5.562684646268e-309, -5.5626846462681e-309),
        ],
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


# The functions converted by another algorithm for few values (a static size
# up to 64) and one value (see dispatch.special.SMALL_VARIANTS): each test
# over the values of a domain runs for those sizes too.
WITH_SMALL_VARIANTS = ["gammaln", "psi", "tri_gamma", "erfcx"]
NAMES_AND_SIZES = [
    *((name, "symbolic") for name in CASES),
    *((name, size) for name in WITH_SMALL_VARIANTS for size in STATIC_SIZES),
]
# The dense grids are evaluated one value a call at every ONE_VALUE_STRIDE-th
# value: "few" runs the same formulas on every value, and "one" the methods
# each in an If branch.
ONE_VALUE_STRIDE = 16


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
@pytest.mark.parametrize("name, size", NAMES_AND_SIZES)
def test_edge_values(name, size, dtype):
    function, cases = CASES[name]
    values = as_dtype(EDGES + cases, dtype)
    atol = FLOAT64_ATOL[name] if dtype == "float64" else 0.0
    compare_elementwise_at_size(
        function,
        values,
        size,
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
@pytest.mark.parametrize("name, size", NAMES_AND_SIZES)
def test_accuracy_over_the_domain(name, size, dtype):
    fn = elementwise_function(CASES[name][0], dtype, size)
    grid = as_dtype(domain_grid(name), dtype)
    if size == "one":
        grid = grid[::ONE_VALUE_STRIDE]
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


@pytest.mark.parametrize("size", STATIC_SIZES)
def test_gammaln_and_psi_are_relatively_accurate_for_positive_arguments(size):
    # The absolute tolerance above is needed only on the negative axis and
    # next to gammaln's zeros at 1 and 2.
    values = np.concatenate(
        [np.logspace(-300, 300, 10_001), np.linspace(2.1, 50, 10_001)]
    )
    values = values[(values < 0.9) | (values > 2.1)]
    if size == "one":
        values = values[::ONE_VALUE_STRIDE]
    gammaln = elementwise_function(pt.gammaln, "float64", size)(values)
    psi = elementwise_function(pt.psi, "float64", size)(values)
    np.testing.assert_allclose(gammaln, sc.gammaln(values), rtol=2e-15, atol=0)
    np.testing.assert_allclose(psi, sc.psi(values), rtol=2e-15, atol=0)


ELEMENTS = {
    "erfinv": st.floats(-1, 1),
    "erfcinv": st.floats(0, 2),
}


@cache
def onnx_function(name, size):
    return elementwise_function(CASES[name][0], "float64", size)


@pytest.mark.parametrize("name, size", NAMES_AND_SIZES)
@given(data=st.data())
def test_matches_scipy_on_any_float64(name, size, data):
    elements = ELEMENTS.get(
        name, st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
    )
    values = data.draw(arrays(np.float64, st.integers(0, 10), elements=elements))
    with np.errstate(all="ignore"):
        expected = REFERENCES[name](values)
    result = onnx_function(name, size)(values)
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


# Incomplete gamma and beta functions

EPS = 2.0**-52
INCOMPLETE_GAMMA = {
    "gammainc": pt.gammainc,
    "gammaincc": pt.gammaincc,
    "gammal": pt.gammal,
    "gammau": pt.gammau,
}
# Where each method of Cephes' igam / igamc starts or ends, on top of the edges
GAMMA_EDGES = [0.0, -0.0, 1e-300, 1e-10, 0.3, 0.5, 1.0, 1.05, 1.1, 2.0, 19.9, 20.0]
GAMMA_EDGES += [20.5, 150.0, 199.9, 200.0, 200.1, 1e4, 1e6, 1e15, 1e300, np.inf]
GAMMA_EDGES += [-1.0, -np.inf, np.nan]


def grid(*axes, dtype="float64"):
    """Every combination of the values of ``axes``, one flat array per axis."""
    return [as_dtype(v.ravel(), dtype) for v in np.meshgrid(*axes, indexing="ij")]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", INCOMPLETE_GAMMA)
def test_incomplete_gamma_edge_values(name, dtype):
    k, x = pt.vector("k", dtype=dtype), pt.vector("x", dtype=dtype)
    values = grid(GAMMA_EDGES, [*GAMMA_EDGES, 5e-324], dtype=dtype)
    compare_onnx_and_py(
        [k, x],
        INCOMPLETE_GAMMA[name](k, x),
        values,
        assert_fn=partial(assert_same_values, atol=SUBNORMAL_ATOL[dtype]),
    )


@pytest.mark.xfail(
    strict=True,
    reason="At a subnormal k, gammaincc(k, 1) rounds to -5e-324 instead of 0, "
    "so gammau(k, 1) = gammaincc(k, 1) * inf is -inf instead of NaN.",
)
def test_upper_incomplete_gamma_of_subnormal_k():
    k, x = pt.dvectors("k", "x")
    compare_onnx_and_py([k, x], pt.gammau(k, x), [np.array([5e-324]), np.ones(1)])


def gamma_tolerance(a, x):
    """The accuracy of SciPy's own ``gammainc``: 1e-12, and in the tails an
    ulp of the largest term of the exponent ``a log(x) - x - log Γ(a)``, which
    SciPy and onnxruntime's Log round differently."""
    with np.errstate(all="ignore"):
        terms = [np.abs(a * np.log(x)), x, np.abs(sc.gammaln(a))]
    return 1e-12 + 2 * EPS * np.maximum.reduce(terms)


def assert_within(result, expected, rtol):
    """``|result - expected| <= rtol * |expected|``, elementwise ``rtol``, NaN == NaN."""
    both_nan = np.isnan(result) & np.isnan(expected)
    with np.errstate(invalid="ignore"):
        close = np.abs(result - expected) <= rtol * np.abs(expected)
    assert (close | both_nan | (result == expected)).all(), (
        result[~close],
        expected[~close],
    )


def test_incomplete_gamma_accuracy_over_the_domain():
    # a log-spaced in [1e-3, 1e4]; x from 1e-3 a to 10 a, close to a (where
    # the asymptotic series is used) and log-spaced in [1e-5, 1e5]
    a, x = pt.dvectors("a", "x")
    fn = pytensor.function([a, x], [pt.gammainc(a, x), pt.gammaincc(a, x)], mode="ONNX")
    shapes = np.logspace(-3, 4, 71)
    ratios = np.concatenate([np.logspace(-3, 1, 81), np.linspace(0.5, 1.5, 41)])
    a_near, ratio = grid(shapes, ratios)
    a_far, x_far = grid(shapes, np.logspace(-5, 5, 101))
    a_values = np.concatenate([a_near, a_far])
    x_values = np.concatenate([a_near * ratio, x_far])
    lower, upper = fn(a_values, x_values)
    rtol = gamma_tolerance(a_values, x_values)
    assert_within(lower, sc.gammainc(a_values, x_values), rtol)
    assert_within(upper, sc.gammaincc(a_values, x_values), rtol)
    # 1e-12 where the results are not in the far tails
    for result, expected in [(lower, sc.gammainc), (upper, sc.gammaincc)]:
        expected = expected(a_values, x_values)
        moderate = expected > 1e-20
        assert_within(result[moderate], expected[moderate], 1e-12)


@cache
def incomplete_gamma_function():
    a, x = pt.dvectors("a", "x")
    return pytensor.function(
        [a, x], [pt.gammainc(a, x), pt.gammaincc(a, x)], mode="ONNX"
    )


# Elements for Hypothesis arrays: any float64, or parameters of the domain
ANY_OR_IN_DOMAIN = st.sampled_from(
    [
        st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=False),
        st.floats(1e-3, 1e4),
    ]
)


@given(
    data=st.data(),
    elements=ANY_OR_IN_DOMAIN,
)
def test_incomplete_gamma_matches_scipy_on_any_float64(data, elements):
    shape = data.draw(st.integers(0, 8))
    a = data.draw(arrays(np.float64, shape, elements=elements))
    x = data.draw(arrays(np.float64, shape, elements=elements))
    lower, upper = incomplete_gamma_function()(a, x)
    with np.errstate(all="ignore"):
        rtol = gamma_tolerance(a, x)
    assert_within(lower, sc.gammainc(a, x), rtol)
    assert_within(upper, sc.gammaincc(a, x), rtol)


BETA_PARAMETERS = [0.0, 1e-300, 1e-3, 0.5, 1.0, 2.0, 1e4, np.inf, -1.0, np.nan]
BETA_X = [0.0, -0.0, 1e-300, 1e-10, 0.3, 0.5, 0.95, 0.999, 1.0, 1.5, -0.5]
BETA_X += [np.inf, np.nan]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_betainc_edge_values():
    # SciPy flushes results below the smallest normal float to 0
    a, b, x = pt.dvectors("a", "b", "x")
    compare_onnx_and_py(
        [a, b, x],
        pt.betainc(a, b, x),
        grid(BETA_PARAMETERS, BETA_PARAMETERS, BETA_X),
        assert_fn=partial(assert_same_values, atol=2.0**-1022),
    )


def test_betainc_of_subnormal_x_and_parameters():
    # SciPy (Boost) rounds x * (a + b + g - 1/2) / (a + g - 1/2) to a
    # subnormal float (a relative error of 1e-4 at x = 5e-324) and treats
    # subnormal parameters as 0: compare with closed forms instead. The
    # results are exponentials of exponents down to -372, rounded to 1e-13.
    tiny = np.array([5e-324, 1e-310, 1e-300, 0.3])
    ones = np.ones_like(tiny)
    a, b, x = pt.dvectors("a", "b", "x")
    fn = pytensor.function([a, b, x], pt.betainc(a, b, x), mode="ONNX")
    square_root = np.sqrt(tiny)
    np.testing.assert_allclose(fn(0.5 * ones, ones, tiny), square_root, rtol=1e-13)
    np.testing.assert_allclose(
        fn(0.5 * ones, 2 * ones, tiny), square_root * (1.5 - 0.5 * tiny), rtol=1e-13
    )
    np.testing.assert_allclose(
        fn(ones, 3 * ones, tiny),
        -np.expm1(3 * np.log1p(-tiny)),
        rtol=1e-13,
        atol=1e-323,
    )
    # the limits a -> 0 (1), b -> 0 (0), and b / (a + b) for both
    subnormal = np.array([5e-324, 1e-310])
    halves = np.full(2, 0.5)
    np.testing.assert_array_equal(fn(subnormal, halves, halves), [1.0, 1.0])
    np.testing.assert_array_equal(fn(halves, subnormal, halves), [0.0, 0.0])
    np.testing.assert_array_equal(
        fn(subnormal, subnormal[::-1], halves),
        subnormal[::-1] / (subnormal + subnormal[::-1]),
    )


# Boost's power terms lose their accuracy in SciPy below about 1e-260
BETA_RESULT_FLOOR = 1e-250


def beta_tolerance(a, b, x):
    """2e-12, as Cephes' continued fraction for x above the mean runs on 1 - x
    rounded, and in the tails 4 ulps of the largest term of the exponent
    ``a log(x) + b log(1 - x) - log B(a, b)``, which SciPy rounds differently."""
    with np.errstate(all="ignore"):
        terms = [np.abs(a * np.log(x)), np.abs(b * np.log1p(-x))]
    return 2e-12 + 4 * EPS * np.maximum(*terms)


def beta_grid():
    """a and b log-spaced in [1e-3, 1e4]; x in [0, 1], and close to the mean."""
    parameters = np.logspace(-3, 4, 36)
    xs = np.concatenate([np.linspace(0.001, 0.999, 25), [1e-10, 1e-5, 1 - 1e-5]])
    a, b, x = grid(parameters, parameters, xs)
    rng = np.random.default_rng(1)
    a_mean, b_mean = grid(parameters, parameters)
    mean = a_mean / (a_mean + b_mean)
    near_mean = mean * (1 + rng.normal(0, 0.05, (8, mean.size)))
    a = np.concatenate([a, np.tile(a_mean, 8)])
    b = np.concatenate([b, np.tile(b_mean, 8)])
    return a, b, np.concatenate([x, np.clip(near_mean, 0, 1).ravel()])


def test_betainc_accuracy_over_the_domain():
    a, b, x = pt.dvectors("a", "b", "x")
    fn = pytensor.function([a, b, x], pt.betainc(a, b, x), mode="ONNX")
    a_values, b_values, x_values = beta_grid()
    result = fn(a_values, b_values, x_values)
    expected = sc.betainc(a_values, b_values, x_values)
    above = expected > BETA_RESULT_FLOOR
    rtol = beta_tolerance(a_values, b_values, x_values)
    assert_within(result[above], expected[above], rtol[above])
    assert (result[~above] < 1e-240).all()
    moderate = expected > 1e-20
    assert_within(result[moderate], expected[moderate], 2e-12)


@cache
def betainc_function():
    a, b, x = pt.dvectors("a", "b", "x")
    return pytensor.function([a, b, x], pt.betainc(a, b, x), mode="ONNX")


@given(data=st.data())
def test_betainc_matches_scipy_on_any_float64(data):
    shape = data.draw(st.integers(0, 8))
    a, b = (
        data.draw(arrays(np.float64, shape, elements=st.floats(1e-3, 1e4)))
        for _ in "ab"
    )
    # SciPy loses its accuracy for subnormal x (see above)
    unit = st.floats(0, 1, allow_subnormal=False)
    x = data.draw(arrays(np.float64, shape, elements=unit))
    result = betainc_function()(a, b, x)
    expected = sc.betainc(a, b, x)
    above = expected > BETA_RESULT_FLOOR
    assert_within(result[above], expected[above], beta_tolerance(a, b, x)[above])


def test_betainc_accuracy_beyond_the_domain():
    # For parameters in [1e4, 1e6], the continued fraction runs on 1 - x
    # rounded next to 1, where the distribution is concentrated (1.4e-10
    # measured on 2e5 points).
    rng = np.random.default_rng(4)
    a, b = 10 ** rng.uniform(-3, 6, (2, 2000))
    a[::2], b[1::2] = 10 ** rng.uniform(4, 6, (2, 1000))
    mean = a / (a + b)
    x = np.clip(mean * (1 + rng.normal(0, 0.1, 2000)), 0, 1)
    expected = sc.betainc(a, b, x)
    above = expected > BETA_RESULT_FLOOR
    result = betainc_function()(a, b, x)
    assert_within(
        result[above], expected[above], 3e-10 + beta_tolerance(a, b, x)[above]
    )


@pytest.mark.xfail(
    strict=True,
    reason="Cephes' continued fraction needs more than 10000 steps for "
    "parameters beyond about 1e7 close to the mean (12128 for a = b = 1e10), and "
    "for b below 1e-3 with x next to 1 (4e5 for b = 1e-300): the converter "
    "returns NaN there, where SciPy (Boost) switches to other expansions.",
)
@pytest.mark.parametrize(
    "a, b, x", [(1e10, 1e10, 0.5), (1.0, 1e-300, 1 - 1e-10)], ids=["huge", "tiny-b"]
)
def test_betainc_beyond_the_continued_fraction(a, b, x):
    scalars = pt.dscalars("a", "b", "x")
    compare_onnx_and_py(
        scalars, pt.betainc(*scalars), [np.float64(v) for v in (a, b, x)]
    )


def test_float32_results_are_float64_results_rounded():
    # SciPy's float32 betainc runs Boost in float32 (a relative error of 7e-3
    # at a = b = 117, 0 for results below 1e-18): compare with float64 SciPy.
    a, b, x = (pt.vector(name, dtype="float32") for name in "abx")
    fn = pytensor.function(
        [a, b, x],
        [pt.gammainc(a, x), pt.gammaincc(b, x), pt.betainc(a, b, x)],
        mode="ONNX",
    )
    a_values, b_values, x_values = (v.astype("float32") for v in beta_grid())
    results = fn(a_values, b_values, x_values)
    exact = [v.astype("float64") for v in (a_values, b_values, x_values)]
    references = [
        sc.gammainc(exact[0], exact[2]),
        sc.gammaincc(exact[1], exact[2]),
        sc.betainc(*exact),
    ]
    for result, reference in zip(results, references, strict=True):
        assert result.dtype == "float32"
        np.testing.assert_allclose(
            result, reference.astype("float32"), rtol=2.0**-23, atol=2.0**-126
        )


def incomplete_functions_of(a, b, x):
    return [
        pt.gammainc(a, x),
        pt.gammaincc(b, x * 30),
        pt.gammal(a, x),
        pt.gammau(b, x),
        pt.betainc(a, b, x),
    ]


def incomplete_function_values(shapes, dtype):
    rng = np.random.default_rng(2)
    a, b = (rng.gamma(2.0, 2.0, size=shape).astype(dtype) for shape in shapes[:2])
    return [a, b, rng.uniform(0, 1, size=shapes[2]).astype(dtype)]


@pytest.mark.parametrize(
    "static_shapes, shapes",
    [
        (((None, 3), (3,), ()), ((2, 3), (3,), ())),
        (((2, 1), (1, 4), (4,)), ((2, 1), (1, 4), (4,))),
        (((), (), ()), ((), (), ())),
        (((None,), (1,), (None,)), ((0,), (1,), (0,))),
        (((0,), (0,), (0,)), ((0,), (0,), (0,))),
    ],
    ids=["symbolic", "broadcast", "0d", "empty", "static-empty"],
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_incomplete_functions_of_any_shape(static_shapes, shapes, dtype):
    a, b, x = (
        pt.tensor(name, shape=shape, dtype=dtype)
        for name, shape in zip("abx", static_shapes, strict=True)
    )
    compare_onnx_and_py(
        [a, b, x],
        incomplete_functions_of(a, b, x),
        incomplete_function_values(shapes, dtype),
    )


@pytest.mark.xfail(
    strict=True,
    reason="onnxruntime reuses a buffer of the wrong size when a static length "
    "of 0 (an input declared with dim_value 0) broadcasts against a length of "
    "1 known only at run time",
)
def test_incomplete_functions_of_static_empty_and_runtime_broadcast():
    a, b, x = (
        pt.tensor(name, shape=shape, dtype="float32")
        for name, shape in zip("abx", [(0,), (None,), (0,)], strict=True)
    )
    compare_onnx_and_py(
        [a, b, x],
        incomplete_functions_of(a, b, x),
        incomplete_function_values([(0,), (1,), (0,)], "float32"),
    )


@pytest.mark.parametrize(
    "dtypes",
    [
        ("int8", "int8", "int8"),
        ("int64", "uint8", "int32"),
        ("int16", "float32", "bool"),
    ],
)
def test_incomplete_functions_of_integers(dtypes):
    a, b, x = (
        pt.vector(name, dtype=dtype) for name, dtype in zip("abx", dtypes, strict=True)
    )
    values = [np.array([0, 1, 2, 5], dtype=dtype) for dtype in dtypes]
    compare_onnx_and_py(
        [a, b, x],
        [
            pt.gammainc(a, b),
            pt.gammaincc(a, x),
            pt.gammau(b, a),
            pt.betainc(a, b, x / 5),
        ],
        values,
    )


@pytest.mark.parametrize(
    "scalar_op, n_inputs",
    [
        (ps.gammainc, 2),
        (ps.gammaincc, 2),
        (ps.gammal, 2),
        (ps.gammau, 2),
        (ps.betainc, 3),
    ],
    ids=["gammainc", "gammaincc", "gammal", "gammau", "betainc"],
)
def test_incomplete_functions_in_scalar_graphs(scalar_op, n_inputs):
    # as in the inner graphs of Composites, on 0-d values
    inputs = [ps.float64(name) for name in "stu"[:n_inputs]]
    for values in [(0.5, 2.0, 0.3), (25.0, 24.0, 0.9), (3.0, 0.0, 1.0)]:
        test_values = [np.float64(v) for v in values[:n_inputs]]
        compare_onnx_and_py(inputs, scalar_op(*inputs), test_values)


def test_log_cdfs_as_pymc_builds_them():
    # Gamma and Beta log-CDFs as PyMC writes them, as the default rewrites
    # leave them, and as written (no rewrites)
    value, alpha, beta = pt.dvectors("value", "alpha", "beta")
    gamma_logcdf = pt.log(pt.gammainc(alpha, beta * value))
    beta_logcdf = pt.log(pt.betainc(alpha, beta, value))
    gamma_logsf = pt.log(pt.gammaincc(alpha, beta * value))
    outputs = [gamma_logcdf, beta_logcdf, gamma_logsf]
    rng = np.random.default_rng(3)
    n = 20
    test_values = [
        rng.uniform(0, 1, n),
        rng.gamma(2.0, size=n) + 1e-2,
        rng.gamma(3.0, size=n) * 100,
    ]
    for onnx_mode in (get_mode("ONNX"), no_rewrites):
        compare_onnx_and_py(
            [value, alpha, beta], outputs, test_values, onnx_mode=onnx_mode
        )


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


# Polygamma functions

POLYGAMMA_ORDERS = [0, 1, 2, 3, 4, 7, 30, -1]
# Negative non-integers, where SciPy's sum cancels, are in the accuracy test
POLYGAMMA_EDGES = [*EDGES, 0.3, 9.0, 10.5, 1e8, 1.1e8, 171.5]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", POLYGAMMA_ORDERS)
def test_polygamma_edge_values(n, dtype):
    x = pt.vector("x", dtype=dtype)
    compare_onnx_and_py(
        [x],
        pt.polygamma(n, x),
        [as_dtype(POLYGAMMA_EDGES, dtype)],
        assert_fn=partial(assert_same_values_and_zero_signs, atol=2e-14),
    )


@cache
def polygamma_function():
    x = pt.dvector("x")
    orders = POLYGAMMA_ORDERS[:-1]
    return pytensor.function([x], [pt.polygamma(n, x) for n in orders], mode="ONNX")


def test_polygamma_accuracy_over_the_domain():
    # For x < 0, SciPy sums the series from x up: its terms reach n! / d**(n+1),
    # d the distance of x to the nearest integer, and their rounding errors
    # stay in its result (for even n, near the half-integers, all of it). The
    # converter uses the reflection formula, and is as accurate as SciPy's
    # positive arguments there: compare within those rounding errors.
    positive = np.concatenate(
        [np.logspace(-300, 300, 4001), np.linspace(0.01, 40, 4001)]
    )
    negative = np.concatenate([-np.logspace(-300, 3, 2001), np.linspace(-40, 0, 4001)])
    grid = np.concatenate([positive, negative])
    is_positive = grid > 0
    distance = np.abs(grid - np.round(grid))[~is_positive]
    results = polygamma_function()(grid)
    with np.errstate(all="ignore"):
        for n, result in zip(POLYGAMMA_ORDERS, results, strict=False):
            expected = sc.polygamma(n, grid)
            assert_within(result[is_positive], expected[is_positive], 2e-15)
            if n < 2:  # psi and tri_gamma, tested above
                continue
            scipy_error = (n + 4) * EPS * sc.gamma(n + 1.0) / distance ** (n + 1.0)
            rtol = 4e-15 + np.nan_to_num(scipy_error / np.abs(expected[~is_positive]))
            assert_within(result[~is_positive], expected[~is_positive], rtol)


def test_polygamma_is_accurate_where_scipy_cancels():
    # At the half-integers cot(πx) = 0, and for even n the reflection formula
    # gives polygamma(n, x) = polygamma(n, 1 - x) exactly
    x = np.array([-14.5, -39.5, -0.5])
    for n, result in zip(POLYGAMMA_ORDERS, polygamma_function()(x), strict=False):
        if n >= 2 and n % 2 == 0:
            np.testing.assert_allclose(result, sc.polygamma(n, 1 - x), rtol=1e-14)


def test_polygamma_of_constant_order_arrays_and_gradients():
    # the order broadcasts against x; gradients of psi and tri_gamma build
    # polygamma(n + 1, x) from constants, as the default rewrites leave them
    x = pt.dmatrix("x")
    outputs = [
        pt.polygamma(np.array([[0], [2]], dtype="int8"), x[0]),
        pt.polygamma(np.array([1, 3, 1], dtype="int64"), x),
        pytensor.grad(pt.tri_gamma(x).sum(), x),
        pytensor.grad(pt.polygamma(3, x).sum(), x),
    ]
    values = np.array([[0.5, 3.0, -2.5], [40.0, 1e-3, 7.25]])
    compare_onnx_and_py([x], outputs, [values])


def test_polygamma_in_scalar_graphs_and_of_integers():
    s = ps.float64("s")
    for value in [0.7, -2.5, 25.0]:
        compare_onnx_and_py([s], ps.polygamma(2, s), [np.float64(value)])
    x = pt.vector("x", dtype="int16")
    compare_onnx_and_py(
        [x], pt.polygamma(2, x), [np.array([-3, 0, 1, 5, 300], dtype="int16")]
    )


def test_polygamma_of_a_variable_order_is_not_converted():
    n, x = pt.lscalar("n"), pt.dvector("x")
    with pytest.raises(NotImplementedError, match="constant order n"):
        pytensor.function([n, x], pt.polygamma(n, x), mode="ONNX")


# Inverses of the incomplete gamma and beta functions

INVERSE_GAMMA = {"gammaincinv": pt.gammaincinv, "gammainccinv": pt.gammainccinv}
INVERSE_SHAPES = [0.0, 1e-300, 1e-3, 0.5, 1.0, 2.0, 20.0, 1e4, 1e10, np.inf]
INVERSE_SHAPES += [-1.0, np.nan]
# y = 5e-324 is excluded: a subnormal y has one significant bit, and the
# inverse of it is all rounding (a relative 1.5e-8 from SciPy at a = 1e4)
INVERSE_Y = [0.0, -0.0, 1e-300, 1e-10, 0.3, 0.5, 0.9, 0.95, 1 - 1e-16, 1.0]
INVERSE_Y += [np.nan]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", INVERSE_GAMMA)
def test_inverse_incomplete_gamma_edge_values(name, dtype):
    a, y = pt.vector("a", dtype=dtype), pt.vector("y", dtype=dtype)
    values = grid(INVERSE_SHAPES, INVERSE_Y, dtype=dtype)
    # outside [0, 1], but for tiny a (see below), SciPy's result is NaN
    outside = grid([0.0, 0.5, 2.0, 1e4, np.inf, -1.0], [1.5, -0.5], dtype=dtype)
    values = [np.concatenate(pair) for pair in zip(values, outside, strict=True)]
    compare_onnx_and_py([a, y], INVERSE_GAMMA[name](a, y), values)


@pytest.mark.xfail(
    strict=True,
    reason="For y outside [0, 1] SciPy flags a domain error but goes on, and "
    "returns what Cephes' iteration gives (0 for a = 1e-300 or -0.0); the "
    "converter returns NaN.",
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_inverse_incomplete_gamma_outside_the_domain():
    a, y = pt.dvectors("a", "y")
    compare_onnx_and_py(
        [a, y], pt.gammaincinv(a, y), [np.array([1e-300, -0.0]), np.array([-0.5, 1.5])]
    )


@cache
def inverse_gamma_function():
    a, y = pt.dvectors("a", "y")
    return pytensor.function(
        [a, y], [pt.gammaincinv(a, y), pt.gammainccinv(a, y)], mode="ONNX"
    )


def inverse_gamma_tolerance(a):
    """1e-12, and 2e-15 / a for small a: P(a, x) ~ x**a / Γ(a + 1), so the
    inverse magnifies the rounding of the forward function by 1 / a."""
    return np.maximum(1e-12, 2e-15 / a)


def test_inverse_incomplete_gamma_accuracy_over_the_domain():
    # SciPy runs three Halley steps from DiDonato and Morris' starting point,
    # as the converter does: a log-spaced in [1e-3, 1e4], y on log grids
    # towards 0 and 1 and linear in between
    ys = [np.logspace(-300, -1, 60), np.linspace(0.01, 0.99, 50)]
    ys = np.concatenate([*ys, 1 - np.logspace(-16, -1, 40)])
    a, y = grid(np.logspace(-3, 4, 71), ys)
    lower, upper = inverse_gamma_function()(a, y)
    rtol = inverse_gamma_tolerance(a)
    assert_within(lower, sc.gammaincinv(a, y), rtol)
    assert_within(upper, sc.gammainccinv(a, y), rtol)


@given(
    data=st.data(),
    elements=ANY_OR_IN_DOMAIN,
)
def test_inverse_incomplete_gamma_matches_scipy(data, elements):
    shape = data.draw(st.integers(0, 8))
    a = data.draw(arrays(np.float64, shape, elements=elements))
    unit = st.floats(2.0**-1022, 1.0) | st.sampled_from([0.0, 1.0, np.nan])
    y = data.draw(arrays(np.float64, shape, elements=unit))
    lower, upper = inverse_gamma_function()(a, y)
    with np.errstate(all="ignore"):
        rtol = inverse_gamma_tolerance(a)
        assert_within(lower, sc.gammaincinv(a, y), rtol)
        assert_within(upper, sc.gammainccinv(a, y), rtol)


DBL_MIN = 2.0**-1022
BETA_INVERSE_PARAMETERS = [0.0, 1e-3, 0.5, 1.0, 2.0, 1e4, np.inf, -1.0, np.nan]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_betaincinv_edge_values():
    # Boost's closed forms at a or b = 1 and a = b = 1/2, its smallest result
    # DBL_MIN elsewhere, NaN for invalid and infinite parameters. At a = b =
    # 1e-3 the inverse magnifies the rounding of I_x(a, b) by about 1 / a.
    a, b, y = pt.dvectors("a", "b", "y")
    ys = [0.0, -0.0, 1e-100, 1e-10, 0.3, 0.5, 0.9, 1 - 1e-16, 1.0, 1.5, -0.5]
    compare_onnx_and_py(
        [a, b, y],
        pt.betaincinv(a, b, y),
        grid(BETA_INVERSE_PARAMETERS, BETA_INVERSE_PARAMETERS, [*ys, np.nan]),
        assert_fn=partial(assert_same_values, rtol=1e-11),
    )


@pytest.mark.xfail(
    strict=True,
    reason="SciPy's Boost returns NaN for some valid arguments (here a = 2, "
    "b = 1e4, y = 1e-200, and 48 of the 6525 points of the grid below), where "
    "the converter returns the root (1.414142856997849e-104).",
)
def test_betaincinv_where_scipy_fails():
    a, b, y = pt.dscalars("a", "b", "y")
    compare_onnx_and_py(
        [a, b, y], pt.betaincinv(a, b, y), [np.float64(v) for v in (2.0, 1e4, 1e-200)]
    )


@cache
def betaincinv_function():
    a, b, y = pt.dvectors("a", "b", "y")
    return pytensor.function([a, b, y], pt.betaincinv(a, b, y), mode="ONNX")


def beta_density_times_x(a, b, x):
    return np.exp(sc.xlogy(a, x) + sc.xlog1py(b - 1, -x) - sc.betaln(a, b))


def betaincinv_tolerance(a, b, y, x):
    """1e-11, and the relative change of x for a change of I_x(a, b) by 1e-13
    of the smaller of y and 1 - y (at least an ulp of y): the rounding of the
    forward function, which the inverse magnifies by ``I / (x I')``.

    SciPy's Boost stops Halley's iteration at about half the float64 digits,
    and the last step leaves up to 1e-11 (2e-9 in the complement 1 - y, where
    this converter matches the forward function to 2e-13)."""
    with np.errstate(all="ignore"):
        smaller = np.maximum(np.minimum(y, 1 - y), EPS * y)
        return 1e-11 + 1e-13 * smaller / beta_density_times_x(a, b, x)


def assert_is_inverse(a, b, y, x):
    """``I_x(a, b) = y``, or ``1 - I_x(a, b) = 1 - y`` for ``y > 1/2``, within
    the agreement of the forward function with SciPy's (2e-12) and the change
    of I_x(a, b) by an ulp of x, ``x I'(x) 2**-52``."""
    lower = y <= 0.5
    with np.errstate(all="ignore"):
        smaller = np.minimum(y, 1 - y)
        rtol = 2e-12 + 4 * EPS * beta_density_times_x(a, b, x) / smaller
    assert_within(sc.betainc(a, b, x)[lower], y[lower], rtol[lower])
    assert_within(sc.betaincc(a, b, x)[~lower], 1 - y[~lower], rtol[~lower])


def beta_inverse_grid():
    parameters = np.logspace(-3, 4, 15)
    ys = [np.logspace(-250, -1, 12), np.linspace(0.01, 0.99, 9)]
    ys = np.concatenate([*ys, 1 - np.logspace(-16, -1, 8)])
    return grid(parameters, parameters, ys)


def test_betaincinv_accuracy_over_the_domain():
    a, b, y = beta_inverse_grid()
    result = betaincinv_function()(a, b, y)
    expected = sc.betaincinv(a, b, y)
    # where SciPy's inverse misses y by far, its result is not an inverse:
    # Boost gives NaN or stops early (at a = 3.2, b = 3.2e-3, y = 4.3e-56
    # I_x(a, b) is 4.9e-57 at SciPy's x, 4.3e-56 at the converter's)
    # (roots below DBL_MIN are DBL_MIN, and roots within 2**-53 of 1 are 1)
    with np.errstate(all="ignore"):
        scipy_misses = ~np.isclose(sc.betainc(a, b, expected), y, rtol=1e-8, atol=0)
    scipy_misses &= ~((expected <= DBL_MIN) | (expected >= 1))
    assert scipy_misses.sum() <= 100  # 89 of 6525, 48 of them NaN
    fine = ~scipy_misses
    assert_within(
        result[fine],
        expected[fine],
        betaincinv_tolerance(a, b, y, expected)[fine],
    )
    # the converter's inverse everywhere: I_x(a, b) = y or 1 - I_x(a, b) = 1 - y
    root = (result > DBL_MIN) & (result < 1)  # else it rounds
    result, a, b, y = (v[root] for v in (result, a, b, y))
    assert_is_inverse(a, b, y, result)


@given(data=st.data())
def test_betaincinv_is_the_inverse_of_betainc(data):
    shape = data.draw(st.integers(0, 8))
    a, b = (
        data.draw(arrays(np.float64, shape, elements=st.floats(1e-3, 1e4)))
        for _ in "ab"
    )
    y = data.draw(arrays(np.float64, shape, elements=st.floats(1e-250, 1.0)))
    x = betaincinv_function()(a, b, y)
    root = (x > DBL_MIN) & (x < 1)  # else it rounds
    a, b, y, x = (v[root] for v in (a, b, y, x))
    assert_is_inverse(a, b, y, x)


def test_inverse_functions_float32_are_float64_results_rounded():
    # SciPy's float32 betaincinv runs Boost in float32: compare with float64
    a, b, y = (pt.vector(name, dtype="float32") for name in "aby")
    fn = pytensor.function(
        [a, b, y],
        [pt.gammaincinv(a, y), pt.gammainccinv(b, y), pt.betaincinv(a, b, y)],
        mode="ONNX",
    )
    values = [v.astype("float32") for v in beta_inverse_grid()]
    values[2] = np.clip(values[2], 1e-30, 1).astype("float32")
    exact = [v.astype("float64") for v in values]
    references = [
        sc.gammaincinv(exact[0], exact[2]),
        sc.gammainccinv(exact[1], exact[2]),
        sc.betaincinv(*exact),
    ]
    for result, reference in zip(fn(*values), references, strict=True):
        assert result.dtype == "float32"
        finite = np.isfinite(reference)
        np.testing.assert_allclose(
            result[finite], reference[finite].astype("float32"), rtol=2.0**-23, atol=0
        )


def inverse_functions_of(a, b, y):
    return [pt.gammaincinv(a, y), pt.gammainccinv(b, y), pt.betaincinv(a, b, y)]


@pytest.mark.parametrize(
    "static_shapes, shapes, dtype",
    [
        (((None, 3), (3,), ()), ((2, 3), (3,), ()), "float64"),
        (((None, 3), (3,), ()), ((2, 3), (3,), ()), "float32"),
        (((2, 1), (1, 4), (4,)), ((2, 1), (1, 4), (4,)), "float64"),
        (((), (), ()), ((), (), ()), "float32"),
        (((None,), (1,), (None,)), ((0,), (1,), (0,)), "float64"),
    ],
    ids=["symbolic", "symbolic-float32", "broadcast", "0d-float32", "empty"],
)
def test_inverse_functions_of_any_shape(static_shapes, shapes, dtype):
    a, b, y = (
        pt.tensor(name, shape=shape, dtype=dtype)
        for name, shape in zip("aby", static_shapes, strict=True)
    )
    # SciPy's float32 betaincinv runs Boost in float32
    compare_onnx_and_py(
        [a, b, y],
        inverse_functions_of(a, b, y),
        incomplete_function_values(shapes, dtype),
        assert_fn=partial(
            assert_same_values, rtol=1e-11 if dtype == "float64" else 1e-5
        ),
    )


def test_inverse_functions_of_integers_and_in_scalar_graphs():
    a, y = pt.vector("a", dtype="int32"), pt.dvector("y")
    compare_onnx_and_py(
        [a, y],
        [pt.gammaincinv(a, y), pt.gammainccinv(a, y), pt.betaincinv(a, a, y)],
        [np.array([0, 1, 2, 7], dtype="int32"), np.array([0.1, 0.5, 0.9, 1.0])],
        assert_fn=partial(assert_same_values, rtol=1e-11),
    )
    s, t, u = (ps.float64(name) for name in "stu")
    compare_onnx_and_py(
        [s, t, u],
        [ps.gammaincinv(s, u), ps.gammainccinv(t, u), ps.betaincinv(s, t, u)],
        [np.float64(2.5), np.float64(0.7), np.float64(0.3)],
        assert_fn=partial(assert_same_values, rtol=1e-11),
    )


def test_icdfs_as_pymc_builds_them():
    # Gamma and Beta quantile functions as PyMC writes them, and the gradient
    # of the Gamma one, with the default rewrites and with none
    q, alpha, beta = pt.dvectors("q", "alpha", "beta")
    gamma_icdf = pt.gammaincinv(alpha, q) / beta
    beta_icdf = pt.betaincinv(alpha, beta, q)
    outputs = [gamma_icdf, beta_icdf, pytensor.grad(gamma_icdf.sum(), q)]
    rng = np.random.default_rng(5)
    n = 20
    test_values = [
        rng.uniform(0, 1, n),
        rng.gamma(2.0, size=n) + 1e-2,
        rng.gamma(3.0, size=n) + 1e-2,
    ]
    for onnx_mode in (get_mode("ONNX"), no_rewrites):
        compare_onnx_and_py(
            [q, alpha, beta],
            outputs,
            test_values,
            onnx_mode=onnx_mode,
            assert_fn=partial(assert_same_values, rtol=1e-11),
        )


# Owen's T function

OWENS_T_H = [*EDGES, 0.02, 0.06, 0.09, 0.125, 0.26, 0.4, 0.6, 1.6, 1.7, 2.33, 2.4]
OWENS_T_H += [3.36, 3.4, 3.41, 4.8, 4.81, 0.67, 10.0, 38.0, 40.0, -6.0]
OWENS_T_A = [*EDGES, 0.025, 0.09, 0.15, 0.36, 0.5, 0.9, 0.99999, 1 / 0.99999, 1.1]
OWENS_T_A += [0.7, 1 / 0.9, 40.0, 1e5, -1e-5, 1.0 + 2.0**-52, 1.0 - 2.0**-53]


def owens_t_grid(dtype):
    h, a = np.meshgrid(OWENS_T_H, OWENS_T_A)
    return [as_dtype(h.ravel(), dtype), as_dtype(a.ravel(), dtype)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_owens_t_edge_values(dtype):
    # the bounds of Patefield and Tandy's regions in h and a, of the
    # reduction of |a| > 1 (a h = 0.67), ±0, ±inf, NaN, underflow
    h, a = pt.vector("h", dtype=dtype), pt.vector("a", dtype=dtype)
    compare_onnx_and_py(
        [h, a],
        pt.owens_t(h, a),
        owens_t_grid(dtype),
        assert_fn=partial(
            assert_same_values_and_zero_signs, atol=SUBNORMAL_ATOL["float64"]
        ),
    )


@pytest.mark.parametrize(
    "static_shapes, shapes",
    [
        (((None, 3), (3,)), ((2, 3), (3,))),
        (((2, 1), (1, 4)), ((2, 1), (1, 4))),
        (((), ()), ((), ())),
        (((None,), (1,)), ((0,), (1,))),
    ],
    ids=["symbolic", "broadcast", "0d", "empty"],
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_owens_t_of_any_shape(static_shapes, shapes, dtype):
    h, a = (
        pt.tensor(name, shape=shape, dtype=dtype)
        for name, shape in zip("ha", static_shapes, strict=True)
    )
    rng = np.random.default_rng(6)
    values = [(rng.normal(size=shape) * 3).astype(dtype) for shape in shapes]
    compare_onnx_and_py([h, a], pt.owens_t(h, a), values)


@pytest.mark.parametrize("dtypes", [("int8", "int8"), ("int64", "float32")])
def test_owens_t_of_integers_and_in_scalar_graphs(dtypes):
    h, a = (
        pt.vector(name, dtype=dtype) for name, dtype in zip("ha", dtypes, strict=True)
    )
    values = [np.array([-3, 0, 1, 2, 5], dtype=dtype) for dtype in dtypes]
    compare_onnx_and_py([h, a], pt.owens_t(h, a), values)
    s, t = ps.float64("s"), ps.float64("t")
    compare_onnx_and_py([s, t], ps.owens_t(s, t), [np.float64(1.5), np.float64(-0.3)])


@cache
def owens_t_function():
    h, a = pt.dvectors("h", "a")
    return pytensor.function([h, a], pt.owens_t(h, a), mode="ONNX")


# SciPy's Owen's T is Patefield and Tandy's algorithm, and so is the converter,
# which agrees with it to 4.4e-13 over these grids; the error is largest for
# h > 30, where SciPy rounds x * x in erfc(x) (the results are below 1e-200).
# Two methods magnify rounding differences, where the converter must round as
# SciPy: T3's recurrence next to a = 1 (8.6e-12 when onnxruntime drops its
# multiplications by coefficients within 1e-8 of 1), and T2's ndtr(a h) - 0.5
# for h > 4.8 and a h next to 0 (2.6e-12 if computed as erf(a h / √2) / 2).
# SciPy itself is not always that accurate: T(30.66, 1.00001) is 1.3% above
# the integral.
OWENS_T_RTOL = 1e-12
OWENS_T_MAGNIFIED = [(3.4000000000000004, 1.000010000100001), (4.958, 1.033e-5)]


def test_owens_t_accuracy_over_the_domain():
    rng = np.random.default_rng(7)
    n = 200_000
    h = 10 ** rng.uniform(-4, 1.65, n) * rng.choice([-1.0, 1.0], n)
    a = 10 ** rng.uniform(-5, 5, n) * rng.choice([-1.0, 1.0], n)
    a[: n // 4] = rng.uniform(0.98, 1.02, n // 4)
    h_grid, a_grid = np.meshgrid(np.linspace(0, 8, 161), np.linspace(0, 1.5, 151))
    h = np.concatenate([h, h_grid.ravel(), [x for x, _ in OWENS_T_MAGNIFIED]])
    a = np.concatenate([a, a_grid.ravel(), [y for _, y in OWENS_T_MAGNIFIED]])
    np.testing.assert_allclose(
        owens_t_function()(h, a),
        sc.owens_t(h, a),
        rtol=OWENS_T_RTOL,
        atol=SUBNORMAL_ATOL["float64"],
        strict=True,
    )


@given(
    values=arrays(
        np.float64,
        st.tuples(st.just(2), st.integers(0, 10)),
        elements=st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    )
)
def test_owens_t_matches_scipy_on_any_float64(values):
    h, a = values
    expected = sc.owens_t(h, a)
    result = owens_t_function()(h, a)
    np.testing.assert_allclose(
        result, expected, rtol=OWENS_T_RTOL, atol=SUBNORMAL_ATOL["float64"]
    )
    zeros = expected == 0
    np.testing.assert_array_equal(
        np.signbit(result[zeros]), np.signbit(expected[zeros])
    )


def test_skew_normal_logcdf_as_pymc_builds_it():
    # PyMC's SkewNormal logcdf and its gradients, as the default rewrites
    # leave them and as written
    value, mu, sigma, alpha = pt.dvectors("value", "mu", "sigma", "alpha")
    z = (value - mu) / sigma
    logcdf = pt.log(0.5 * pt.erfc(-z / np.sqrt(2)) - 2 * pt.owens_t(z, alpha))
    gradients = pytensor.grad(logcdf.sum(), [value, alpha])
    rng = np.random.default_rng(8)
    n = 20
    # its two terms cancel to the rounding error for z alpha << -1: keep
    # z alpha > -6, where the CDF loses at most 4 digits
    mu_values, sigma_values = rng.normal(size=n), rng.gamma(2.0, size=n) + 0.1
    z_values = rng.uniform(-2, 4, n)
    test_values = [
        mu_values + sigma_values * z_values,
        mu_values,
        sigma_values,
        rng.uniform(-3, 3, n),
    ]
    for onnx_mode in (get_mode("ONNX"), no_rewrites):
        compare_onnx_and_py(
            [value, mu, sigma, alpha],
            [logcdf, *gradients],
            test_values,
            onnx_mode=onnx_mode,
            # the log of a CDF next to 1 keeps the absolute error of its ulp;
            # the gradients divide by the CDF, which loses digits
            assert_fn=partial(assert_same_values, rtol=1e-11, atol=1e-15),
        )
