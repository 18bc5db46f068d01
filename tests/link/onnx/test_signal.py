import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
from pytensor.tensor.signal.conv import Convolve1d
from pytensor.tensor.special import softmax

import pytensor
from tests.link.onnx.utils import (
    assert_same_values,
    assert_sums_close,
    compare_onnx_and_py,
    no_rewrites,
    random_values,
)


rng = np.random.default_rng(11)


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize(
    "dtype", ["float64", "float32", "int64", "int32", "int8", "uint8", "bool"]
)
def test_convolve1d(mode, dtype):
    x = pt.vector("x", dtype=dtype)
    y = pt.vector("y", dtype=dtype)
    compare_onnx_and_py(
        [x, y],
        pt.signal.convolve1d(x, y, mode=mode),
        [random_values(rng, 7, dtype), random_values(rng, 3, dtype)],
        onnx_mode=no_rewrites,
    )


@pytest.mark.parametrize("mode", ["full", "valid"])
@pytest.mark.parametrize(
    "x_shape, y_shape, x_value, y_value",
    [
        ((None,), (None,), (2,), (5,)),
        ((2,), (5,), (2,), (5,)),
        ((None, None), (None,), (3, 6), (4,)),
        ((3, 1, 6), (1, 2, 4), (3, 1, 6), (1, 2, 4)),
        ((None, 6), (None, 6), (1, 6), (1, 6)),
    ],
    ids=[
        "kernel_longer",
        "kernel_longer_static",
        "batch_of_signals",
        "signals_by_kernels",
        "equal_lengths",
    ],
)
def test_convolve1d_shapes(mode, x_shape, y_shape, x_value, y_value):
    x = pt.tensor("x", shape=x_shape)
    y = pt.tensor("y", shape=y_shape)
    compare_onnx_and_py(
        [x, y],
        pt.signal.convolve1d(x, y, mode=mode),
        [
            random_values(rng, x_value, "float64"),
            random_values(rng, y_value, "float64"),
        ],
        onnx_mode=no_rewrites,
    )


def test_convolve1d_symbolic_mode():
    x, y = pt.vector("x"), pt.vector("y")
    full = ps.bool("full")
    out = Convolve1d()(x, y, full)
    fn, _ = compare_onnx_and_py(
        [x, y, full],
        out,
        [
            random_values(rng, 5, "float64"),
            random_values(rng, 3, "float64"),
            np.bool_(True),
        ],
        onnx_mode=no_rewrites,
    )
    for args in [
        (random_values(rng, 5, "float64"), random_values(rng, 3, "float64"), False),
        (random_values(rng, 2, "float64"), random_values(rng, 4, "float64"), False),
    ]:
        assert_same_values(fn(*args), np.convolve(*args[:2], mode="valid"))


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16"])
def test_convolve2d(mode, dtype):
    x = pt.matrix("x", dtype=dtype)
    y = pt.matrix("y", dtype=dtype)
    compare_onnx_and_py(
        [x, y],
        pt.signal.convolve2d(x, y, mode=mode),
        [random_values(rng, (6, 5), dtype), random_values(rng, (3, 2), dtype)],
        onnx_mode=no_rewrites,
    )


# Batch axes where only the images vary, only the kernels vary, or both vary
# (groups): those of a convolution layer, in any order. float32 becomes an
# ONNX Conv when the number of groups is static.
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", ["full", "valid"])
@pytest.mark.parametrize(
    "x_shape, y_shape, x_value, y_value",
    [
        ((None, 1, None, None), (1, None, None, None), (2, 1, 5, 6), (1, 3, 3, 2)),
        ((None, 1, 3, None, None), (1, 4, 3, 2, 2), (2, 1, 3, 5, 5), (1, 4, 3, 2, 2)),
        ((1, 2, None, None), (3, 1, None, None), (1, 2, 4, 5), (3, 1, 2, 3)),
        ((None, None, None), (None, None, None), (3, 4, 5), (3, 2, 3)),
        ((3, None, None), (None, None), (3, 4, 5), (2, 3)),
        ((None, None), (2, None, None), (4, 5), (2, 3, 2)),
        ((2, 1, 2, 5, 4), (1, 3, 2, 2, 3), (2, 1, 2, 5, 4), (1, 3, 2, 2, 3)),
    ],
    ids=[
        "images_by_channels",
        "conv_layer",
        "channels_first",
        "groups_symbolic",
        "groups_static",
        "kernel_batch_only",
        "all_kinds_static",
    ],
)
def test_batched_convolve2d(dtype, mode, x_shape, y_shape, x_value, y_value):
    x = pt.tensor("x", shape=x_shape, dtype=dtype)
    y = pt.tensor("y", shape=y_shape, dtype=dtype)
    compare_onnx_and_py(
        [x, y],
        pt.signal.convolve2d(x, y, mode=mode),
        [random_values(rng, x_value, dtype), random_values(rng, y_value, dtype)],
        assert_fn=assert_sums_close,
        onnx_mode=no_rewrites,
    )


