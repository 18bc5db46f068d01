"""Comparisons, boolean logic and selection."""

import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import broadcasting


COMPARISONS = {
    "Equal": pt.eq,
    "Less": pt.lt,
    "Greater": pt.gt,
    "LessOrEqual": pt.le,
    "GreaterOrEqual": pt.ge,
    "And": pt.and_,
    "Or": pt.or_,
    "Xor": pt.xor,
}

for op_type, function in COMPARISONS.items():
    onnx_op(op_type)(lambda node, x, y, function=function: broadcasting(function)(x, y))


@onnx_op("Not")
def logical_not(node, x):
    return pt.invert(x)


@onnx_op("Where")
def where(node, condition, x, y):
    return broadcasting(pt.switch)(condition, x, y)
