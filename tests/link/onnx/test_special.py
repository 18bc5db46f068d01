from functools import cache

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
import scipy.special as sc
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from pytensor.compile.mode import Mode
from pytensor.tensor.elemwise import Elemwise

import pytensor
from pytensor.link.onnx.passes.graphs import nodes_run
from tests.link.onnx.utils import (
    STATIC_SIZES,
    assert_same_values,
    assert_within_node_budget,
    compare_elementwise_at_size,
    compare_onnx_and_py,
    elementwise_function,
    onnx_model_of,
)


py_mode = Mode(linker="py", optimizer=None)

EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-300, -1e-300]
EDGES += [1e-20, -1e-20, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 1e300, -1e300]

# Values where each function changes method, reaches a domain edge, overflows
# or underflows, on top of EDGES.
CASES = {
    "log1p": (pt.log1p, [-1.0, np.nextafter(-1.0, 0), -2.0, 1e-10, 7.0, 1e10]),
    "expm1": (pt.expm1, [-800.0, -40.0, -1e-10, 1e-10, 50.0, 709.7, 710.0]),
    "sin": (
        pt.sin,
        [np.pi, -np.pi, np.pi / 2, 2.0**27, np.nextafter(2.0**27, 0), 1e22],
    ),
    "cos": (
        pt.cos,
        [np.pi / 2, -np.pi / 2, np.pi, 2.0**27, np.nextafter(2.0**27, 0), 1e22],
    ),
    "tan": (pt.tan, [np.pi / 2, -np.pi / 2, np.pi, 100.0, 2.0**27, 1e22]),
    "arcsin": (pt.arcsin, [np.nextafter(1.0, 0), -np.nextafter(1.0, 0), 1.5]),
    "arccos": (pt.arccos, [np.nextafter(1.0, 0), np.nextafter(-1.0, 0), -1.5]),
    "arctan": (pt.arctan, [0.66, 2.414213562373095, 2.4142135623730954, 1e10]),
    "sinh": (pt.sinh, [22.0, -22.0, 710.0, -710.0, 711.0, 1e-10]),
    "cosh": (pt.cosh, [22.0, -22.0, 710.0, -710.0, 711.0]),
    "arcsinh": (pt.arcsinh, [2.0**28, -(2.0**28), 1e10, 1e-10]),
    "arccosh": (pt.arccosh, [np.nextafter(1.0, 2), 0.99, 2.0**28, 1e10]),
    "arctanh": (pt.arctanh, [np.nextafter(1.0, 0), -np.nextafter(1.0, 0), 1.5]),
    "erf": (pt.erf, [0.99, 1.01, 6.0, 27.0, -27.0]),
    "erfc": (pt.erfc, [0.99, 1.01, -1.01, 8.0, 10.0, 26.0, 26.6, 26.7, -30.0]),
    "sigmoid": (pt.sigmoid, [-800.0, -745.0, -709.0, -40.0, 40.0, 800.0]),
    "softplus": (pt.softplus, [-800.0, -40.0, -37.0, 17.9, 18.0, 33.3, 40.0, 800.0]),
}


@cache
def python_softplus(dtype):
    x = pt.vector("x", dtype=dtype)
    return pytensor.function([x], pt.softplus(x), mode=py_mode)


def softplus_reference(x):
    """PyTensor's own piecewise Softplus, as the Python linker evaluates it."""
    x = np.asarray(x)
    return python_softplus(str(x.dtype))(x)


REFERENCES = {
    "log1p": np.log1p,
    "expm1": np.expm1,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "arcsin": np.arcsin,
    "arccos": np.arccos,
    "arctan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "arcsinh": np.arcsinh,
    "arccosh": np.arccosh,
    "arctanh": np.arctanh,
    "erf": sc.erf,
    "erfc": sc.erfc,
    "sigmoid": sc.expit,
    "softplus": softplus_reference,
}

# The functions converted by another algorithm for few values (a static size
# up to 64) and one value (see dispatch.special.SMALL_VARIANTS): the tests
# over the values of a domain run for those sizes too.
WITH_SMALL_VARIANTS = ["erf", "erfc"]
NAMES_AND_SIZES = [
    *((name, "symbolic") for name in CASES),
    *((name, size) for name in WITH_SMALL_VARIANTS for size in STATIC_SIZES),
]
# The dense grids are evaluated one value a call at every ONE_VALUE_STRIDE-th
# value: "few" runs the same formulas on every value, and "one" the methods
# each in an If branch.
ONE_VALUE_STRIDE = 16

