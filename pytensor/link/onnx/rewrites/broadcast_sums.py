"""Sums of a broadcast array, summed before broadcasting."""

from pytensor.compile.mode import optdb
from pytensor.graph.rewriting.basic import copy_stack_trace, node_rewriter
from pytensor.scalar import Second
from pytensor.tensor.basic import Alloc, alloc
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.math import Sum
from pytensor.tensor.shape import shape_padleft

from pytensor.link.onnx.rewrites.configuration import ONNX_TAG


@node_rewriter([Sum])
def local_sum_before_broadcast(fgraph, node):
    """``sum(alloc(v, *shape), axes)``, and the same of ``second(x, v)``,
    becomes ``alloc(sum(v, axes), *kept)`` when ``v`` already has the full
    length of every summed axis.

    Each sum then adds the same elements as before, once instead of once per
    copy that the broadcast made: the gradients of PyMC's log-densities sum
    parameters broadcast against the data (``(chains, 1)`` against
    ``(1, observations)``), which cost two data-sized nodes.
    """
    [broadcast] = node.inputs
    out_type = broadcast.type
    values = broadcast_values(broadcast)
    if values is None or None in out_type.shape:
        return None
    values = shape_padleft(values, out_type.ndim - values.type.ndim)
    axes = node.op.axis if node.op.axis is not None else range(out_type.ndim)
    if any(values.type.shape[axis] != out_type.shape[axis] for axis in axes):
        return None
    summed = type(node.op)(
        axis=node.op.axis, dtype=node.op.dtype, acc_dtype=node.op.acc_dtype
    )(values)
    kept = [length for axis, length in enumerate(out_type.shape) if axis not in axes]
    new = alloc(summed, *kept) if summed.type.shape != tuple(kept) else summed
    copy_stack_trace(node.outputs[0], new)
    return [new]


def broadcast_values(var):
    """``v`` of ``var = alloc(v, ...)`` or ``var = second(x, v)``, else None."""
    node = var.owner
    if node is None:
        return None
    if isinstance(node.op, Alloc):
        return node.inputs[0]
    if isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, Second):
        return node.inputs[1]
    return None


optdb["specialize"].register(
    "local_sum_before_broadcast", local_sum_before_broadcast, ONNX_TAG
)
