"""Image resampling: Resize and Upsample.

Resizing is separable and linear in the input (plus a constant where
``tf_crop_and_resize`` extrapolates), so each resized axis becomes a product
with a fixed matrix. The matrices are computed when the model is imported, by
ONNX's reference implementation applied to an identity matrix: they carry
ONNX's own coordinate transforms, rounding and cubic coefficients.
"""

import copy

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import disconnected_type
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, constant_value, like


RESIZE_ATTRIBUTES = (
    "mode",
    "coordinate_transformation_mode",
    "cubic_coeff_a",
    "exclude_outside",
    "extrapolation_value",
    "nearest_mode",
    "antialias",
)


def reference_resize(opset, x, roi=None, scales=None, sizes=None, attributes=None):
    """ONNX's reference ``Resize`` of the array ``x``."""
    names = [
        "x",
        "roi" if roi is not None else "",
        "scales" if scales is not None else "",
    ]
    names.append("sizes" if sizes is not None else "")
    while not names[-1]:
        names.pop()
    feeds = {"x": x, "roi": roi, "scales": scales, "sizes": sizes}
    feeds = {n: feeds[n] for n in names if n}
    resize = helper.make_node("Resize", names, ["y"], **(attributes or {}))
    inputs = [
        helper.make_tensor_value_info(
            n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape
        )
        for n, v in feeds.items()
    ]
    output = helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)
    graph = helper.make_graph([resize], "resize", inputs, [output])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10
    )
    return ReferenceEvaluator(model).run(None, feeds)[0]


def node_attributes(node):
    """The attributes that shape one axis's matrix; outside points weigh zero."""
    attributes = {a: node.attr(a) for a in RESIZE_ATTRIBUTES if a in node.attrs}
    return attributes | {"extrapolation_value": 0.0}


def full_axes_values(node, values, ndim, fill):
    """``values`` given for the node's ``axes`` spread over all ``ndim`` axes."""
    axes = node.attr("axes")
    if values is None or axes is None:
        return values
    full = [fill] * ndim
    for i, axis in enumerate(axes):
        full[axis % ndim] = values[i]
    return full


def entries_or_none(x):
    if x is None:
        return None
    value = constant_value(x)
    if value is not None:
        return None if value.size == 0 else [v for v in value.ravel()]
    if x.type.shape[0] == 0:
        return None
    return [x[i] for i in range(x.type.shape[0])]


def aspect_scales(node, shape, sizes):
    """The scales ``keep_aspect_ratio_policy`` gives ``sizes``, or ``None``."""
    policy = node.attr("keep_aspect_ratio_policy", "stretch")
    if sizes is None or policy == "stretch":
        return None
    axes = range(len(shape)) if node.attr("axes") is None else node.attr("axes")
    ratios = [as_dtype(sizes[a], "float64") / shape[a] for a in axes]
    pick = pt.minimum if policy == "not_larger" else pt.maximum
    scale = ratios[0]
    for ratio in ratios[1:]:
        scale = pick(scale, ratio)
    return [
        scale if d in axes or d - len(shape) in axes else 1.0 for d in range(len(shape))
    ]


class ResizeMatrix(Op):
    """The matrix of ONNX ``Resize`` along one axis, for run-time sizes or scales."""

    __props__ = ("attributes", "opset", "given")

    def __init__(self, attributes, opset, given):
        self.attributes = attributes
        self.opset = opset
        self.given = given

    def make_node(self, length, scale, size, roi_start, roi_end):
        inputs = [pt.as_tensor(v) for v in (length, scale, size, roi_start, roi_end)]
        return Apply(self, inputs, [pt.matrix(dtype="float64")])

    def perform(self, node, inputs, outputs):
        length, scale, size, roi_start, roi_end = (np.asarray(v) for v in inputs)
        outputs[0][0] = axis_matrix(
            dict(self.attributes),
            self.opset,
            int(length),
            scale if "scales" in self.given else None,
            size if "sizes" in self.given else None,
            (roi_start, roi_end) if "roi" in self.given else None,
        )

    def grad(self, inputs, output_grads):
        return [disconnected_type() for _ in inputs]