@pytest.mark.parametrize("mode", ["full", "valid"])
def test_convolve2d_kernel_larger_than_image(mode):
    x = pt.matrix("x")
    y = pt.tensor("y", shape=(4, 5))
    compare_onnx_and_py(
        [x, y],
        pt.signal.convolve2d(x, y, mode=mode),
        [random_values(rng, (2, 3), "float64"), random_values(rng, (4, 5), "float64")],
        onnx_mode=no_rewrites,
    )


def test_convolve2d_valid_needs_one_operand_to_dominate():
    x, y = pt.matrix("x"), pt.matrix("y")
    fn = pytensor.function(
        [x, y], pt.signal.convolve2d(x, y, mode="valid"), mode="ONNX"
    )
    with pytest.raises(ValueError, match="at least as large as the other"):
        fn(np.ones((3, 2)), np.ones((2, 3)))


def test_convolve_with_default_rewrites():
    signals = pt.matrix("signals")
    kernel = pt.vector("kernel")
    images = pt.tensor3("images")
    kernels = pt.tensor("kernels", shape=(1, 3, 3), dtype="float64")
    compare_onnx_and_py(
        [signals, kernel, images, kernels],
        [
            pt.signal.convolve1d(signals, kernel, mode="full"),
            pt.signal.convolve1d(kernel, kernel, mode="valid"),
            pt.signal.convolve2d(images, kernels, mode="valid").sum(axis=0),
        ],
        [
            random_values(rng, (2, 6), "float64"),
            random_values(rng, 3, "float64"),
            random_values(rng, (4, 5, 5), "float64"),
            random_values(rng, (1, 3, 3), "float64"),
        ],
    )


def digits_cnn(images, kernels, weights):
    """conv 3x3 over (batch, channel) pairs -> relu -> 2x2 max pooling -> dense."""
    feature_maps = pt.signal.convolve2d(images[:, None], kernels[None], mode="valid")
    activations = pt.maximum(feature_maps.sum(axis=2), 0)
    batch, channels, height, width = activations.shape
    pooled = activations.reshape((batch, channels, height // 2, 2, width // 2, 2)).max(
        axis=(3, 5)
    )
    return softmax(pooled.reshape((batch, -1)) @ weights, axis=-1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", ["ONNX", no_rewrites], ids=["rewrites", "no_rewrites"])
def test_digits_cnn_end_to_end(dtype, mode):
    images = pt.tensor("images", shape=(None, 1, 8, 8), dtype=dtype)
    kernels = pytensor.shared(random_values(rng, (4, 1, 3, 3), dtype), name="kernels")
    weights = pytensor.shared(
        random_values(rng, (4 * 3 * 3, 10), dtype) / 6, name="weights"
    )
    compare_onnx_and_py(
        [images],
        digits_cnn(images, kernels, weights),
        [random_values(rng, (5, 1, 8, 8), dtype)],
        assert_fn=assert_sums_close,
        onnx_mode=mode,
    )


def summed_over_channels(x, k, mode):
    """A convolution layer: each output channel sums over the input channels."""
    return pt.signal.convolve2d(x[:, None], k[None], mode=mode).sum(axis=2)


# Each case: (images type shape, kernels type shape, layer), run with
# images of shape (3, 2, 6, 5) and kernels of shape (4, 2, 3, 2), or with
# a unit axis where the type has a 1
CHANNEL_SUMS = {
    "channels_vary_in_both": ((None, 2, 6, 5), (4, 2, 3, 2), summed_over_channels),
    "symbolic_shapes": ((None,) * 4, (None,) * 4, summed_over_channels),
    "one_kernel_channel": ((None, 2, 6, 5), (4, 1, 3, 2), summed_over_channels),
    "one_image_channel": ((None, 1, 6, 5), (4, 2, 3, 2), summed_over_channels),
    "summed_over_images_and_channels": (
        (None, 2, 6, 5),
        (4, 2, 3, 2),
        lambda x, k, mode: pt.signal.convolve2d(x[:, None], k[None], mode=mode).sum(
            axis=(0, 2)
        ),
    ),
    "one_dimensional": (
        (None, 2, 6),
        (4, 2, 3),
        lambda x, k, mode: pt.signal.convolve1d(x[:, None], k[None], mode=mode).sum(
            axis=2
        ),
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["valid", "full"])
@pytest.mark.parametrize(
    "x_shape, k_shape, layer", CHANNEL_SUMS.values(), ids=CHANNEL_SUMS.keys()
)
def test_convolutions_summed_over_channels(x_shape, k_shape, layer, mode, dtype):
    x = pt.tensor("x", shape=x_shape, dtype=dtype)
    k = pt.tensor("k", shape=k_shape, dtype=dtype)
    x_value = random_values(rng, (3, x_shape[1] or 2, 6, 5)[: len(x_shape)], dtype)
    k_value = random_values(rng, (4, k_shape[1] or 2, 3, 2)[: len(k_shape)], dtype)
    # One Conv sums in float32 what PyTensor sums in float64 (acc_dtype)
    compare_onnx_and_py(
        [x, k],
        layer(x, k, mode),
        [x_value, k_value],
        assert_fn=assert_sums_close,
        onnx_mode=no_rewrites,
    )
