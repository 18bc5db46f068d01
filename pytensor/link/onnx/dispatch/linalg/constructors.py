"""Converter of the block-diagonal matrices of ``scipy.linalg.block_diag``."""

from pytensor.link.onnx.dispatch.linalg.ops import BlockDiagonal
from pytensor.link.onnx.dispatch.linalg.shared import output_dtype, register_stacked
from pytensor.link.onnx.numerics.linalg.constructors import block_diagonal


@register_stacked(BlockDiagonal)
def block_diagonal_stacked(op, node, *matrices):
    dtype = output_dtype(node)
    return [block_diagonal([matrix.cast(dtype) for matrix in matrices])]
