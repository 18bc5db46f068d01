"""Move into the branches of ``If`` nodes the nodes that only one branch uses.

PyTensor's ``IfElse`` takes the values of both branches as inputs; its
laziness comes from the virtual machine, which computes only the inputs of
the branch taken. In ONNX, only what is inside an ``If``'s branch subgraph is
lazy: the ``IfElse`` converter makes branches that just return their values,
and `move_into_branches` then moves into a branch every node whose values
nothing else uses. A value that branches of two different ``If`` use is
computed before both (nodes are moved, never duplicated).
"""

from collections import defaultdict

from onnx import GraphProto, NodeProto
from pytensor.link.onnx.passes.graphs import names_used_inside


BRANCHES = ("then_branch", "else_branch")


def common_prefix(places):
    prefix = places[0]
    for place in places[1:]:
        length = 0
        while length < min(len(prefix), len(place)) and prefix[length] == place[length]:
            length += 1
        prefix = prefix[:length]
    return prefix


def move_into_branches(graph: GraphProto, context=None):
    """Move into an ``If`` branch the nodes of ``graph`` that only this branch uses.

    A node's place is the innermost branch using all of its outputs: a tuple
    of ``(If node index, branch name)`` from the outermost ``If`` inward, or
    ``()`` for the graph itself. Nodes are placed from the last to the first,
    so that the users of a node are placed before it; values read inside a
    ``Loop`` body are used at the place of the ``Loop``.
    """
    if not any(node.op_type == "If" for node in graph.node):
        return
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
        if not outputs_used_at:
            continue  # unread: `remove_unread` drops it, its inputs stay movable
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