# Maximum relative error against NumPy/SciPy of normal results; subnormal ones
# may differ by a few steps. SciPy's erfc evaluates exp(-x*x) with x*x rounded,
# so it is off by up to x**2 * 2**-53 for large x (see
# test_erfc_tail_is_accurate_beyond_scipy).
FLOAT64_RTOL = dict.fromkeys(CASES, 1e-15) | {"erfc": 1e-13}
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


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("name, size", NAMES_AND_SIZES)
def test_edge_values(name, size, dtype):
    function, cases = CASES[name]
    values = as_dtype(EDGES + cases, dtype)
    compare_elementwise_at_size(
        function, values, size, assert_fn=assert_same_values_and_zero_signs
    )


@pytest.mark.parametrize(
    "name, dtype",
    [
        ("log1p", "int64"),
        ("sin", "int16"),
        ("cos", "uint32"),
        ("expm1", "int8"),
        ("arctan", "int32"),
        ("erf", "uint8"),
        ("erfc", "int16"),
        ("sigmoid", "int64"),
        ("softplus", "uint8"),
        ("arccosh", "uint16"),
    ],
)
def test_integer_inputs(name, dtype):
    x = pt.vector("x", dtype=dtype)
    info = np.iinfo(dtype)
    values = np.array([info.min, 0, 1, 2, 5, info.max], dtype=dtype)
    compare_onnx_and_py([x], CASES[name][0](x), [values])


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("name", CASES)
def test_scalar_graphs(name):
    # The nodes of Composite inner graphs have scalar inputs and outputs.
    s = ps.float64("s")
    scalar_op = CASES[name][0](pt.scalar()).owner.op.scalar_op
    for value in [-0.0, 0.7, np.inf]:
        compare_onnx_and_py([s], scalar_op(s), [np.float64(value)])


def test_composite_of_special_functions():
    s = ps.float64("s")
    composite = ps.Composite(
        [s], [ps.log1p(s) * ps.erfc(s) + ps.arctan2(s, ps.sinh(s))]
    )
    x = pt.dvector("x")
    values = np.array([-0.0, 1e-20, 0.5, -3.0, 30.0, np.inf, np.nan])
    compare_onnx_and_py([x], Elemwise(composite)(x), [values])


DOMAINS = {
    "log1p": lambda x: x >= -1,
    "arcsin": lambda x: np.abs(x) <= 1,
    "arccos": lambda x: np.abs(x) <= 1,
    "arccosh": lambda x: x >= 1,
    "arctanh": lambda x: np.abs(x) <= 1,
}


def domain_grid(name):
    """A dense grid of the function's domain, log-spaced over ±[1e-300, 1e300]."""
    magnitudes = np.logspace(-300, 300, 30_001)
    close_to_one = np.logspace(-16, 0, 2_001)
    grid = np.concatenate(
        [
            -magnitudes,
            magnitudes,
            np.linspace(-40, 40, 40_001),
            np.linspace(-800, 800, 16_001),
            1 + close_to_one,
            1 - close_to_one,
            -1 + close_to_one,
            -1 - close_to_one,
            [0.0, -0.0],
        ]
    )
    in_domain = DOMAINS.get(name, lambda x: np.ones_like(x, dtype=bool))
    return grid[in_domain(grid)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, size", NAMES_AND_SIZES)
def test_accuracy_over_the_domain(name, size, dtype):
    fn = elementwise_function(CASES[name][0], dtype, size)
    grid = as_dtype(domain_grid(name), dtype)
    if size == "one":
        grid = grid[::ONE_VALUE_STRIDE]
    with np.errstate(all="ignore"):
        expected = REFERENCES[name](grid)
    rtol = FLOAT64_RTOL[name] if dtype == "float64" else FLOAT32_RTOL
    np.testing.assert_allclose(
        fn(grid), expected, rtol=rtol, atol=SUBNORMAL_ATOL[dtype], strict=True
    )


def grid_pairs():
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1.0, -1.0, 3.0]
    special += [1e-300, -1e-300, 1e300, -1e300]
    y, x = np.meshgrid(special, special)
    rng = np.random.default_rng(0)
    magnitudes = 10.0 ** rng.uniform(-300, 300, (2, 50_000))
    signs = rng.choice([-1.0, 1.0], (2, 50_000))
    moderate = rng.uniform(-10, 10, (2, 50_000))
    near_diagonal = magnitudes[0] * rng.uniform(0.5, 2, 50_000)
    ys = np.concatenate(
        [y.ravel(), magnitudes[0] * signs[0], moderate[0], magnitudes[0]]
    )
    xs = np.concatenate(
        [x.ravel(), magnitudes[1] * signs[1], moderate[1], near_diagonal]
    )
    return ys, xs


