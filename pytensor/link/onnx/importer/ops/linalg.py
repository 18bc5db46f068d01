"""Matrix products and linear algebra: MatMul, Gemm, Einsum, Det."""

import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, like


@onnx_op("MatMul")
def matmul(node, a, b):
    return as_dtype(pt.matmul(a, b), a.dtype)


@onnx_op("MatMulInteger")
def matmul_integer(node, a, b, a_zero=None, b_zero=None):
    a, b = as_dtype(a, "int32"), as_dtype(b, "int32")
    if a_zero is not None:
        a = a - (
            as_dtype(a_zero, "int32")[:, None]
            if a_zero.ndim
            else as_dtype(a_zero, "int32")
        )
    if b_zero is not None:
        b = b - as_dtype(b_zero, "int32")
    return as_dtype(pt.matmul(a, b), "int32")


@onnx_op("Gemm")
def gemm(node, a, b, c=None):
    a = a.T if node.attr("transA", 0) else a
    b = b.T if node.attr("transB", 0) else b
    result = like(node.attr("alpha", 1.0), a) * pt.dot(a, b)
    if c is not None:
        result = result + like(node.attr("beta", 1.0), c) * c
    return as_dtype(result, a.dtype)


@onnx_op("Einsum")
def einsum(node, *operands):
    equation = node.attr("equation").replace(" ", "")
    return as_dtype(pt.einsum(equation, *operands), operands[0].dtype)


@onnx_op("Det")
def determinant(node, x):
    return pt.linalg.det(x)
