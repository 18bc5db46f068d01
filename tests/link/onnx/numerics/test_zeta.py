import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import zeta
from tests.link.onnx.utils import evaluate_numerics


@pytest.mark.parametrize("s", [2.0, 3.0, 7.5])
def test_hurwitz_zeta(s):
    q = np.concatenate([np.logspace(-3, 10, 30), [np.inf]])
    result = evaluate_numerics(lambda q: zeta.hurwitz_zeta(s, q), q)
    np.testing.assert_allclose(result, sc.zeta(s, q), rtol=2e-15)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_polygamma_of_positive_x(n):
    x = np.logspace(-2, 3, 30)
    result = evaluate_numerics(lambda x: zeta.polygamma(x, n), x)
    np.testing.assert_allclose(result, sc.polygamma(n, x), rtol=2e-15)


def test_polygamma_by_reflection_for_negative_x():
    x = np.linspace(-5.3, -0.3, 11)
    result = evaluate_numerics(lambda x: zeta.polygamma(x, 3), x)
    np.testing.assert_allclose(result, sc.polygamma(3, x), rtol=1e-12)


def test_polygamma_at_the_poles_and_of_negative_orders():
    result = evaluate_numerics(lambda x: zeta.polygamma(x, 2), np.array([0.0, -3.0]))
    assert (result == -np.inf).all()
    assert np.isnan(
        evaluate_numerics(lambda x: zeta.polygamma(x, -1), np.ones(2))
    ).all()
