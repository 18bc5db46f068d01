import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import incomplete_gamma
from tests.link.onnx.utils import evaluate_numerics


def grid():
    """Parameters across the series, continued fraction and asymptotic regions."""
    a, x = np.meshgrid(np.logspace(-3, 4, 12), np.logspace(-3, 4, 12))
    edges = np.array(
        [[0.0, 1.0], [1.0, 0.0], [np.inf, 1.0], [1.0, np.inf], [-1.0, 1.0]]
    )
    return np.concatenate([a.ravel(), edges[:, 0]]), np.concatenate(
        [x.ravel(), edges[:, 1]]
    )


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_against_scipy(name):
    a, x = grid()
    reference = getattr(sc, name)(a, x)
    result = evaluate_numerics(getattr(incomplete_gamma, name), a, x)
    np.testing.assert_allclose(result, reference, rtol=1e-12, atol=1e-300)


def test_unregularized_functions():
    k, x = np.array([0.5, 2.0, 7.0]), np.array([1.0, 3.0, 2.0])
    lower = evaluate_numerics(incomplete_gamma.gammal, k, x)
    upper = evaluate_numerics(incomplete_gamma.gammau, k, x)
    np.testing.assert_allclose(lower, sc.gammainc(k, x) * sc.gamma(k), rtol=1e-14)
    np.testing.assert_allclose(upper, sc.gammaincc(k, x) * sc.gamma(k), rtol=1e-14)


def test_temme_coefficients_start_as_dlmf():
    # DLMF 8.12.8: C_0(η) = -1/3 + η/12 - 2 η**2/135 + ...
    d = incomplete_gamma.temme_coefficients()
    np.testing.assert_allclose(d[0, :3], [-1 / 3, 1 / 12, -2 / 135], rtol=1e-15)
