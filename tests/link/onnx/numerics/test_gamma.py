import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import gamma
from tests.link.onnx.utils import evaluate_numerics


EDGES = [0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, 1e-300, 171.7]


@pytest.mark.parametrize(
    "name, x, rtol",
    [
        ("gammaln", np.concatenate([np.linspace(2.5, 1e3, 31), [1e300], EDGES]), 2e-15),
        ("gammaln", np.linspace(-30.5, -1.5, 30), 1e-13),
        ("gammaln_small", np.concatenate([np.linspace(0, 1e3, 61), EDGES]), 3e-15),
        ("gammaln_small", np.linspace(-30.5, -1.5, 30), 1e-13),
        ("gamma", np.concatenate([np.linspace(-30.5, 170.5, 61), EDGES]), 2e-15),
    ],
)
def test_against_scipy(name, x, rtol):
    result = evaluate_numerics(getattr(gamma, name), x)
    reference = getattr(sc, name.removesuffix("_small"))(x)
    np.testing.assert_allclose(result, reference, rtol=rtol, atol=0)


@pytest.mark.parametrize("gammaln", [gamma.gammaln, gamma.gammaln_small])
def test_gammaln_next_to_its_zeros_has_small_absolute_error(gammaln):
    x = np.linspace(0.9, 2.1, 49)
    result = evaluate_numerics(gammaln, x)
    np.testing.assert_allclose(result, sc.gammaln(x), rtol=0, atol=1e-15)


def test_lgam1p_and_lanczos_sum():
    x = np.linspace(0.0, 1.49, 30)
    result = evaluate_numerics(gamma.lgam1p_below_three_halves, x)
    # Cephes' Taylor series stops at the power 41 (4e-15 at |t| = 1/2)
    np.testing.assert_allclose(result, sc.gammaln(1.0 + x), rtol=1e-14, atol=4e-15)
    a = np.logspace(-3, 2, 30)
    shifted = a + gamma.LANCZOS_G - 0.5
    reference = sc.gamma(a) / (shifted / np.e) ** (a - 0.5)
    result = evaluate_numerics(gamma.lanczos_sum_expg_scaled, a)
    np.testing.assert_allclose(result, reference, rtol=1e-13)
