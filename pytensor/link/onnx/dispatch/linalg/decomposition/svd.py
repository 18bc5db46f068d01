"""Converter of the singular value decomposition (one-sided Jacobi)."""

from pytensor.link.onnx.dispatch.linalg.ops import SVD
from pytensor.link.onnx.dispatch.linalg.shared import (
    is_wide,
    output_dtype,
    register_stacked,
)
from pytensor.link.onnx.numerics.linalg.decomposition.svd import svd, thin_svd


@register_stacked(SVD)
def svd_stacked(op, node, a):
    a = a.cast(output_dtype(node))
    transposed = is_wide(node.inputs[0])
    if not op.compute_uv:
        singular_values, *_ = thin_svd(a, transposed)
        return [singular_values.squeeze([1])]
    u, singular_values, vh = svd(
        a, full_matrices=op.full_matrices, transposed=transposed
    )
    return [u, singular_values.squeeze([1]), vh]
