import numpy as np
import pytest

from pytensor.link.onnx.numerics import trigonometric
from tests.link.onnx.utils import evaluate_numerics


# multiples of pi/2 rounded to float64, where the functions are close to 0 or
# to a pole, and arguments beyond the exact reduction
NEAR_ZEROS = np.pi / 2 * np.arange(-40, 41)
WIDE = np.concatenate([NEAR_ZEROS, np.logspace(-300, 30, 40), [2.0**27, 1e300]])


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_accurate_next_to_the_zeros(name):
    result = evaluate_numerics(getattr(trigonometric, name), WIDE)
    np.testing.assert_allclose(result, getattr(np, name)(WIDE), rtol=1e-15)


@pytest.mark.parametrize("name", ["arcsin", "arccos", "arctan"])
def test_inverse_functions(name):
    x = np.concatenate([np.linspace(-1.0, 1.0, 41), np.logspace(-300, -1, 10)])
    if name == "arctan":
        x = np.concatenate([x, [1e300, -np.inf, np.inf]])
    result = evaluate_numerics(getattr(trigonometric, name), x)
    np.testing.assert_allclose(result, getattr(np, name)(x), rtol=1e-15)


def test_arctan2_of_signed_zeros_and_infinities():
    values = np.array([-np.inf, -1.5, -0.0, 0.0, 2.0, np.inf])
    y, x = (a.ravel() for a in np.meshgrid(values, values))
    result = evaluate_numerics(trigonometric.arctan2, y, x)
    np.testing.assert_allclose(result, np.arctan2(y, x), rtol=1e-15)
    assert (np.signbit(result) == np.signbit(np.arctan2(y, x))).all()


def test_sin_and_cos_from_one_reduction():
    a = np.abs(WIDE)
    sin_a, cos_a = evaluate_numerics(trigonometric.sin_and_cos, a)
    np.testing.assert_allclose(sin_a, np.sin(a), rtol=1e-15)
    np.testing.assert_allclose(cos_a, np.cos(a), rtol=1e-15)


def test_sin_pi_against_extended_precision():
    z = np.concatenate([np.linspace(-0.5, 0.5, 100_001), [0.0, -0.0, 1e-300]])
    result = evaluate_numerics(trigonometric.sin_pi, z)
    extended = z.astype(np.longdouble)
    pi = np.longdouble(np.pi) + np.longdouble(1.2246467991473532e-16)
    np.testing.assert_allclose(result, np.sin(pi * extended), rtol=4e-16, atol=0)
    np.testing.assert_array_equal(np.signbit(result), np.signbit(z))
