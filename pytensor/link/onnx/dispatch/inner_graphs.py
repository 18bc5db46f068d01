"""Inner graphs converted into the graph being built: the bodies of
``OpFromGraph``, ``Scan`` loops, ``ScalarLoop`` and ``If`` branches.

Shared by the converter modules, which import nothing from each other.
"""

from pytensor.graph.traversal import io_toposort

from pytensor.link.onnx.dispatch.basic import (
    convert_node,
    convert_nodes,
    deferring_branch_checks,
    onnx_typify,
)
from pytensor.link.onnx.dispatch.variables import (
    INDEX_VALUE_TYPES,
    random_generator_failure,
    unsupported_type_reason,
    value_type,
)


def convert_inner_graph(builder, inner_inputs, inner_outputs, input_names):
    """Add the nodes computing ``inner_outputs`` from ``inner_inputs`` to ``builder``.

    Parameters
    ----------
    builder
        The ``ONNXGraphBuilder`` of the graph or subgraph to add the nodes to.
    inner_inputs, inner_outputs
        The inputs and outputs of an inner graph (of an ``OpFromGraph``, a
        ``Scan``...).
    input_names
        The ONNX values bound to ``inner_inputs``, in order.

    Returns
    -------
    list of str
        The ONNX values of ``inner_outputs``, in order.

    Raises
    ------
    NotImplementedError
        Naming the inner Op and variable that cannot be converted.
    """

    def constant(var):
        if isinstance(var.type, INDEX_VALUE_TYPES):
            return var.data
        if reason := unsupported_type_reason(var, random_generators=True):
            raise NotImplementedError(
                f"its inner graph has the constant {var}, but {reason}"
            )
        dtype, _ = value_type(var)
        return builder.constant(onnx_typify(var.data, dtype=dtype), hint="const")

    def convert(node, inputs):
        try:
            for out in node.outputs:
                if isinstance(out.type, INDEX_VALUE_TYPES):
                    continue  # a slice or None that indexing Ops read
                if reason := unsupported_type_reason(out, random_generators=True):
                    raise NotImplementedError(reason)
            if failure := random_generator_failure(node):
                raise NotImplementedError(failure.reason)
            return convert_node(node, builder, inputs, value_names=names)
        except NotImplementedError as err:
            raise NotImplementedError(
                f"its inner graph computes {node.outputs[0]} with the Op {node.op} "
                f"(class {type(node.op).__name__}), which cannot be converted: {err}"
            ) from err

    names = dict(zip(inner_inputs, input_names, strict=True))
    nodes = io_toposort(inner_inputs, inner_outputs)
    convert = deferring_branch_checks(builder, nodes, inner_outputs, convert)
    convert_nodes(nodes, names, constant, convert)
    return [names[out] if out in names else constant(out) for out in inner_outputs]
