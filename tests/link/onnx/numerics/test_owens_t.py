import numpy as np
import scipy.special as sc

from pytensor.link.onnx.numerics.owens_t import owens_t
from tests.link.onnx.utils import evaluate_numerics


def test_owens_t_in_every_region():
    h, a = (
        g.ravel()
        for g in np.meshgrid(
            np.linspace(-6.0, 6.0, 25),
            [-3.0, -1.0, 0.0, 0.01, 0.1, 0.3, 0.5, 0.95, 1.0, 2.0, 50.0],
        )
    )
    result = evaluate_numerics(owens_t, h, a)
    np.testing.assert_allclose(result, sc.owens_t(h, a), rtol=2e-13, atol=1e-300)


def test_owens_t_limits():
    h = np.array([np.inf, 1.0, np.nan, 0.0])
    a = np.array([1.0, np.inf, 1.0, 0.5])
    np.testing.assert_allclose(
        evaluate_numerics(owens_t, h, a), sc.owens_t(h, a), rtol=1e-15
    )
