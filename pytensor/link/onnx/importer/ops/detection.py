"""Object detection: NonMaxSuppression and RoiAlign.

Greedy suppression is sequential by nature: one ``Scan`` step per box rank
visits, for every batch and class at once, the box of that rank and keeps it
unless it overlaps a box kept before it too much. RoiAlign gathers the four
bilinear corners of every sample point of every ROI at once; with an adaptive
``sampling_ratio`` (0) each ROI uses the first of as many sample slots as the
largest ROI needs.
"""

import functools
import itertools

import numpy as np
import pytensor.tensor as pt

import pytensor
from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, as_int64, like, scalar


def corners(boxes, center_point_box):
    """``(low0, low1, high0, high1)`` of boxes given as corners or centre and size."""
    if center_point_box:
        center, half = boxes[..., :2], boxes[..., 2:] / 2
        low, high = center - half, center + half
    else:
        low = pt.minimum(boxes[..., :2], boxes[..., 2:])
        high = pt.maximum(boxes[..., :2], boxes[..., 2:])
    return low, high


def overlaps_too_much(low, high, other_low, other_high, threshold):
    """Whether each box overlaps the other box more than ``threshold`` (IoU)."""
    sides = pt.minimum(high, other_high) - pt.maximum(low, other_low)
    intersection = sides[..., 0] * sides[..., 1]
    area = (high - low).prod(axis=-1)
    other_area = (other_high - other_low).prod(axis=-1)
    union = area + other_area - intersection
    positive = pt.all(sides > 0, axis=-1) & (area > 0) & (other_area > 0) & (union > 0)
    ratio = intersection / pt.switch(positive, union, pt.ones_like(union))
    return positive & (ratio > threshold)


def scalar_or(x, default, dtype):
    """The value of an optional scalar input (possibly a 1-element tensor)."""
    if x is None or (x.type.shape and x.type.shape[0] == 0):
        return pt.constant(default, dtype=dtype)
    return as_dtype(scalar(x), dtype)


@onnx_op("NonMaxSuppression", since=10)
def non_max_suppression(
    node,
    boxes,
    scores,
    max_output_boxes_per_class=None,
    iou_threshold=None,
    score_threshold=None,
):
    """Rows ``(batch, class, box)``: each class's kept boxes by decreasing score."""
    limit = pt.maximum(scalar_or(max_output_boxes_per_class, 0, "int64"), 0)
    threshold = scalar_or(iou_threshold, 0, boxes.dtype)
    order = pt.argsort(-scores, axis=-1, kind="stable")
    ranked_scores = pt.take_along_axis(scores, order, axis=-1)
    eligible = (
        pt.ones_like(ranked_scores, dtype="bool")
        if score_threshold is None
        else ranked_scores > scalar_or(score_threshold, 0, scores.dtype)
    )
    batch = pt.arange(boxes.shape[0])[:, None, None]
    low, high = corners(boxes[batch, order], node.attr("center_point_box", 0))

    def step(rank, kept):
        suppressed = overlaps_too_much(
            low[:, :, rank, None], high[:, :, rank, None], low, high, threshold
        )
        room = kept.sum(axis=-1) < limit
        keep = eligible[:, :, rank] & room & ~pt.any(kept & suppressed, axis=-1)
        return pt.set_subtensor(kept[:, :, rank], keep)

    kept = pytensor.scan(
        step,
        sequences=[pt.arange(boxes.shape[1])],
        outputs_info=[pt.zeros_like(scores, dtype="bool")],
        return_updates=False,
    )
    batch_index, class_index, rank = pt.nonzero(kept[-1])
    box_index = order[batch_index, class_index, rank]
    return as_dtype(pt.stack([batch_index, class_index, box_index], axis=1), "int64")


