"""Fuse ``Add(MatMul(a, b), c)`` into ``Gemm(a, b, c)``."""

from onnx import numpy_helper
from pytensor.link.onnx.passes.graphs import value_readers


DENSE_LAYER = "dense_layer"


def fuse_dense_layers(graph, context):
    """``Add(MatMul(a, b), c)`` becomes ``Gemm(a, b, c)``.

    Applies to the ``Add`` nodes that converters marked ``DENSE_LAYER`` (see
    `pytensor.link.onnx.dispatch.elemwise`), when nothing else reads the
    product. A bias that reaches the ``Add`` through ``Unsqueeze`` is passed
    to ``Gemm`` directly. onnxruntime fuses these nodes itself when it loads a
    model; this pass gives an exported file the same, smaller graph.
    """
    additions = context.marks.get(DENSE_LAYER)
    if not additions:
        return
    readers = value_readers(graph)
    producers = {name: node for node in graph.node for name in node.output}
    axes = {
        t.name: numpy_helper.to_array(t).tolist()
        for t in graph.initializer
        if list(t.dims) == [1]
    }
    for node in graph.node:
        if node.name not in additions:
            continue
        for product, bias in (node.input, node.input[::-1]):
            matmul = producers.get(product)
            if matmul is None or matmul.op_type != "MatMul" or readers[product] > 1:
                continue
            row = producers.get(bias)
            if row and row.op_type == "Unsqueeze" and axes.get(row.input[1]) == [0]:
                bias = row.input[0]
            node.op_type = "Gemm"
            node.input[:] = [*matmul.input, bias]
            break
