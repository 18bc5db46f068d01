"""DFT and transposed convolution cases against ONNX's reference."""

import numpy as np
import pytest

from tests.link.onnx.import_helpers import assert_matches_reference, single_node_model


rng = np.random.default_rng(5)


@pytest.mark.parametrize("length", [8, 9, 6])
def test_inverse_one_sided_dft_is_the_inverse_real_fft(length):
    x = rng.normal(size=(2, 5, 3, 2))
    feeds = {
        "x": x,
        "length": np.array(length, dtype="int64"),
        "axis": np.array(1, dtype="int64"),
    }
    model = single_node_model("DFT", feeds, opset=20, inverse=1, onesided=1)
    assert_matches_reference(model, feeds, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("output_shape", [[10, 8], [9, 8], [10, 7]])
def test_conv_transpose_output_shape_pads_or_crops(output_shape):
    x = rng.normal(size=(1, 1, 3, 3))
    w = rng.normal(size=(1, 2, 3, 3))
    feeds = {"x": x, "w": w}
    model = single_node_model(
        "ConvTranspose", feeds, opset=18, strides=[3, 2], output_shape=output_shape
    )
    assert_matches_reference(model, feeds, rtol=1e-10)
