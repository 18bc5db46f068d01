import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics import bessel_j
from tests.link.onnx.utils import evaluate_numerics


# away from the zeros, where the error is relative to the envelope
X = np.concatenate([np.linspace(-40.0, 40.0, 57), [1e-6, 1e3, 1e10, 1e20]])


def envelope(x):
    return np.minimum(1.0, np.sqrt(2.0 / (np.pi * np.abs(x))))


@pytest.mark.parametrize("name", ["j0", "j1"])
def test_cephes_functions(name):
    result = evaluate_numerics(getattr(bessel_j, name), X)
    error = np.abs(result - getattr(sc, name)(X)) / envelope(X)
    assert error.max() < 1e-15


@pytest.mark.parametrize("order", [0, 1])
def test_jv(order):
    x = np.concatenate([X, [1e-310, -1e-310, np.inf]])
    result = evaluate_numerics(lambda x: bessel_j.jv(x, order), x)
    reference = sc.jv(order, x)
    error = np.abs(result - reference) / envelope(x)
    assert np.nanmax(error) < 3e-15
    assert (np.isnan(result) == np.isnan(reference)).all()
