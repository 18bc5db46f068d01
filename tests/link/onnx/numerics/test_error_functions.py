import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import error_functions
from tests.link.onnx.utils import evaluate_numerics


SYMMETRIC = np.concatenate([np.linspace(-6.0, 6.0, 49), [-0.0, 1e-300, -30.0, 30.0]])


@pytest.mark.parametrize(
    "name, x, rtol",
    [
        ("erf", SYMMETRIC, 1e-15),
        ("erf_small", SYMMETRIC, 1e-15),
        ("erfc", np.concatenate([SYMMETRIC, [26.0, 27.0, np.inf]]), 6e-14),
        ("erfc_small", np.concatenate([SYMMETRIC, [26.0, 27.0, np.inf]]), 6e-14),
        (
            "erfcx",
            np.concatenate([np.linspace(-26.0, 100.0, 64), [1e10, -30.0]]),
            6e-14,
        ),
        (
            "erfcx_small",
            np.concatenate([np.linspace(-26.0, 100.0, 64), [1e10, -30.0]]),
            6e-14,
        ),
        (
            "erfinv",
            np.concatenate([np.linspace(-1.0, 1.0, 41), [1e-300, 1 - 1e-16]]),
            1e-15,
        ),
        ("erfcinv", np.concatenate([np.linspace(0.0, 2.0, 41), [1e-300, 2.5]]), 2e-15),
    ],
)
def test_against_scipy(name, x, rtol):
    with np.errstate(all="ignore"):
        reference = getattr(sc, name.removesuffix("_small"))(x)
    result = evaluate_numerics(getattr(error_functions, name), x)
    np.testing.assert_allclose(result, reference, rtol=rtol, atol=0)


def test_normal_distribution_pieces():
    x = np.linspace(0.0, 8.0, 33)
    tail = evaluate_numerics(error_functions.normal_tail, x)
    np.testing.assert_allclose(tail, sc.ndtr(-x), rtol=1e-14)
    half = evaluate_numerics(error_functions.ndtr_minus_half, x)
    np.testing.assert_allclose(half, sc.ndtr(x) - 0.5, rtol=1e-15)
    interval = evaluate_numerics(error_functions.normal_half_interval, x)
    np.testing.assert_allclose(interval, sc.ndtr(x) - 0.5, rtol=1e-14)
