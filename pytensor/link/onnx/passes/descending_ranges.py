"""Keep onnxruntime from turning a ``Gather`` of a descending ``Range`` into a ``Slice``.

onnxruntime's ``GatherToSliceFusion`` (1.31, 1.32) replaces ``Gather(x, Range(start,
limit, step))`` by ``Slice(x, start, limit, step)``. For a descending range
ending before the first element (``Range(n - 1, -1, -1)``, ``x[::-1]`` by
indices) the slice's ``limit`` of -1 means "the last element", so the model
silently returns nothing. Such a range is computed here as ``-Range(-start,
-limit, -step)``: the same values, and a ``Gather`` the fusion does not match.
"""

import numpy as np

from onnx import helper, numpy_helper


def negated_ranges(graph, context=None):
    """Compute the ranges that ``Gather`` nodes of ``graph`` read, and whose step
    is not a known positive constant, as negated ascending ranges."""
    gathered = {node.input[1] for node in graph.node if node.op_type == "Gather"}
    constants = {tensor.name: tensor for tensor in graph.initializer}
    casts = {
        node.output[0]: node.input[0] for node in graph.node if node.op_type == "Cast"
    }
    names = {name for node in graph.node for name in (*node.input, *node.output)}
    nodes = []
    for node in graph.node:
        if node.op_type != "Range" or node.output[0] not in gathered:
            nodes.append(node)
            continue
        step = constants.get(casts.get(node.input[2], node.input[2]))
        if step is not None and np.all(numpy_helper.to_array(step) > 0):
            nodes.append(node)
        else:
            nodes.extend(negated(node, names))
    del graph.node[:]
    graph.node.extend(nodes)


def negated(node, names):
    """``node``, a ``Range``, as ``Neg(Range(Neg(start), Neg(limit), Neg(step)))``."""

    def fresh(hint):
        name = hint
        while name in names:
            name += "_"
        names.add(name)
        return name

    output = node.output[0]
    bounds = [fresh(f"{output}_negated_{role}") for role in ("start", "limit", "step")]
    ascending = fresh(f"{output}_ascending")
    return [
        *(
            helper.make_node(
                "Neg", [bound], [negated_bound], name=fresh(f"{negated_bound}_node")
            )
            for bound, negated_bound in zip(node.input, bounds, strict=True)
        ),
        helper.make_node("Range", bounds, [ascending], name=node.name),
        helper.make_node("Neg", [ascending], [output], name=fresh(f"{output}_node")),
    ]
