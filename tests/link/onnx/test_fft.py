import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.tensor import fft

from tests.link.onnx.utils import assert_same_values, compare_onnx_and_py


def close_to_scale(dtype):
    """Equal up to rounding relative to the largest magnitude (the transforms
    sum in another order than NumPy's pocketfft)."""
    relative = {"float32": 2e-6, "float64": 1e-13}[dtype]

    def assert_close(onnx_value, py_value):
        atol = relative * max(np.abs(py_value).max(initial=0), 1)
        assert_same_values(onnx_value, py_value, rtol=0, atol=atol)

    return assert_close


SHAPES = [(2, 5), (2, 8), (1, 1), (3, 4, 6), (2, 3, 5), (2, 3, 2, 7)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("norm", [None, "ortho", "no_norm"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_rfft_and_irfft(shape, norm, dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None,) * len(shape))
    spectrum = fft.rfft(x, norm=norm)
    restored = fft.irfft(spectrum, norm=norm, is_odd=shape[-1] % 2 == 1)
    value = np.random.default_rng(0).normal(size=shape).astype(dtype)
    compare_onnx_and_py(
        [x], [spectrum, restored], [value], assert_fn=close_to_scale(dtype)
    )


@pytest.mark.parametrize("n", [4, 7, 12])
def test_irfft_of_a_given_spectrum_ignores_the_imaginary_parts_numpy_ignores(n):
    # The imaginary parts of the constant term (and, for even n, of the
    # Nyquist term) do not reach the real output
    spectrum = pt.tensor3("spectrum")
    value = np.random.default_rng(1).normal(size=(2, n // 2 + 1, 2))
    restored = fft.irfft(spectrum, is_odd=n % 2 == 1)
    compare_onnx_and_py(
        [spectrum], [restored], [value], assert_fn=close_to_scale("float64")
    )


def test_integer_values_are_refused():
    x = pt.matrix("x", dtype="int64")
    op = fft.RFFTOp()
    with pytest.raises(NotImplementedError, match="float32 and float64"):
        compare_onnx_and_py([x], [op(x)], [np.ones((2, 4), "int64")])
