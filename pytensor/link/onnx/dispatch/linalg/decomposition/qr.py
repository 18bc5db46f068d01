"""Converter of the QR decomposition (Householder reflections)."""

from pytensor.link.onnx.dispatch.linalg.ops import QR
from pytensor.link.onnx.dispatch.linalg.shared import output_dtype, register_stacked
from pytensor.link.onnx.numerics.linalg.decomposition.qr import qr


@register_stacked(QR)
def qr_stacked(op, node, a):
    outputs = qr(a.cast(output_dtype(node)), op.mode, op.pivoting)
    if op.pivoting:
        outputs[-1] = outputs[-1].cast(node.outputs[-1].type.dtype)
    return outputs