def sample_positions(start, bin_size, bins, grid, samples):
    """Per ROI, the sample coordinates ``(R, bins, samples)`` of each bin along an
    axis, and which of the ``samples`` slots the ROI's own ``grid`` uses."""
    slots = pt.arange(samples)
    offsets = (
        as_dtype(slots[None, :] + 0.5, start.dtype)
        / as_dtype(grid, start.dtype)[:, None]
    )
    bin_starts = as_dtype(pt.arange(bins), start.dtype)[None, :] * bin_size[:, None]
    positions = (start[:, None, None] + bin_starts[:, :, None]) + (
        offsets * bin_size[:, None]
    )[:, None, :]
    return positions, slots[None, :] < grid[:, None]


def bilinear_corners(position, length):
    """RoiAlign's corner indices and weights along an axis (ONNX's rounding)."""
    inside = (position >= -1) & (position <= as_dtype(length, position.dtype))
    position = pt.maximum(position, 0)
    low = as_dtype(pt.floor(position), "int64")
    at_end = low >= length - 1
    low = pt.switch(at_end, length - 1, low)
    high = pt.switch(at_end, length - 1, low + 1)
    position = pt.switch(at_end, as_dtype(low, position.dtype), position)
    fraction = (position - as_dtype(low, position.dtype)) * as_dtype(
        inside, position.dtype
    )
    outside = 1 - as_dtype(inside, position.dtype)
    return [(low, 1 - fraction - outside), (high, fraction)]


@onnx_op("RoiAlign", since=10)
def roi_align(node, x, rois, batch_indices):
    default_mode = "half_pixel" if node.opset >= 16 else "output_half_pixel"
    half_pixel = (
        node.attr("coordinate_transformation_mode", default_mode) == "half_pixel"
    )
    out_h, out_w = node.attr("output_height", 1), node.attr("output_width", 1)
    ratio = node.attr("sampling_ratio", 0)
    rois = as_dtype(rois, x.dtype) * like(node.attr("spatial_scale", 1.0), x)
    if half_pixel:
        rois = rois - like(0.5, x)
    sizes = rois[:, 2:] - rois[:, :2]
    if not half_pixel:
        sizes = pt.maximum(sizes, 1)
    ys, y_used, grid_h = roi_axis_samples(rois[:, 1], sizes[:, 1], out_h, ratio)
    xs, x_used, grid_w = roi_axis_samples(rois[:, 0], sizes[:, 0], out_w, ratio)
    batch = as_int64(batch_indices)[:, None, None, None, None]
    terms = []
    for (y_index, y_weight), (x_index, x_weight) in itertools.product(
        bilinear_corners(ys, x.shape[2]), bilinear_corners(xs, x.shape[3])
    ):
        values = x[batch, :, y_index[:, :, :, None, None], x_index[:, None, None, :, :]]
        weight = y_weight[:, :, :, None, None] * x_weight[:, None, None, :, :]
        terms.append(values * weight[..., None])
    used = (y_used[:, None, :, None, None] & x_used[:, None, None, None, :])[..., None]
    if node.attr("mode", "avg") == "max":
        best = functools.reduce(pt.maximum, terms)
        pooled = pt.switch(used, best, -np.inf).max(axis=(2, 4))
    else:
        total = pt.switch(used, sum(terms), 0).sum(axis=(2, 4))
        count = as_dtype(pt.maximum(grid_h * grid_w, 1), x.dtype)
        pooled = total / count[:, None, None, None]
    return as_dtype(pt.moveaxis(pooled, -1, 1), x.dtype)


def roi_axis_samples(starts, sizes, bins, ratio):
    """Sample coordinates along an axis, which slots each ROI uses, and how many."""
    if ratio > 0:
        grid = pt.full(starts.shape, ratio, dtype="int64")
        samples = ratio
    else:
        grid = pt.maximum(as_dtype(pt.ceil(sizes / bins), "int64"), 1)
        samples = pt.max(grid)
    return (*sample_positions(starts, sizes / bins, bins, grid, samples), grid)
