"""The batch dimensions of ``Blockwise`` nodes: their shape, their core node,
and values broadcast and flattened over them.

Shared by the converter modules, which import nothing from each other.
"""

import numpy as np
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import constant, get_underlying_scalar_constant_value
from pytensor.tensor.exceptions import NotScalarConstantError


def batch_ndim(node) -> int:
    """The number of batch dimensions of the ``Blockwise`` ``node``."""
    return node.op.batch_ndim(node)


def is_unbatched(var, n_batch_dims) -> bool:
    """Whether all batch dimensions of ``var`` are broadcastable (of length 1)."""
    return all(var.type.broadcastable[:n_batch_dims])


def unbatched_constant(var, n_batch_dims):
    """The value of ``var`` without its batch dimensions if it is constant, else None."""
    if not is_unbatched(var, n_batch_dims):
        return None
    if isinstance(var, Constant):
        return np.asarray(var.data).reshape(var.type.shape[n_batch_dims:])
    if var.type.ndim == n_batch_dims:
        try:
            return get_underlying_scalar_constant_value(var)
        except NotScalarConstantError:
            return None
    return None


def core_node_of(node):
    """The core Op applied to one batch element of the inputs of ``node``.

    Constant inputs without batch dimensions stay constant, so that the core
    Op's converter can read them (a sort axis, a convolution mode).
    """
    n_batch_dims = batch_ndim(node)
    core_inputs = []
    for var in node.inputs:
        data = unbatched_constant(var, n_batch_dims)
        if data is not None:
            core_inputs.append(constant(data, dtype=var.type.dtype))
        else:
            core_inputs.append(var.type.clone(shape=var.type.shape[n_batch_dims:])())
    return node.op.core_op.make_node(*core_inputs)


def broadcast_batch_shape(builder, node, inputs):
    """The batch shape of the outputs of ``node``, an int64 vector."""
    n_batch_dims = batch_ndim(node)
    static_shape = node.outputs[0].type.shape[:n_batch_dims]
    if None not in static_shape:
        return builder.constant(static_shape, "int64", hint="batch_shape")
    one = builder.constant(1, "int64", hint="one")
    shape = None
    for name, var in zip(inputs, node.inputs, strict=True):
        if is_unbatched(var, n_batch_dims):
            continue
        own = builder.add("Shape", [name], end=n_batch_dims, hint="batch_shape")
        if shape is None:
            shape = own
        else:
            is_one = builder.add("Equal", [shape, one])
            shape = builder.add("Where", [is_one, own, shape], hint="batch_shape")
    return shape


def flatten_batch(builder, x, var, n_batch_dims, batch_shape, batch_size):
    """``x`` broadcast to ``batch_shape`` and with its batch dimensions merged into one."""
    core_shape = builder.add("Shape", [x], start=n_batch_dims, hint="core_shape")
    if any(var.type.broadcastable[:n_batch_dims]):
        full_shape = builder.add("Concat", [batch_shape, core_shape], axis=0)
        x = builder.add("Expand", [x, full_shape], hint="broadcast")
    flat_shape = builder.add("Concat", [batch_size, core_shape], axis=0)
    return builder.add("Reshape", [x, flat_shape], allowzero=1, hint="flat_batch")


def drop_batch_dims(builder, x, n_batch_dims):
    if n_batch_dims == 0:
        return x
    axes = builder.constant(list(range(n_batch_dims)), "int64")
    return builder.add("Squeeze", [x, axes], hint="core")
