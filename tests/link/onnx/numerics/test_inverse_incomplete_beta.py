import numpy as np
import scipy.special as sc

from pytensor.link.onnx.numerics.inverse_incomplete_beta import betaincinv
from tests.link.onnx.utils import evaluate_numerics


def test_betaincinv_inverts_betainc():
    a, b, y = (
        g.ravel()
        for g in np.meshgrid(
            [0.5, 1.0, 3.0, 200.0], [0.5, 1.0, 2.0, 50.0], np.linspace(0.05, 0.95, 7)
        )
    )
    x = evaluate_numerics(betaincinv, a, b, y)
    np.testing.assert_allclose(x, sc.betaincinv(a, b, y), rtol=1e-9)
    np.testing.assert_allclose(sc.betainc(a, b, x), y, rtol=1e-12)


def test_betaincinv_edge_values():
    a = np.array([2.0, 2.0, 0.0, 2.0, np.inf])
    b = np.array([3.0, 3.0, 1.0, 3.0, 1.0])
    y = np.array([0.0, 1.0, 0.5, 1.5, 0.5])
    with np.errstate(all="ignore"):
        reference = sc.betaincinv(a, b, y)
    np.testing.assert_array_equal(evaluate_numerics(betaincinv, a, b, y), reference)
