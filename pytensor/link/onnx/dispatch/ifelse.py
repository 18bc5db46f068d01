"""The ``IfElse`` converter: an ONNX ``If`` that computes only the taken branch.

PyTensor's ``IfElse`` takes the values of both branches as inputs; its
laziness comes from the virtual machine, which computes only the inputs of
the branch taken. In ONNX, only what is inside an ``If``'s branch subgraph is
lazy. So each branch first just returns its values, then `move_into_branches`
moves into a branch every node whose values nothing else uses, once the
whole graph is built. A value that branches of two different ``If`` use is
computed before both (nodes are moved, never duplicated).

Runtime checks (``CheckAndRaise``, ``SpecifyShape``...) of the nodes that
only a branch needs must hold only where it is taken: the graph converter
defers them to the branch (`pytensor.link.onnx.dispatch.basic.lazy_branches`),
and the ``If`` returns each one's condition from its branch and true from the
other, so that its nodes move into the branch too.
"""

from pytensor.ifelse import IfElse

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.variables import value_type


def branch_graph(builder, hint, values, types):
    """A subgraph returning ``values``, of ``(dtype, shape)`` ``types``.

    With runtime checks, the shapes are declared unknown, as for the graph's
    outputs: a declared shape would fail the ``If`` before the check of the
    very shape it declares (``SpecifyShape``) could say why.
    """
    branch = builder.subgraph(hint)
    for value, (dtype, shape) in zip(values, types, strict=True):
        if builder.keep_checks:
            shape = (None,) * len(shape)
        branch.add_output(value, hint, dtype, shape)
    return branch.make_graph()


def branch_values(values, checks, true, n_before: int, n_after: int):
    """A branch's values, then true for the checks of the other branch that
    come first, the conditions of its own ``checks``, and true again."""
    return [*values, *[true] * n_before, *(h for h, _ in checks), *[true] * n_after]


@onnx_funcify.register(IfElse)
@onnx_funcify.register(IfElse, complex=True)
def onnx_funcify_IfElse(op, node, builder, inputs, **kwargs):
    condition, *values = inputs
    condition = builder.cast(condition, node.inputs[0].type.dtype, "bool")
    then_checks, else_checks = (builder.branch_checks_of((node, i)) for i in (0, 1))
    checks = then_checks + else_checks
    true = builder.constant(True, "bool") if checks else None
    n = op.n_outs
    then_values = branch_values(values[:n], then_checks, true, 0, len(else_checks))
    else_values = branch_values(values[n:], else_checks, true, len(then_checks), 0)
    check_types = [("bool", ())] * len(checks)
    then_types = [*map(value_type, node.inputs[1 : 1 + n]), *check_types]
    else_types = [*map(value_type, node.inputs[1 + n :]), *check_types]
    outputs = builder.add_multi(
        "If",
        [condition],
        n_outputs=len(then_types),
        then_branch=branch_graph(builder, "then", then_values, then_types),
        else_branch=branch_graph(builder, "else", else_values, else_types),
        hint="ifelse",
    )
    for holds, (_, check_op) in zip(outputs[n:], checks, strict=True):
        builder.checks.append((holds, check_op))
    return outputs[:n]
