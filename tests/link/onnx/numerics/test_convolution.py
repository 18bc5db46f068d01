import numpy as np
import pytest

from pytensor.link.onnx.numerics.convolution import (
    BatchLayout,
    correlate_by_matmul,
    flip,
    padding,
)
from pytensor.link.onnx.value import concat
from tests.link.onnx.utils import evaluate_numerics


@pytest.mark.parametrize("full", [True, False])
def test_true_convolution_by_matmul_matches_numpy(full):
    a, k = np.array([1.0, 2.0, -1.0, 4.0, 0.5]), np.array([3.0, -2.0, 1.0])
    layout = BatchLayout.of((), (), 0, 1)

    def convolve(a, k):
        pads = padding(full, a.shape(), k.shape())
        padded = a.apply("Pad", a, concat([pads, pads], axis=0))
        return correlate_by_matmul(padded, flip(k, [0]), layout)

    expected = np.convolve(a, k, mode="full" if full else "valid")
    np.testing.assert_allclose(evaluate_numerics(convolve, a, k), expected)
