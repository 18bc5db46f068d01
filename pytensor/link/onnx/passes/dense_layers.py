"""Fuse ``Add(MatMul(a, b), c)`` into ``Gemm(a, b, c)``."""

from onnx import numpy_helper
from pytensor.link.onnx.kernels import kernel_dtypes
from pytensor.link.onnx.passes.graphs import value_readers


GEMM_DTYPES = kernel_dtypes("Gemm")
# Marks a converter of a matrix product puts on a ``MatMul`` of two matrices
# that ``Gemm`` computes
GEMM_PRODUCT = "gemm_product"
# Marks a converter of an addition puts on an ``Add`` whose first (second)
# input, when a marked product, may take the other as ``Gemm``'s bias
DENSE_LAYER_PRODUCT_AT = ("dense_layer_product_first", "dense_layer_product_second")


def fuse_dense_layers(graph, context):
    """``Add(MatMul(a, b), c)`` becomes ``Gemm(a, b, c)``.

    Applies where the ``Add`` is marked to take its input at that position
    (`DENSE_LAYER_PRODUCT_AT`) as a ``MatMul`` marked `GEMM_PRODUCT` (see
    `pytensor.link.onnx.dispatch.elemwise` and ``dispatch.math``), when
    nothing else reads the product. A bias that reaches the ``Add`` through
    ``Unsqueeze`` is passed to ``Gemm`` directly. onnxruntime fuses these
    nodes itself when it loads a model; this pass gives an exported file the
    same, smaller graph.
    """
    products = context.marks.get(GEMM_PRODUCT, set())
    additions = [context.marks.get(mark, set()) for mark in DENSE_LAYER_PRODUCT_AT]
    if not products or not any(additions):
        return
    readers = value_readers(graph)
    producers = {name: node for node in graph.node for name in node.output}
    axes = {
        t.name: numpy_helper.to_array(t).tolist()
        for t in graph.initializer
        if list(t.dims) == [1]
    }
    for node in graph.node:
        for position, marked in enumerate(additions):
            if node.name not in marked:
                continue
            product, bias = node.input[position], node.input[1 - position]
            matmul = producers.get(product)
            if matmul is None or matmul.name not in products or readers[product] > 1:
                continue
            row = producers.get(bias)
            if row and row.op_type == "Unsqueeze" and axes.get(row.input[1]) == [0]:
                bias = row.input[0]
            node.op_type = "Gemm"
            node.input[:] = [*matmul.input, bias]
            break
