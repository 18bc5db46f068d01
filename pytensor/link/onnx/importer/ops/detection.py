"""Object detection: NonMaxSuppression.

Greedy suppression is sequential by nature: one ``Scan`` step per box rank
visits, for every batch and class at once, the box of that rank and keeps it
unless it overlaps a box kept before it too much.
"""

import pytensor.tensor as pt

import pytensor
from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import cast, scalar


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
    return cast(scalar(x), dtype)


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
    return cast(pt.stack([batch_index, class_index, box_index], axis=1), "int64")
