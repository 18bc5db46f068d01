"""STFT, MelWeightMatrix, DFT and transposed convolution against ONNX's
reference."""

import numpy as np
import pytest

from tests.link.onnx.utils import assert_matches_reference, single_node_model


rng = np.random.default_rng(13)


@pytest.mark.parametrize("onesided", [0, 1])
@pytest.mark.parametrize("inputs", ["window", "frame_length", "both"])
@pytest.mark.parametrize("channels", [1, 2])
def test_stft(inputs, onesided, channels):
    feeds = {
        "signal": rng.normal(size=(2, 64, channels)),
        "frame_step": np.array(6),
    }
    if inputs == "frame_length":
        feeds["window"] = None
    else:
        feeds["window"] = np.hanning(12)
    if inputs != "window":
        feeds["frame_length"] = np.array(12)
    model = single_node_model("STFT", feeds, opset=17, onesided=onesided)
    given = {n: v for n, v in feeds.items() if v is not None}
    assert_matches_reference(model, given, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "bins, dft_length, rate, low, high",
    [(8, 16, 8192, 0.0, 4096.0), (10, 64, 16000, 20.0, 7000.0), (4, 9, 100, 5.0, 50.0)],
)
def test_mel_weight_matrix(bins, dft_length, rate, low, high):
    feeds = {
        "num_mel_bins": np.array(bins, dtype="int32"),
        "dft_length": np.array(dft_length, dtype="int32"),
        "sample_rate": np.array(rate, dtype="int32"),
        "lower_edge_hertz": np.array(low, dtype="float32"),
        "upper_edge_hertz": np.array(high, dtype="float32"),
    }
    model = single_node_model("MelWeightMatrix", feeds, opset=17)
    assert_matches_reference(model, feeds)


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
