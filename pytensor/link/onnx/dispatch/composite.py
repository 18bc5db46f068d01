"""The ``Composite`` converter: a fused scalar graph, converted node by node.

ONNX operators broadcast like NumPy, so each inner scalar Op converts to
nodes of whole tensors; values that depend only on some inputs are expanded
to the output's shape where they could be smaller.
"""

import pytensor.scalar.basic as ps
from pytensor.tensor.type import TensorType

from pytensor.link.onnx.dispatch.basic import convert_nodes, onnx_funcify
from pytensor.link.onnx.dispatch.lengths import may_be_smaller_than_output


def expand_to_output(builder, node, inputs, value, dependencies):
    if not may_be_smaller_than_output(node, dependencies):
        return value
    for i, (outer, name) in enumerate(zip(node.inputs, inputs, strict=True)):
        always_broadcastable = isinstance(outer.type, TensorType) and all(
            outer.type.broadcastable
        )
        # A value without dependencies (a constant) also needs the output's rank
        if i not in dependencies and not (dependencies and always_broadcastable):
            shape = builder.add("Shape", [name])
            value = builder.add("Expand", [value, shape])
    return value


@onnx_funcify.register(ps.Composite)
def onnx_funcify_Composite(op, node, builder, inputs, **kwargs):
    fgraph = op.fgraph
    values = dict(zip(fgraph.inputs, inputs, strict=True))
    # The outer inputs each inner value is broadcast with; none for constants
    depends_on = {inner: {i} for i, inner in enumerate(fgraph.inputs)}

    def constant(var):
        return builder.constant(var.data, var.type.dtype)

    def convert(inner_node, inner_inputs):
        dependencies = set().union(
            *(depends_on.get(var, ()) for var in inner_node.inputs)
        )
        depends_on.update(dict.fromkeys(inner_node.outputs, dependencies))
        return onnx_funcify(
            inner_node.op, node=inner_node, builder=builder, inputs=inner_inputs
        )

    convert_nodes(fgraph.toposort(), values, constant, convert)
    return [
        expand_to_output(
            builder,
            node,
            inputs,
            values[out] if out in values else constant(out),
            depends_on.get(out, set()),
        )
        for out in fgraph.outputs
    ]
