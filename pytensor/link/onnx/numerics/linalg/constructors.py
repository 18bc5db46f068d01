"""Matrices assembled from others."""

from pytensor.link.onnx.numerics.linalg.stacks import full
from pytensor.link.onnx.value import Value, concat


def block_diagonal(matrices) -> Value:
    """The block diagonal stack with the stacks ``matrices`` (of one dtype) on its diagonal."""
    widths = [matrix.shape(2, 3) for matrix in matrices]
    total = widths[0]
    for width in widths[1:]:
        total = total + width
    rows, left = [], total.indices([0])
    for matrix, width in zip(matrices, widths, strict=True):
        height = matrix.shape(1, 2)
        right = total - left - width
        padded = [
            full(matrix, 0, [height, left]),
            matrix,
            full(matrix, 0, [height, right]),
        ]
        rows.append(concat(padded, axis=2))
        left = left + width
    return concat(rows, axis=1)
