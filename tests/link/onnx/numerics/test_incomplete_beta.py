import numpy as np
import scipy.special as sc

from pytensor.link.onnx.numerics.incomplete_beta import betainc
from tests.link.onnx.utils import evaluate_numerics


def test_betainc_against_scipy():
    a, b, x = (
        g.ravel()
        for g in np.meshgrid(
            np.logspace(-3, 4, 6), np.logspace(-3, 4, 6), np.linspace(0.0, 1.0, 9)
        )
    )
    reference = sc.betainc(a, b, x)
    result = evaluate_numerics(betainc, a, b, x)
    np.testing.assert_allclose(result, reference, rtol=2e-12, atol=1e-300)


def test_betainc_edge_values():
    a = np.array([0.0, 1.0, 0.0, np.inf, 2.0, -1.0, 2.0])
    b = np.array([1.0, 0.0, 0.0, 1.0, 3.0, 1.0, 2.0])
    x = np.array([0.5, 0.5, 0.5, 0.5, 1.5, 0.5, 0.0])
    with np.errstate(all="ignore"):
        reference = sc.betainc(a, b, x)
    np.testing.assert_array_equal(evaluate_numerics(betainc, a, b, x), reference)
