"""What the mode's rewrites ask of elementwise graphs."""

from pytensor.graph.basic import Constant
from pytensor.raise_op import CheckAndRaise
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.type import TensorType


def is_one_value(var) -> bool:
    return all(length == 1 for length in var.type.shape)


def equal_constants(x, y) -> bool:
    return isinstance(x, Constant) and isinstance(y, Constant) and x.equals(y)


def elementwise_nodes(var, through=lambda node: True, checks=False) -> list:
    """The ``Elemwise`` nodes that compute ``var`` from the outputs of other
    nodes through ``Elemwise`` nodes only (and only those ``through`` accepts),
    each after those it reads; with ``checks``, also through the checked value
    (not the conditions) of ``CheckAndRaise`` nodes, which are listed too."""
    order, seen = [], set()
    stack = [(var.owner, False)]
    while stack:
        node, inputs_done = stack.pop()
        if node is None or not through(node):
            continue
        is_check = checks and isinstance(node.op, CheckAndRaise)
        if not (is_check or isinstance(node.op, Elemwise)):
            continue
        if inputs_done:
            order.append(node)
        elif node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend((inp.owner, False) for inp in elementwise_inputs(node))
    return order


def elementwise_inputs(node) -> list:
    """The inputs of ``node`` computed with element by element: a
    ``CheckAndRaise``'s checked value, an ``Elemwise``'s every input."""
    return node.inputs[:1] if isinstance(node.op, CheckAndRaise) else node.inputs


def is_batchable_call(node) -> bool:
    """Whether ``node`` is a one-output ``Elemwise`` whose output shape needs
    no runtime check: along each axis, its inputs' lengths are all static or
    only one of them is not a static 1."""
    if not isinstance(node.op, Elemwise) or len(node.outputs) != 1:
        return False
    if not all(isinstance(inp.type, TensorType) for inp in node.inputs):
        return False
    for lengths in zip(*(inp.type.shape for inp in node.inputs), strict=True):
        not_one = [length for length in lengths if length != 1]
        if None in not_one and len(not_one) > 1:
            return False
    return True
