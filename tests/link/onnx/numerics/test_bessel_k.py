import numpy as np
import pytest
import scipy.special as sc

from pytensor.link.onnx.numerics.bessel_k import kve
from tests.link.onnx.utils import evaluate_numerics


@pytest.mark.parametrize("order", [0, 1])
def test_kve_with_scipys_limits(order):
    x = np.concatenate(
        [np.logspace(-300, 3, 40), [0.0, -1.0, 1e-306, 2e9, np.inf, np.nan]]
    )
    with np.errstate(all="ignore"):
        reference = sc.kve(order, x)
    result = evaluate_numerics(lambda x: kve(x, order), x)
    np.testing.assert_allclose(result, reference, rtol=4e-15)
