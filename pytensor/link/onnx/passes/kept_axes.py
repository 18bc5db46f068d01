"""Reduce with ``keepdims=1`` where an ``Unsqueeze`` restores the reduced axes.

PyTensor reductions drop the reduced axes and ``DimShuffle`` adds them back
(``x.sum(keepdims=True)``, a log-density summed to a scalar then made a
vector of one element to join a gradient): two nodes where ONNX needs one.
"""

import numpy as np

from onnx import helper, numpy_helper
from pytensor.link.onnx.passes.graphs import value_readers


REDUCTIONS = {
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceProd",
    "ReduceSum",
    "ReduceSumSquare",
}


def keep_reduced_axes(graph, context=None):
    """``Unsqueeze(Reduce(x, axes, keepdims=0), axes)`` becomes
    ``Reduce(x, axes, keepdims=1)``, for constant, non-negative axes and
    reductions nothing else reads."""
    readers = value_readers(graph)
    producers = {name: node for node in graph.node for name in node.output}
    constants = {
        tensor.name: numpy_helper.to_array(tensor)
        for tensor in graph.initializer
        if len(tensor.dims) == 1
    }
    restored = set()
    for node in graph.node:
        if node.op_type != "Unsqueeze":
            continue
        reduction = producers.get(node.input[0])
        if (
            reduction is None
            or reduction.op_type not in REDUCTIONS
            or readers[node.input[0]] != 1
            or keepdims(reduction) != 0
            or len(reduction.input) < 2
        ):
            continue
        reduced = constants.get(reduction.input[1])
        restored_axes = constants.get(node.input[1])
        if reduced is None or restored_axes is None or not reduced.size:
            continue
        if np.all(reduced >= 0) and set(reduced.tolist()) == set(
            restored_axes.tolist()
        ):
            set_keepdims(reduction)
            reduction.output[0] = node.output[0]
            restored.add(node.name)
    if restored:
        kept = [node for node in graph.node if node.name not in restored]
        del graph.node[:]
        graph.node.extend(kept)


def keepdims(node) -> int:
    for attribute in node.attribute:
        if attribute.name == "keepdims":
            return helper.get_attribute_value(attribute)
    return 1


def set_keepdims(node):
    kept = [attribute for attribute in node.attribute if attribute.name != "keepdims"]
    del node.attribute[:]
    node.attribute.extend([*kept, helper.make_attribute("keepdims", 1)])
