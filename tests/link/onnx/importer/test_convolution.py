"""ConvInteger, QLinearConv, DeformConv and Col2Im against ONNX's reference."""

import numpy as np
import pytest

from tests.link.onnx.utils import (
    assert_matches_reference,
    single_node_model,
    verify_imported_grad,
)


rng = np.random.default_rng(5)


@pytest.mark.parametrize("dtype", ["uint8", "int8"])
@pytest.mark.parametrize(
    "attributes", [{}, {"pads": [1, 0, 1, 2], "strides": [2, 1]}, {"group": 2}]
)
def test_conv_integer(dtype, attributes):
    info = np.iinfo(dtype)
    feeds = {
        "x": rng.integers(info.min, info.max, (2, 4, 6, 5)).astype(dtype),
        "w": rng.integers(
            info.min, info.max, (6, 4 // attributes.get("group", 1), 3, 2)
        ).astype(dtype),
        "x_zero_point": np.array(3, dtype=dtype),
        "w_zero_point": rng.integers(0, 5, 6).astype(dtype),
    }
    model = single_node_model("ConvInteger", feeds, opset=10, **attributes)
    assert_matches_reference(model, feeds)


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("with_bias", [False, True])
def test_qlinear_conv(per_channel, with_bias):
    channels = 3
    feeds = {
        "x": rng.integers(0, 255, (1, 2, 7, 6)).astype("uint8"),
        "x_scale": np.array(0.02, dtype="float32"),
        "x_zero_point": np.array(120, dtype="uint8"),
        "w": rng.integers(0, 255, (channels, 2, 3, 3)).astype("uint8"),
        "w_scale": rng.uniform(0.001, 0.01, channels if per_channel else ()).astype(
            "float32"
        ),
        "w_zero_point": (
            rng.integers(100, 150, channels) if per_channel else np.array(128)
        ).astype("uint8"),
        "y_scale": np.array(0.05, dtype="float32"),
        "y_zero_point": np.array(100, dtype="uint8"),
    }
    if with_bias:
        feeds["B"] = rng.integers(-500, 500, channels).astype("int32")
    model = single_node_model("QLinearConv", feeds, opset=10, pads=[1, 1, 1, 1])
    assert_matches_reference(model, feeds)


def deform_feeds(groups=1, offset_groups=1, mask=False, dtype="float32"):
    x = rng.normal(size=(2, 4, 6, 5)).astype(dtype)
    w = rng.normal(size=(6, 4 // groups, 2, 3)).astype(dtype)
    out = (6, 2)
    feeds = {
        "x": x,
        "w": w,
        "offset": rng.normal(0, 1.5, (2, offset_groups * 2 * 6, *out)).astype(dtype),
        "B": rng.normal(size=6).astype(dtype),
    }
    if mask:
        feeds["mask"] = rng.uniform(size=(2, offset_groups * 6, *out)).astype(dtype)
    return feeds


@pytest.mark.parametrize(
    "groups, offset_groups, mask", [(1, 1, False), (2, 1, True), (1, 2, True)]
)
def test_deform_conv(groups, offset_groups, mask):
    feeds = deform_feeds(groups, offset_groups, mask)
    model = single_node_model(
        "DeformConv",
        feeds,
        opset=22,
        kernel_shape=[2, 3],
        pads=[1, 0, 0, 1],
        strides=[1, 2],
        group=groups,
        offset_group=offset_groups,
    )
    assert_matches_reference(model, feeds, rtol=1e-4, atol=1e-5)


def test_deform_conv_is_differentiable_in_input_weights_and_offsets():
    feeds = deform_feeds(mask=True, dtype="float64")
    model = single_node_model(
        "DeformConv", feeds, opset=22, kernel_shape=[2, 3], pads=[1, 0, 0, 1],
        strides=[1, 2],
    )  # fmt: skip
    verify_imported_grad(model, list(feeds.values()), rng, wrt=[0, 1, 2])


@pytest.mark.parametrize(
    "image, block, attributes",
    [
        ([5, 5], [2, 2], {}),
        ([6, 7], [3, 2], {"strides": [2, 1], "pads": [1, 0, 1, 2]}),
        ([8, 6], [2, 2], {"dilations": [3, 2]}),
        ([3, 4, 5], [2, 1, 3], {}),
    ],
)
def test_col2im(image, block, attributes):
    n = len(image)
    strides = attributes.get("strides", [1] * n)
    dilations = attributes.get("dilations", [1] * n)
    pads = attributes.get("pads", [0] * (2 * n))
    blocks = [
        (image[d] + pads[d] + pads[n + d] - dilations[d] * (block[d] - 1) - 1)
        // strides[d]
        + 1
        for d in range(n)
    ]
    feeds = {
        "x": rng.normal(size=(2, 3 * int(np.prod(block)), int(np.prod(blocks)))),
        "image_shape": np.array(image),
        "block_shape": np.array(block),
    }
    model = single_node_model("Col2Im", feeds, opset=18, **attributes)
    assert_matches_reference(model, feeds, rtol=1e-12)
