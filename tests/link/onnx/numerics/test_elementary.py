import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import elementary
from tests.link.onnx.utils import evaluate_numerics


TINY_TO_LARGE = np.concatenate(
    [-np.logspace(-300, 2, 40), [-0.0, 0.0], np.logspace(-300, 2, 40)]
)


def log1mexp(x):
    return np.where(x < -np.log(2), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


@pytest.mark.parametrize(
    "name, reference, x",
    [
        (
            "log1p",
            np.log1p,
            np.concatenate([[-1.0, np.inf], np.logspace(-300, 300, 50)]),
        ),
        ("expm1", np.expm1, np.concatenate([[-np.inf, np.inf], TINY_TO_LARGE])),
        ("sinh", np.sinh, np.concatenate([TINY_TO_LARGE, [700.0, 710.0]])),
        ("cosh", np.cosh, np.concatenate([TINY_TO_LARGE, [700.0, 710.0]])),
        ("arcsinh", np.arcsinh, np.concatenate([TINY_TO_LARGE, [1e300, -1e300]])),
        (
            "arccosh",
            np.arccosh,
            np.concatenate([[0.5], 1.0 + np.logspace(-15, 300, 40)]),
        ),
        ("arctanh", np.arctanh, np.linspace(-0.999999, 0.999999, 41)),
        ("sigmoid", sc.expit, np.linspace(-700.0, 700.0, 57)),
        ("log1mexp", log1mexp, -np.logspace(-300, 2, 40)),
    ],
)
def test_against_numpy(name, reference, x):
    with np.errstate(all="ignore"):
        expected = reference(x)
    result = evaluate_numerics(getattr(elementary, name), x)
    np.testing.assert_allclose(result, expected, rtol=1e-15, atol=0)


def test_odd_functions_keep_the_sign_of_zero():
    result = evaluate_numerics(elementary.sinh, np.array([-0.0, 0.0]))
    assert np.signbit(result).tolist() == [True, False]


def test_softplus_equals_pytensors_pieces():
    x = np.linspace(-50.0, 50.0, 101)
    reference = np.where(x < 18.0, np.log1p(np.exp(x)), x + np.exp(-x))
    result = evaluate_numerics(elementary.softplus, x)
    np.testing.assert_allclose(result, reference, rtol=1e-15)


def test_log1pmx_does_not_cancel():
    x = np.concatenate([-np.logspace(-8, np.log10(0.9), 20), np.logspace(-8, 2, 20)])
    # log1p(x) - x, summed term by term where it cancels
    small = np.abs(x) < 0.1
    series = sum((-1) ** (k + 1) * x**k / k for k in range(30, 1, -1))
    reference = np.where(small, series, np.log1p(x) - x)
    result = evaluate_numerics(elementary.log1pmx, x)
    np.testing.assert_allclose(result, reference, rtol=1e-13)


def test_xlogx_and_xlogy0_are_zero_at_zero():
    x = np.array([0.0, 0.5, 2.0])
    y = np.array([0.0, 3.0, 0.25])
    np.testing.assert_allclose(
        evaluate_numerics(elementary.xlogx, x), sc.xlogy(x, x), rtol=1e-15
    )
    np.testing.assert_allclose(
        evaluate_numerics(elementary.xlogy0, x, y), sc.xlogy(x, y), rtol=1e-15
    )