def axis_matrix(attributes, opset, length, scale, size, roi):
    """The matrix ``A`` with ``resized = x @ A`` along an axis of length ``length``."""
    axis_scales = None if scale is None else np.array([1.0, scale], "float32")
    axis_sizes = None if size is None else np.array([length, size], "int64")
    axis_roi = None if roi is None else np.array([0, roi[0], 1, roi[1]], "float32")
    return reference_resize(
        opset, np.eye(length), axis_roi, axis_scales, axis_sizes, attributes
    )


def is_constant(*values):
    return all(
        not isinstance(v, pt.TensorVariable) or constant_value(v) is not None
        for v in values
    )


def as_number(v):
    return constant_value(v).item() if isinstance(v, pt.TensorVariable) else v


@onnx_op("Resize", since=10)
def resize(node, x, roi=None, scales=None, sizes=None):
    if node.opset == 10:
        roi, scales, sizes = None, roi, None
    ndim = x.ndim
    shape = [
        x.type.shape[d] if x.type.shape[d] is not None else x.shape[d]
        for d in range(ndim)
    ]
    roi, scales, sizes = (entries_or_none(v) for v in (roi, scales, sizes))
    scales = full_axes_values(node, scales, ndim, 1.0)
    sizes = full_axes_values(node, sizes, ndim, None)
    if sizes is not None:
        sizes = [shape[d] if s is None else s for d, s in enumerate(sizes)]
    if roi is not None:
        half = len(roi) // 2
        roi = list(
            zip(
                full_axes_values(node, roi[:half], ndim, 0.0),
                full_axes_values(node, roi[half:], ndim, 1.0),
                strict=True,
            )
        )
    if (aspect := aspect_scales(node, shape, sizes)) is not None:
        scales, sizes = aspect, None
    attributes = tuple(sorted(node_attributes(node).items()))
    given = tuple(
        n
        for n, v in (("scales", scales), ("sizes", sizes), ("roi", roi))
        if v is not None
    )
    y = as_dtype(x, "float64")
    valid = []
    for axis in range(ndim):
        scale = None if scales is None else scales[axis]
        size = None if sizes is None else sizes[axis]
        axis_roi = None if roi is None else roi[axis]
        values = [shape[axis], scale, size, *(axis_roi or ())]
        if is_constant(*values):
            numbers = [as_number(v) for v in values]
            if numbers[1:3] in ([1.0, None], [None, numbers[0]]) and (
                axis_roi is None or numbers[3:] == [0.0, 1.0]
            ):
                continue
            matrix = pt.constant(
                axis_matrix(
                    dict(attributes),
                    node.opset,
                    numbers[0],
                    numbers[1],
                    numbers[2],
                    numbers[3:] or None,
                )
            )
        else:
            matrix = ResizeMatrix(attributes, node.opset, given)(
                shape[axis],
                -1.0 if scale is None else scale,
                -1 if size is None else size,
                *(axis_roi or (0.0, 1.0)),
            )
        y = pt.moveaxis(pt.tensordot(y, matrix, axes=[[axis], [0]]), -1, axis)
        valid.append(pt.shape_padright(matrix.sum(axis=0), ndim - 1 - axis))
    if node.attr("coordinate_transformation_mode") == "tf_crop_and_resize" and valid:
        inside = valid[0]
        for v in valid[1:]:
            inside = inside * v
        y = y + like(node.attr("extrapolation_value", 0.0), y) * (1 - inside)
    return as_dtype(y, x.dtype)


@onnx_op("Upsample")
def upsample(node, x, scales=None):
    if scales is None:
        scales = pt.constant(np.asarray(node.attr("scales"), dtype="float32"))
    resize_node = copy.copy(node)
    resize_node.opset = 10
    resize_node.attrs = {k: v for k, v in node.attrs.items() if k == "mode"}
    return resize(resize_node, x, scales)
