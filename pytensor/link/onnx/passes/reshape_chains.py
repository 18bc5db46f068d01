"""Remove chains of reshapes that end where they started.

Converters reshape values to the layout an ONNX op wants and back (a
``Blockwise`` convolution flattens its batch axes around ``Conv``, a
``DimShuffle`` adds the axis the next layer's batch layout needs). Once an
export fixes the input dims, ONNX shape inference knows the shapes along such
a chain, symbolic dims by name: a chain of ``Reshape``, ``Squeeze``,
``Unsqueeze`` and ``Flatten`` nodes whose result has the shape of one of its
inputs is that input, and an elementwise function of one value commutes with
reshapes, so it moves above them to let the chains around it meet. A
``Reshape`` that merges all axes but the first becomes a ``Flatten``, and one
whose only symbolic dim is its input's gets a constant target.
"""

import math

import numpy as np

from onnx import helper, numpy_helper
from pytensor.link.onnx.passes.fold_constants import static_shapes
from pytensor.link.onnx.passes.graphs import replace_uses, value_readers


RESHAPES = frozenset({"Reshape", "Squeeze", "Unsqueeze", "Flatten"})
ELEMENTWISE_UNARY = frozenset(
    {
        *("Relu", "LeakyRelu", "Elu", "Selu", "Sigmoid", "HardSigmoid", "Softplus"),
        *("Tanh", "Neg", "Abs", "Exp", "Log", "Sqrt", "Reciprocal", "Sign"),
        *("Floor", "Ceil", "Round", "Erf", "Sin", "Cos", "IsNaN", "IsInf", "Not"),
        *("Cast", "Identity"),
    }
)


def is_known(shape) -> bool:
    return shape is not None and None not in shape


def remove_reshape_chains(graph, context):
    """Skip the reshape chains that give back one of their inputs (see module doc).

    Runs on exports only, where ONNX shape inference knows the input dims.
    """
    if context.weights is None:
        return
    while True:
        shapes = static_shapes(context.model, context.weights)
        if not (skip_round_trips(graph, shapes) | hoist_elementwise(graph)):
            break
    shapes = static_shapes(context.model, context.weights)
    flatten_to_matrices(graph, shapes)
    constant_reshape_targets(graph, shapes)


def skip_round_trips(graph, shapes) -> bool:
    """Make the readers of each reshape chain's result read the chain's input
    of the same shape instead."""
    producers = {name: node for node in graph.node for name in node.output}
    outputs = {info.name for info in graph.output}
    readers = value_readers(graph)
    replacements = {}
    for node in graph.node:
        result = node.output[0]
        if node.op_type not in RESHAPES or result in outputs or not readers[result]:
            continue
        if not is_known(shapes.get(result)):
            continue
        source = node
        while source is not None and source.op_type in RESHAPES:
            start = source.input[0]
            if shapes.get(start) == shapes[result]:
                replacements[result] = replacements.get(start, start)
                break
            source = producers.get(start)
    replace_uses(graph, replacements)
    return bool(replacements)


def flatten_to_matrices(graph, shapes):
    """Make each ``Reshape`` that keeps the first axis and merges the others a
    ``Flatten``, which needs no computed target shape."""
    producers = {name: node for node in graph.node for name in node.output}
    constants = {t.name: t for t in graph.initializer}
    for node in graph.node:
        if node.op_type != "Reshape":
            continue
        before, after = shapes.get(node.input[0]), shapes.get(node.output[0])
        if not (is_known(before) and is_known(after)) or len(after) != 2:
            continue
        rest = before[1:]
        if after[0] != before[0] or not all(isinstance(dim, int) for dim in rest):
            continue
        last = last_target_entry(node.input[1], producers, constants)
        if math.prod(rest) not in (after[1], last) and last != -1:
            continue
        del node.input[1:]
        del node.attribute[:]
        node.op_type = "Flatten"
        node.attribute.append(helper.make_attribute("axis", 1))


def constant_reshape_targets(graph, shapes):
    """Give each ``Reshape`` whose result has one symbolic dim, the input's dim
    at the same axis, a constant target that copies that dim (0 with
    ``allowzero=0``) instead of one computed at run time. Shape inference then
    still knows the dim's name."""
    constants = {t.name for t in graph.initializer}
    names = constants | produced(graph)
    for node in graph.node:
        if node.op_type != "Reshape" or node.input[1] in constants:
            continue
        before, after = shapes.get(node.input[0]), shapes.get(node.output[0])
        if not (is_known(before) and is_known(after)):
            continue
        symbolic = [axis for axis, dim in enumerate(after) if not isinstance(dim, int)]
        if len(symbolic) != 1 or 0 in after:
            continue
        [axis] = symbolic
        if axis >= len(before) or before[axis] != after[axis]:
            continue
        target = fresh(f"{node.output[0]}_shape", names)
        dims = [0 if position == axis else dim for position, dim in enumerate(after)]
        graph.initializer.append(
            numpy_helper.from_array(np.array(dims, dtype="int64"), target)
        )
        node.input[1] = target
        del node.attribute[:]


def produced(graph) -> set[str]:
    return {name for node in graph.node for name in node.output}


def last_target_entry(target, producers, constants):
    """The last entry of the shape vector ``target`` if it is a constant
    (or a ``Concat`` ending with one), else None."""
    concat = producers.get(target)
    if concat is not None and concat.op_type == "Concat":
        target = concat.input[-1]
    if target not in constants:
        return None
    entries = numpy_helper.to_array(constants[target]).ravel()
    return int(entries[-1]) if entries.size else None


def hoist_elementwise(graph) -> bool:
    """Move each unary elementwise node above the reshape it reads, when nothing
    else reads that reshape: ``f(reshape(x))`` becomes ``reshape(f(x))``."""
    producers = {name: node for node in graph.node for name in node.output}
    readers = value_readers(graph)
    names = set(producers) | {info.name for info in graph.input}
    moved = False
    for node in list(graph.node):
        if node.op_type not in ELEMENTWISE_UNARY or node.domain not in ("", "ai.onnx"):
            continue
        reshape = producers.get(node.input[0])
        if reshape is None or reshape.op_type not in RESHAPES:
            continue
        if readers[reshape.output[0]] != 1:
            continue
        applied = fresh(f"{node.output[0]}_unshaped", names)
        result = node.output[0]
        node.input[0], node.output[0] = reshape.input[0], applied
        reshape.input[0], reshape.output[0] = applied, result
        graph.node.remove(node)
        graph.node.insert(list(graph.node).index(reshape), node)
        producers[applied], producers[result] = node, reshape
        moved = True
    return moved


def fresh(name, names) -> str:
    candidate, suffix = name, 0
    while candidate in names:
        suffix += 1
        candidate = f"{name}_{suffix}"
    names.add(candidate)
    return candidate
