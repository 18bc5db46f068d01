"""The Ops PyMC defines (``pytensor.link.onnx.pymc.converters``) under mode="ONNX"."""

import numpy as np
import pytensor.tensor as pt
import pytest

import pytensor
from tests.link.onnx.utils import FLOAT_DTYPES, compare_onnx_and_py


pm = pytest.importorskip("pymc")
dist_math = pytest.importorskip("pymc.distributions.dist_math")
interpolate = pytest.importorskip("scipy.interpolate")
ParameterValueError = pytest.importorskip("pymc.logprob.utils").ParameterValueError


BESSEL_POINTS = [0.0, -0.0, 1e-300, 1e-8, 0.5, -3.0, 7.9, 8.1, 30.0, -700.0, 1e5]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("function", ["i0e", "i1e"])
def test_scaled_bessel_functions_and_gradients(function, dtype):
    x = pt.vector("x", dtype=dtype)
    y = getattr(dist_math, function)(x)
    values = np.array([*BESSEL_POINTS, np.nan, np.inf], dtype=dtype)
    compare_onnx_and_py([x], [y], [values])
    if function == "i0e":
        gradient = pytensor.grad(y.sum(), x)
        compare_onnx_and_py([x], [gradient], [np.array(BESSEL_POINTS, dtype=dtype)])


def test_rice_logp():
    value = pt.vector("value")
    logp = pm.logp(pm.Rice.dist(nu=2.0, sigma=1.5), value)
    compare_onnx_and_py([value], [logp], [np.array([0.1, 1.0, 4.0, 60.0])])


SYMMETRIC = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 0.5]])
POSITIVE_DEFINITE_CASES = {
    "positive definite": SYMMETRIC,
    "indefinite": SYMMETRIC - np.eye(3),
    "singular": np.ones((3, 3)),
    # SciPy reads the upper triangle only
    "upper triangle definite": np.triu(SYMMETRIC) - 5 * np.tril(np.ones((3, 3)), -1),
    "upper triangle indefinite": np.triu(SYMMETRIC - np.eye(3)) + np.tril(SYMMETRIC),
    "empty": np.zeros((0, 0)),
    "large": np.cov(np.random.default_rng(0).normal(size=(40, 30)), rowvar=False),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", list(POSITIVE_DEFINITE_CASES))
def test_matrix_is_positive_definite(case, dtype):
    from pymc.distributions.multivariate import matrix_pos_def

    a = pt.matrix("a", dtype=dtype)
    compare_onnx_and_py(
        [a], [matrix_pos_def(a)], [POSITIVE_DEFINITE_CASES[case].astype(dtype)]
    )


def test_matrix_with_nan_raises_like_scipy():
    from pymc.distributions.multivariate import matrix_pos_def

    a = pt.matrix("a")
    fn = pytensor.function([a], matrix_pos_def(a), mode="ONNX")
    with pytest.raises(ValueError, match="infs or NaNs"):
        fn(np.full((2, 2), np.nan))


def test_wishart_logp_checks_its_scale_matrix():
    value = pt.matrix("value")
    logp = pm.logp(pm.Wishart.dist(nu=4, V=SYMMETRIC), value)
    compare_onnx_and_py([value], [logp], [SYMMETRIC + np.eye(3)])
    for mode in ("FAST_RUN", "ONNX"):
        fn = pytensor.function([value], logp, mode=mode)
        with pytest.raises(ParameterValueError):
            fn(SYMMETRIC - np.eye(3))


POINTS = np.array([-1.0, 0.0, 0.3, 1.0, 1.5, 2.7, 4.0, 4.5, np.nan])
SPLINE_X = np.array([0.0, 0.5, 1.0, 2.0, 3.0, 4.0])
SPLINE_Y = np.array([0.0, 0.2, 1.0, 0.4, 0.6, 0.1])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("degree", [1, 3])
@pytest.mark.parametrize("ext", [0, 1, 3])
def test_spline_and_its_derivative(ext, degree, dtype):
    spline = interpolate.InterpolatedUnivariateSpline(
        SPLINE_X, SPLINE_Y, k=degree, ext=ext
    )
    x = pt.vector("x", dtype=dtype)
    y = dist_math.SplineWrapper(spline)(x)
    outputs = [y, pytensor.grad(y.sum(), x)]
    compare_onnx_and_py([x], outputs, [POINTS.astype(dtype)])


def test_spline_outside_its_domain_raises_like_scipy():
    spline = interpolate.InterpolatedUnivariateSpline(SPLINE_X, SPLINE_Y, ext=2)
    x = pt.vector("x")
    fn = pytensor.function([x], dist_math.SplineWrapper(spline)(x), mode="ONNX")
    np.testing.assert_allclose(fn(SPLINE_X), SPLINE_Y, atol=1e-14)
    with pytest.raises(ValueError, match="not in the domain"):
        fn(np.array([5.0]))


def test_interpolated_logp_and_gradient():
    value = pt.vector("value")
    dist = pm.Interpolated.dist(x_points=SPLINE_X, pdf_points=SPLINE_Y)
    logp = pm.logp(dist, value)
    values = np.array([0.1, 0.7, 2.5, 3.9])
    compare_onnx_and_py([value], [logp, pytensor.grad(logp.sum(), value)], [values])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_logdet_and_its_gradient(dtype):
    a = pt.matrix("a", dtype=dtype)
    y = pm.math.logdet(a)
    for matrix in [SYMMETRIC, SYMMETRIC - np.eye(3)]:
        compare_onnx_and_py([a], [y, pytensor.grad(y, a)], [matrix.astype(dtype)])
    compare_onnx_and_py([a], [y], [np.ones((3, 3), dtype)])


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, "int64"])
def test_batched_diag_and_its_gradient(dtype):
    diagonals = pt.matrix("diagonals", dtype=dtype)
    y = pm.math.batched_diag(diagonals)
    values = np.array([[1, -2, np.inf], [0, 3, 4]]).astype(dtype)
    if dtype == "int64":
        values = np.array([[1, -2, 5], [0, 3, 4]])
    compare_onnx_and_py([diagonals], [y], [values])
    if dtype != "int64":
        compare_onnx_and_py(
            [diagonals], [pytensor.grad((y * y).sum(), diagonals)], [values]
        )


def pymc_op_classes():
    """Every Op class PyMC's modules define, by ``(name, module)``."""
    import importlib
    import pkgutil

    from pytensor.graph.op import Op

    classes = {}
    for info in pkgutil.walk_packages(pm.__path__, "pymc."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # optional dependencies (jax, numpyro, ...)
            continue
        for cls in vars(module).values():
            if (
                isinstance(cls, type)
                and issubclass(cls, Op)
                and cls.__module__ == module.__name__
            ):
                classes[(cls.__qualname__, cls.__module__)] = cls
    return classes


def test_the_docs_list_every_pymc_op_and_whether_it_converts():
    import re
    from pathlib import Path

    from pytensor.link.onnx.dispatch import onnx_funcify
    from pytensor.link.onnx.pymc import register_converters

    register_converters()
    docs = Path(__file__).parents[3] / "docs" / "supported_ops.rst"
    rows = re.findall(
        r"^   \* - ``(\w+)`` \((pymc[\w.]*)\)\n     - (.*)$", docs.read_text(), re.M
    )
    documented = {(name, module): status for name, module, status in rows}
    classes = pymc_op_classes()
    assert documented.keys() == classes.keys()
    no_converter = onnx_funcify.registry[object]
    for key, cls in classes.items():
        converts = onnx_funcify.dispatch(cls) is not no_converter
        assert converts != documented[key].startswith("not converted"), key
