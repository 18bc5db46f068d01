"""The ``IfElse`` converter: an ONNX ``If`` that computes only the taken branch.

PyTensor's ``IfElse`` takes the values of both branches as inputs; its
laziness comes from the virtual machine, which computes only the inputs of
the branch taken. In ONNX, only what is inside an ``If``'s branch subgraph is
lazy. So each branch first just returns its values, then `move_into_branches`
moves into a branch every node whose values nothing else uses, once the
whole graph is built. A value that branches of two different ``If`` use is
computed before both (nodes are moved, never duplicated).
"""

from pytensor.ifelse import IfElse

from pytensor.link.onnx.dispatch.basic import onnx_funcify, onnx_funcify_complex
from pytensor.link.onnx.dispatch.variables import value_type


def branch_graph(builder, hint, values, variables):
    """A subgraph returning ``values``, the ONNX names of ``variables``."""
    branch = builder.subgraph(hint)
    for value, var in zip(values, variables, strict=True):
        branch.add_output(value, hint, *value_type(var))
    return branch.make_graph()


@onnx_funcify.register(IfElse)
@onnx_funcify_complex.register(IfElse)
def onnx_funcify_IfElse(op, node, builder, inputs, **kwargs):
    condition, *values = inputs
    condition = builder.cast(condition, node.inputs[0].type.dtype, "bool")
    then_vars, else_vars = node.inputs[1 : 1 + op.n_outs], node.inputs[1 + op.n_outs :]
    return builder.add_multi(
        "If",
        [condition],
        n_outputs=op.n_outs,
        then_branch=branch_graph(builder, "then", values[: op.n_outs], then_vars),
        else_branch=branch_graph(builder, "else", values[op.n_outs :], else_vars),
        hint="ifelse",
    )
