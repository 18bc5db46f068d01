"""Values PyTensor's gradients build twice, shuffled before and after an
elementwise graph, merged into one."""

import numpy as np
from pytensor.compile.mode import optdb
from pytensor.graph.basic import Constant
from pytensor.graph.rewriting.basic import (
    MergeOptimizer,
    SequentialGraphRewriter,
    in2out,
    node_rewriter,
)
from pytensor.tensor.basic import constant
from pytensor.tensor.elemwise import DimShuffle, Elemwise

from pytensor.link.onnx.rewrites.configuration import (
    MERGE_DIMSHUFFLED_TWINS_POSITION,
    ONNX_TAG,
)
from pytensor.link.onnx.rewrites.elementwise import equal_constants


@node_rewriter([DimShuffle])
def local_dimshuffle_to_lifted_twin(fgraph, node):
    """``dimshuffle(f(x, ...))`` for an elementwise graph ``f`` becomes
    ``f(dimshuffle(x), ...)`` where the graph already holds that form.

    PyTensor's gradients build both forms of one value (``exp(v)[None,
    None]`` next to ``exp(v[None, None])``) and its own lifting of
    ``DimShuffle`` stops where a value has several clients, so the two, and
    everything computed from them, never merge: PyMC's GP computes its
    covariance matrix and its Cholesky factor twice. Only existing nodes are
    reused, so the graph never grows.
    """
    [shuffled] = node.inputs
    twin = lifted_twin(fgraph, shuffled, node.op, depth=LIFTED_TWIN_DEPTH)
    if twin is None or twin is node.outputs[0] or twin.type != node.outputs[0].type:
        return None
    return [twin]


LIFTED_TWIN_DEPTH = 16


def lifted_twin(fgraph, var, shuffle, depth):
    """A variable of ``fgraph`` equal to ``shuffle(var)``, through the
    elementwise graph of ``var`` (at most ``depth`` nodes deep), or None.

    ``var`` itself is looked up among its clients only below the first
    level, so that the node asking is not its own twin.
    """
    node = var.owner
    if node is None or not isinstance(node.op, Elemwise) or len(node.outputs) > 1:
        return None
    lifted = []
    for inp in node.inputs:
        if isinstance(inp, Constant):
            lifted.append(constant(dimshuffled(inp.data, shuffle), dtype=inp.dtype))
            continue
        twin = next(
            (
                client.outputs[0]
                for client, _ in fgraph.clients[inp]
                if client.op == shuffle
            ),
            None,
        )
        if twin is None and depth > 1:
            twin = lifted_twin(fgraph, inp, shuffle, depth - 1)
        if twin is None:
            return None
        lifted.append(twin)
    anchor = next((inp for inp in lifted if not isinstance(inp, Constant)), None)
    if anchor is None:
        return None
    for client, _ in fgraph.clients[anchor]:
        if (
            client.op == node.op
            and len(client.inputs) == len(lifted)
            and all(
                inp is twin or equal_constants(inp, twin)
                for inp, twin in zip(client.inputs, lifted, strict=True)
            )
        ):
            return client.outputs[0]
    return None


def dimshuffled(data, shuffle: DimShuffle) -> np.ndarray:
    """``data`` shuffled as ``shuffle`` does (its dropped axes have length one)."""
    data = np.asarray(data)
    shape = [1 if axis == "x" else data.shape[axis] for axis in shuffle.new_order]
    return data.transpose([*shuffle.shuffle, *shuffle.drop]).reshape(shape)


MERGE_DIMSHUFFLED_TWINS = SequentialGraphRewriter(
    MergeOptimizer(),
    in2out(local_dimshuffle_to_lifted_twin, name="local_dimshuffle_to_lifted_twin"),
    MergeOptimizer(),
)


optdb.register(
    "merge_dimshuffled_twins",
    MERGE_DIMSHUFFLED_TWINS,
    ONNX_TAG,
    position=MERGE_DIMSHUFFLED_TWINS_POSITION,
)
