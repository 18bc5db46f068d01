import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import digamma
from tests.link.onnx.utils import evaluate_numerics


@pytest.mark.parametrize("psi", [digamma.psi, digamma.psi_small])
def test_psi_on_both_sides_of_zero(psi):
    x = np.concatenate([np.logspace(-300, 3, 40), [1.4616321449683623, np.inf]])
    result = evaluate_numerics(psi, x)
    np.testing.assert_allclose(result, sc.psi(x), rtol=4e-16)
    negative = np.linspace(-20.25, -0.25, 41)
    result = evaluate_numerics(psi, negative)
    # an absolute error next to the zeros below -1, as SciPy's own
    np.testing.assert_allclose(result, sc.psi(negative), rtol=3e-15, atol=4e-15)


@pytest.mark.parametrize("psi", [digamma.psi, digamma.psi_small])
def test_psi_is_nan_at_the_poles(psi):
    assert np.isnan(evaluate_numerics(psi, np.array([-1.0, -5.0]))).all()


@pytest.mark.parametrize("trigamma", [digamma.trigamma, digamma.trigamma_small])
def test_trigamma(trigamma):
    x = np.concatenate([np.logspace(-5, 5, 30), np.linspace(-9.7, -0.3, 20)])
    result = evaluate_numerics(trigamma, x)
    np.testing.assert_allclose(result, sc.polygamma(1, x), rtol=2e-15)
