import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import inverse_incomplete_gamma
from tests.link.onnx.utils import evaluate_numerics


@pytest.mark.parametrize("name", ["gammaincinv", "gammainccinv"])
def test_against_scipy(name):
    a, y = (
        g.ravel()
        for g in np.meshgrid(np.logspace(-2, 4, 10), np.linspace(0.0, 1.0, 11))
    )
    a = np.concatenate([a, [0.0, np.inf, -1.0, 2.0]])
    y = np.concatenate([y, [0.5, 0.5, 0.5, 1.5]])
    with np.errstate(all="ignore"):
        reference = getattr(sc, name)(a, y)
    result = evaluate_numerics(getattr(inverse_incomplete_gamma, name), a, y)
    np.testing.assert_allclose(result, reference, rtol=1e-12)
