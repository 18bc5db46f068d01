import numpy as np
import pytensor.tensor as pt
import pytest


@pytest.fixture(scope="session")
def normal_target():
    """A two-dimensional normal log-density, its value and its scales, shared by
    the test modules so that the sampler for it is compiled once."""
    scales = np.array([1.0, 3.0])
    x = pt.vector("x", shape=(2,))
    return -0.5 * ((x / scales) ** 2).sum(), x, scales