# Doubles closest to a multiple of pi/2 below 2**27 (continued fractions of
# pi/2 in each binade): sin or cos is at most 2e-17 there, and every bit of
# the argument reduction counts.
CLOSEST_TO_MULTIPLES_OF_HALF_PI = [
    45.553093477052,
    91.106186954104,
    182.212373908208,
    1457.698991265664,
    321307.9594422229,
    14461176.67027838,
    28922353.34055676,
    57844706.68111352,
    115689413.36222704,
]


def near_multiples_of_half_pi():
    k = np.unique(np.geomspace(1, 2.0**27 / (np.pi / 2), 20_000).round())
    multiples = k * (np.pi / 2)
    hardest = np.array(CLOSEST_TO_MULTIPLES_OF_HALF_PI)
    values = np.concatenate([multiples, hardest])
    values = np.concatenate(
        [values, np.nextafter(values, 0), np.nextafter(values, np.inf)]
    )
    return np.concatenate([values, -values])


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trigonometric_functions_near_their_zeros_and_poles(name):
    # onnxruntime's float64 Sin(pi) is 0.0 and Cos(pi/2) is -0.0, with a
    # relative error of 1 (and 3.6e-15 elsewhere, as at cos(-7.943282347242399)).
    x = pt.dvector("x")
    fn = pytensor.function([x], CASES[name][0](x), mode="ONNX")
    values = np.concatenate([near_multiples_of_half_pi(), [-7.943282347242399]])
    np.testing.assert_allclose(
        fn(values), REFERENCES[name](values), rtol=1e-15, atol=0, strict=True
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_arctan2_accuracy(dtype):
    y, x = pt.vector("y", dtype=dtype), pt.vector("x", dtype=dtype)
    fn = pytensor.function([y, x], pt.arctan2(y, x), mode="ONNX")
    ys, xs = (as_dtype(values, dtype) for values in grid_pairs())
    result, expected = fn(ys, xs), np.arctan2(ys, xs)
    rtol = 1e-15 if dtype == "float64" else FLOAT32_RTOL
    np.testing.assert_allclose(result, expected, rtol=rtol, atol=0, strict=True)
    zeros = expected == 0
    np.testing.assert_array_equal(
        np.signbit(result[zeros]), np.signbit(expected[zeros])
    )


@pytest.mark.parametrize(
    "y_dtype, x_dtype",
    [
        ("float64", "float64"),
        ("float32", "float32"),
        ("int32", "float32"),
        ("int8", "int16"),
    ],
)
def test_arctan2_edge_values(y_dtype, x_dtype):
    y, x = pt.vector("y", dtype=y_dtype), pt.vector("x", dtype=x_dtype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.5, 1e-300, -1e300]
    if y_dtype.startswith("int") or x_dtype.startswith("int"):
        special = [0, 1, -1, 3, -7, 100]
    ys, xs = (values.ravel() for values in np.meshgrid(special, special))
    compare_onnx_and_py(
        [y, x],
        pt.arctan2(y, x),
        [as_dtype(ys, y_dtype), as_dtype(xs, x_dtype)],
        assert_fn=assert_same_values_and_zero_signs,
    )


@cache
def onnx_function(name, size):
    return elementwise_function(CASES[name][0], "float64", size)


any_float64s = arrays(
    np.float64,
    st.integers(0, 10),
    elements=st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
)


@pytest.mark.parametrize("name, size", NAMES_AND_SIZES)
@given(values=any_float64s)
def test_matches_reference_on_any_float64(name, size, values):
    with np.errstate(all="ignore"):
        expected = REFERENCES[name](values)
    result = onnx_function(name, size)(values)
    np.testing.assert_allclose(
        result, expected, rtol=FLOAT64_RTOL[name], atol=SUBNORMAL_ATOL["float64"]
    )
    zeros = expected == 0
    np.testing.assert_array_equal(
        np.signbit(result[zeros]), np.signbit(expected[zeros])
    )


@cache
def onnx_arctan2():
    y, x = pt.dvectors("y", "x")
    return pytensor.function([y, x], pt.arctan2(y, x), mode="ONNX")


@given(
    pairs=arrays(
        np.float64,
        st.tuples(st.just(2), st.integers(0, 10)),
        elements=st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    )
)
def test_arctan2_matches_numpy_on_any_float64(pairs):
    y, x = pairs
    result, expected = onnx_arctan2()(y, x), np.arctan2(y, x)
    np.testing.assert_allclose(result, expected, rtol=1e-15, atol=0)
    zeros = expected == 0
    np.testing.assert_array_equal(
        np.signbit(result[zeros]), np.signbit(expected[zeros])
    )


@pytest.mark.parametrize(
    "build, reference, values",
    [
        (lambda x: pt.log(1 + x), np.log1p, [1e-20, -1e-20, 0.5]),
        (lambda x: pt.exp(x) - 1, np.expm1, [1e-20, -1e-20, 0.5]),
        (lambda x: 1 - pt.erf(x), sc.erfc, [10.0, 26.0, -2.0]),
        (lambda x: pt.log(1 + pt.exp(x)), softplus_reference, [-800.0, 800.0, 1.0]),
        (lambda x: 1 / (1 + pt.exp(-x)), sc.expit, [-700.0, 40.0, 0.5]),
    ],
    ids=["log1p", "expm1", "erfc", "softplus", "sigmoid"],
)
def test_graphs_as_default_rewrites_leave_them(build, reference, values):
    # The naive formulas lose everything at these values; fast_run rewrites them
    # into the special functions, which must convert accurately.
    x = pt.dvector("x")
    fn = pytensor.function([x], build(x), mode="ONNX")
    values = np.array(values)
    np.testing.assert_allclose(fn(values), reference(values), rtol=1e-13, atol=0)


def test_erfc_tail_is_accurate_beyond_scipy():
    # SciPy rounds x*x in exp(-x*x), which costs it up to 2.5e-14 here; these
    # references are mpmath's erfc rounded to float64.
    x = pt.dvector("x")
    fn = pytensor.function([x], pt.erfc(x), mode="ONNX")
    values = np.array([5.3, 12.7, 20.3, 25.9, 26.234, 26.5])
    expected = np.array(
        [
            6.613081850340811e-14,
            3.9712599756985404e-72,
            2.985318180601636e-181,
            1.0202833184732667e-293,
            2.759944510846956e-301,
            2.2109076642637343e-307,
        ]
    )
    np.testing.assert_allclose(fn(values), expected, rtol=1e-15, atol=0)


# Typical arguments: of PyMC's gammaln/psi terms (positive), and of
# standardized values for the error functions
POSITIVE = np.linspace(0.1, 30.0, 300)
STANDARD = np.linspace(-5.0, 5.0, 300)

# Typical arguments of each function whose nodes are budgeted: onnxruntime
# dispatches every node separately (0.2-1 us each), so the nodes converted
# and the nodes run for such arguments are the cost of a special function on
# small and medium inputs. Methods that such arguments do not reach (the
# reflection formulas, the far tails) are in If branches. The budgets are
# the measured counts of tests/link/onnx/node_budgets.toml.
TYPICAL_ARGUMENTS = {
    "gammaln": (pt.gammaln, POSITIVE),
    "gamma": (pt.gamma, POSITIVE),
    "psi": (pt.psi, POSITIVE),
    "tri_gamma": (pt.tri_gamma, POSITIVE),
    "erf": (pt.erf, STANDARD),
    "erfc": (pt.erfc, STANDARD),
    "erfcx": (pt.erfcx, STANDARD),
    # log1p: two nodes more than Goldberg's formula for 2 ulp instead of 3
    # (tests/link/onnx/test_elementary_ulp.py), also in log1mexp and softplus
    "log1p": (pt.log1p, np.linspace(-0.5, 30.0, 300)),
    "expm1": (pt.expm1, STANDARD),
    "log1mexp": (pt.log1mexp, np.linspace(-30.0, -0.1, 300)),
    "softplus": (pt.softplus, STANDARD),
    "sigmoid": (pt.sigmoid, STANDARD),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", TYPICAL_ARGUMENTS)
def test_node_budget(name, dtype):
    function, typical = TYPICAL_ARGUMENTS[name]
    x = pt.vector("x", dtype=dtype)
    fn = pytensor.function([x], function(x), mode="ONNX")
    assert_within_node_budget(
        f"{name}/{dtype}", onnx_model_of(fn), [typical.astype(dtype)]
    )


def test_node_budget_of_gammaln_and_its_gradient():
    # PyMC's Gamma, Poisson, Beta... log-densities: gammaln and psi together
    x = pt.dvector("x")
    total = pt.gammaln(x).sum()
    fn = pytensor.function([x], [total, pytensor.grad(total, x)], mode="ONNX")
    assert_within_node_budget("gammaln_and_gradient", onnx_model_of(fn), [POSITIVE])


@pytest.mark.parametrize(
    "name, values",
    [
        ("gammaln", [-2.5, 0.5, 5.0]),
        ("psi", [-0.5, 0.5, 5.0]),
        ("erfc", [-9.0, 0.5, 3.0]),
        ("erfcx", [-3.0, 0.5, 60.0]),
    ],
)
@pytest.mark.parametrize("size", ["symbolic", "few"])
def test_methods_in_branches_run_for_the_values_that_need_them(name, values, size):
    # each value alone (one method) and all together (all methods) agree, in
    # the algorithm for vectors and in the small variant for few values
    x = pt.dvector("x", shape=(None,) if size == "symbolic" else (len(values),))
    function = getattr(pt, name)
    fn = pytensor.function([x], function(x), mode="ONNX")
    reference = pytensor.function([x], function(x), mode=py_mode)
    together = np.array(values)
    alone = [fn(np.full(len(values), value))[0] for value in values]
    np.testing.assert_allclose(fn(together), reference(together), rtol=1e-13)
    np.testing.assert_allclose(alone, fn(together), rtol=1e-15)
    model = onnx_model_of(fn)
    one_method = np.full(len(values), values[1])
    assert nodes_run(model, [one_method]) < nodes_run(model, [together])


# The small variants (see WITH_SMALL_VARIANTS) for one value and for a
# vector of static length 64, with the typical value whose nodes run are
# budgeted: each method is in a branch that runs only if some value needs it
# (a parameter of a log-density lies in one range).
SMALL_TYPICAL_VALUES = {
    "gammaln": (pt.gammaln, 3.5),
    "psi": (pt.psi, 3.5),
    "tri_gamma": (pt.tri_gamma, 3.5),
    "erf": (pt.erf, 0.5),
    "erfc": (pt.erfc, 0.5),
    "erfcx": (pt.erfcx, 0.5),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("size", ["one", "few"])
@pytest.mark.parametrize("name", SMALL_TYPICAL_VALUES)
def test_node_budget_of_few_values(name, size, dtype):
    function, typical = SMALL_TYPICAL_VALUES[name]
    x = pt.tensor("x", dtype=dtype, shape=STATIC_SIZES[size])
    fn = pytensor.function([x], function(x), mode="ONNX")
    values = np.full(STATIC_SIZES[size], typical, dtype=dtype)
    assert_within_node_budget(f"{name}/{size}/{dtype}", onnx_model_of(fn), [values])


@pytest.mark.parametrize("size", ["one", "few"])
def test_node_budget_of_gammaln_and_its_gradient_of_few_values(size):
    # the Student-t's, Gamma's and Beta's normalising constants
    x = pt.tensor("x", dtype="float64", shape=STATIC_SIZES[size])
    total = pt.gammaln(x).sum()
    fn = pytensor.function([x], [total, pytensor.grad(total, x)], mode="ONNX")
    values = np.full(STATIC_SIZES[size], 3.5)
    assert_within_node_budget(
        f"gammaln_and_gradient/{size}", onnx_model_of(fn), [values]
    )


def test_small_variants_inside_a_loop_body():
    # Scan's steps see one value each: the If branches nest in the Loop body
    x = pt.dvector("x")
    steps, _ = pytensor.scan(
        lambda v, total: total + pt.gammaln(v) + pt.erfc(v) + pt.psi(v),
        sequences=[x],
        outputs_info=[pt.constant(0.0, dtype="float64")],
    )
    values = np.array([0.5, 3.0, -2.5, 40.0, 1.0])
    fn = pytensor.function([x], steps, mode="ONNX")
    # SciPy, not PyTensor's C psi (accurate to 4e-7), which the scan's Python
    # implementation would run
    expected = np.cumsum(sc.gammaln(values) + sc.erfc(values) + sc.psi(values))
    np.testing.assert_allclose(fn(values), expected, rtol=1e-14)
