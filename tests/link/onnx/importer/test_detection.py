"""NonMaxSuppression and RoiAlign against ONNX's reference evaluator."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.link.onnx.utils import (
    assert_matches_reference,
    single_node_model,
    verify_imported_grad,
)


rng = np.random.default_rng(11)


def random_boxes(batches, boxes, center_point_box=0, rng=rng):
    low = rng.uniform(0, 10, (batches, boxes, 2))
    size = rng.uniform(0.5, 6, (batches, boxes, 2))
    if center_point_box:
        return np.concatenate([low + size / 2, size], axis=-1).astype("float32")
    corners = np.concatenate([low, low + size], axis=-1)
    flipped = rng.random((batches, boxes)) < 0.3
    corners[flipped] = corners[flipped][:, [2, 3, 0, 1]]
    return corners.astype("float32")


def nms_feeds(batches, classes, boxes, limit, iou, score=None, center=0, rng=rng):
    feeds = {
        "boxes": random_boxes(batches, boxes, center, rng),
        "scores": rng.choice(
            [0.1, 0.3, 0.5, 0.7, 0.9], (batches, classes, boxes)
        ).astype("float32"),
        "max_output_boxes_per_class": np.array([limit], dtype="int64"),
        "iou_threshold": np.array([iou], dtype="float32"),
    }
    if score is not None:
        feeds["score_threshold"] = np.array([score], dtype="float32")
    return feeds


@pytest.mark.parametrize("center_point_box", [0, 1])
@pytest.mark.parametrize(
    "batches, classes, boxes, limit, iou, score",
    [
        (1, 1, 6, 3, 0.5, 0.0),
        (2, 3, 12, 4, 0.3, 0.4),
        (1, 2, 8, 100, 0.0, None),
        (2, 1, 10, 0, 0.5, 0.0),
        (1, 1, 1, 5, 0.5, 0.95),
    ],
)
def test_non_max_suppression(
    batches, classes, boxes, limit, iou, score, center_point_box
):
    feeds = nms_feeds(batches, classes, boxes, limit, iou, score, center_point_box)
    model = single_node_model(
        "NonMaxSuppression", feeds, opset=11, center_point_box=center_point_box
    )
    assert_matches_reference(model, feeds)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**16), iou=st.sampled_from([0.0, 0.2, 0.5, 0.8]))
def test_non_max_suppression_keeps_what_the_reference_keeps(seed, iou):
    feeds = nms_feeds(2, 2, 9, 5, iou, 0.2, rng=np.random.default_rng(seed))
    assert_matches_reference(single_node_model("NonMaxSuppression", feeds), feeds)


def roi_feeds(dtype="float32"):
    x = rng.normal(size=(2, 3, 10, 12)).astype(dtype)
    rois = np.array(
        [[0, 0, 9, 9], [1.5, 2.2, 7.1, 8.9], [5, 5, 11.5, 9.5], [-2, -1, 3, 2.5]],
        dtype=dtype,
    )
    return {"x": x, "rois": rois, "batch_indices": np.array([0, 1, 1, 0])}


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("transformation", ["half_pixel", "output_half_pixel"])
@pytest.mark.parametrize("sampling_ratio", [0, 2])
def test_roi_align(mode, transformation, sampling_ratio):
    feeds = roi_feeds()
    model = single_node_model(
        "RoiAlign",
        feeds,
        opset=16,
        mode=mode,
        coordinate_transformation_mode=transformation,
        output_height=3,
        output_width=4,
        sampling_ratio=sampling_ratio,
        spatial_scale=0.8,
    )
    assert_matches_reference(model, feeds, rtol=1e-5, atol=1e-6)


def test_roi_align_is_differentiable_in_the_input():
    feeds = roi_feeds("float64")
    model = single_node_model(
        "RoiAlign", feeds, opset=16, output_height=2, output_width=2, sampling_ratio=2
    )
    verify_imported_grad(model, list(feeds.values()), rng, wrt=[0])
