import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import bessel_i
from tests.link.onnx.utils import evaluate_numerics


X = np.concatenate([np.linspace(-30.0, 30.0, 41), [0.0, -0.0, 1e-300, 700.0, 1e9]])


@pytest.mark.parametrize("name", ["i0", "i1"])
def test_cephes_functions(name):
    x = X[np.abs(X) < 700.0]
    result = evaluate_numerics(getattr(bessel_i, name), x)
    np.testing.assert_allclose(result, getattr(sc, name)(x), rtol=5e-16)


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("name", ["ive", "iv"])
def test_with_scipys_limits(name, order):
    x = np.concatenate([X, [2e9, np.inf, np.nan, 1e-310, 1e-160]])
    with np.errstate(all="ignore"):
        reference = getattr(sc, name)(order, x)
    result = evaluate_numerics(lambda x: getattr(bessel_i, name)(x, order), x)
    # SciPy's (AMOS') ive of order 1 loses accuracy below 1e-230
    np.testing.assert_allclose(result, reference, rtol=6e-14 if order else 2e-15)
    numbers = ~np.isnan(reference)
    assert (np.signbit(result) == np.signbit(reference))[numbers].all()
