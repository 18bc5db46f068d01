"""The ``IfElse`` converter: an ONNX ``If`` that computes only the taken branch.

PyTensor's ``IfElse`` takes the values of both branches as inputs; its
laziness comes from the virtual machine, which computes only the inputs of
the branch taken. In ONNX, only what is inside an ``If``'s branch subgraph is
lazy. So each branch first just returns its values, then `move_into_branches`
moves into a branch every node whose values nothing else uses, once the
whole graph is built. A value that branches of two different ``If`` use is
computed before both (nodes are moved, never duplicated).
"""

from collections import defaultdict

from pytensor.ifelse import IfElse

from onnx import GraphProto, NodeProto
from pytensor.link.onnx.builder import names_used_inside
from pytensor.link.onnx.dispatch.basic import onnx_funcify, variable_shape


BRANCHES = ("then_branch", "else_branch")


def branch_graph(builder, hint, values, variables):
    """A subgraph returning ``values``, the ONNX names of ``variables``."""
    branch = builder.subgraph(hint)
    for value, var in zip(values, variables, strict=True):
        branch.add_output(value, hint, var.type.dtype, variable_shape(var))
    return branch.make_graph()


@onnx_funcify.register(IfElse)
def onnx_funcify_IfElse(op, node, builder, inputs, **kwargs):
    condition, *values = inputs
    condition = builder.cast(condition, node.inputs[0].type.dtype, "bool")
    then_vars, else_vars = node.inputs[1 : 1 + op.n_outs], node.inputs[1 + op.n_outs :]
    if move_into_branches not in builder.graph_passes:
        builder.graph_passes.append(move_into_branches)
    return builder.add_multi(
        "If",
        [condition],
        n_outputs=op.n_outs,
        then_branch=branch_graph(builder, "then", values[: op.n_outs], then_vars),
        else_branch=branch_graph(builder, "else", values[op.n_outs :], else_vars),
        hint="ifelse",
    )


def common_prefix(places):
    prefix = places[0]
    for place in places[1:]:
        length = 0
        while length < min(len(prefix), len(place)) and prefix[length] == place[length]:
            length += 1
        prefix = prefix[:length]
    return prefix


def move_into_branches(graph: GraphProto):
    """Move into an ``If`` branch the nodes of ``graph`` that only this branch uses.

    A node's place is the innermost branch using all of its outputs: a tuple
    of ``(If node index, branch name)`` from the outermost ``If`` inward, or
    ``()`` for the graph itself. Nodes are placed from the last to the first,
    so that the users of a node are placed before it; values read inside a
    ``Loop`` body are used at the place of the ``Loop``.
    """
    nodes = [NodeProto() for _ in graph.node]
    for copy, node in zip(nodes, graph.node, strict=True):
        copy.CopyFrom(node)
    uses = defaultdict(list)
    for info in graph.output:
        uses[info.name].append(())
    places: list[tuple] = [()] * len(nodes)

    for index in reversed(range(len(nodes))):
        node = nodes[index]
        outputs_used_at = [uses[name] for name in node.output if uses[name]]
        if outputs_used_at:
            places[index] = common_prefix([p for used in outputs_used_at for p in used])
        place = places[index]
        for name in node.input:
            uses[name].append(place)
        for attribute in node.attribute:
            inner_place = place
            if node.op_type == "If" and attribute.name in BRANCHES:
                inner_place = (*place, (index, attribute.name))
            for subgraph in (attribute.g, *attribute.graphs):
                for name in names_used_inside(subgraph):
                    uses[name].append(inner_place)

    moved = defaultdict(list)
    for index, place in enumerate(places):
        if place:
            moved[place[-1]].append(index)
    for index, node in enumerate(nodes):
        for attribute in node.attribute:
            branch_nodes = [nodes[i] for i in moved.get((index, attribute.name), ())]
            if branch_nodes:
                kept = list(attribute.g.node)
                del attribute.g.node[:]
                attribute.g.node.extend([*branch_nodes, *kept])
    del graph.node[:]
    graph.node.extend(
        node for node, place in zip(nodes, places, strict=True) if not place
    )
