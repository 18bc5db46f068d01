"""Blockwise joins, splits and indexing by arrays written without the batch loop."""

import numpy as np
from pytensor.compile.mode import optdb
from pytensor.graph.basic import Constant
from pytensor.graph.rewriting.basic import copy_stack_trace, in2out, node_rewriter
from pytensor.tensor.basic import (
    Join,
    Split,
    constant,
    get_underlying_scalar_constant_value,
)
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.exceptions import NotScalarConstantError
from pytensor.tensor.extra_ops import broadcast_to
from pytensor.tensor.subtensor import (
    AdvancedIncSubtensor1,
    AdvancedSubtensor1,
    inc_subtensor,
    set_subtensor,
)

from pytensor.link.onnx.rewrites.configuration import (
    BLOCKWISE_ADVANCED_INDEX_POSITION,
    ONNX_TAG,
)


@node_rewriter([Blockwise])
def local_blockwise_join_split(fgraph, node):
    """A ``Blockwise`` ``Join`` or ``Split`` whose axis (and split sizes) are
    constants and whose arrays all have the output's batch lengths, or a
    static 1 there, becomes one ``Join`` or ``Split`` along the axis past the
    batch axes (the arrays of length 1 broadcast along the batch axes).

    Vectorizing a log-density over chains makes these of PyMC's time series
    (``GaussianRandomWalk``'s innovations) and simplex transforms (a constant
    appended to each chain's values): the converter of a ``Blockwise`` would
    loop over the chains.
    """
    core_op = node.op.core_op
    if not isinstance(core_op, Join | Split):
        return None
    n_batch = node.op.batch_ndim(node)
    batch_shape = node.outputs[0].type.shape[:n_batch]
    axis_var, *arrays = node.inputs
    if isinstance(core_op, Split):
        axis_var, arrays = node.inputs[1], node.inputs[:1]
    axis = constant_of(axis_var)
    if axis is None or None in batch_shape:
        return None
    if not all(batch_lengths_fit(array, batch_shape) for array in arrays):
        return None
    axis = int(axis) % (arrays[0].type.ndim - n_batch) + n_batch
    if isinstance(core_op, Join):
        arrays = [along_batch(array, batch_shape) for array in arrays]
        new = [Join()(axis, *arrays)]
    else:
        sizes = node.inputs[2]
        if not isinstance(sizes, Constant) or not all(
            sizes.type.broadcastable[:n_batch]
        ):
            return None
        core_sizes = sizes.data.reshape(sizes.type.shape[n_batch:])
        new = Split(core_op.len_splits)(arrays[0], axis, core_sizes)
        new = new if isinstance(new, list) else [new]
    new = [
        out.type.filter_variable(v) for out, v in zip(node.outputs, new, strict=True)
    ]
    copy_stack_trace(node.outputs, new)
    return new


def batch_lengths_fit(array, batch_shape) -> bool:
    """Whether each batch length of ``array`` is the batch's or a static 1."""
    return all(
        length in (batch_length, 1)
        for length, batch_length in zip(array.type.shape, batch_shape, strict=False)
    )


def along_batch(array, batch_shape):
    """``array`` broadcast to the batch lengths ``batch_shape`` (static)."""
    n_batch = len(batch_shape)
    if array.type.shape[:n_batch] == batch_shape:
        return array
    if isinstance(array, Constant):
        shape = (*batch_shape, *array.data.shape[n_batch:])
        return constant(np.broadcast_to(array.data, shape), dtype=array.dtype)
    return broadcast_to(array, (*batch_shape, *array.shape[n_batch:]))


def constant_of(var):
    try:
        return get_underlying_scalar_constant_value(var)
    except NotScalarConstantError:
        return None


optdb["specialize"].register(
    "local_blockwise_join_split", local_blockwise_join_split, ONNX_TAG
)


@node_rewriter([Blockwise])
def local_blockwise_advanced_index(fgraph, node):
    """A ``Blockwise`` ``AdvancedSubtensor1`` or ``AdvancedIncSubtensor1``
    whose index has one element along every batch axis becomes ``x[:, idx]``
    or ``inc_subtensor(x[:, idx], y)`` (``set_subtensor``), with a full slice
    for each batch axis.

    Vectorizing a log-density over chains makes these of PyMC's hierarchical
    models (``a[county]`` and its gradient): the converter of a ``Blockwise``
    would loop over the chains. An update whose ``x`` or ``y`` has a batch
    axis (or ``y`` an axis) of unknown length stays as it is: PyTensor raises
    where a length-1 axis would be broadcast at runtime.
    """
    core_op = node.op.core_op
    if not isinstance(core_op, AdvancedSubtensor1 | AdvancedIncSubtensor1):
        return None
    n_batch = node.op.batch_ndim(node)
    x, *updates, index = node.inputs
    if not all(index.type.broadcastable[:n_batch]):
        return None
    full_slices = (slice(None),) * n_batch
    core_index = index.squeeze(axis=tuple(range(n_batch)))
    if isinstance(core_op, AdvancedSubtensor1):
        new = x[(*full_slices, core_index)]
    else:
        [y] = updates
        if None in (*x.type.shape[:n_batch], *y.type.shape):
            return None
        x = broadcast_to_batch(x, node.inputs, n_batch)
        region = x[(*full_slices, core_index)]
        y = y.dimshuffle(
            *range(n_batch),
            *["x"] * (region.type.ndim - y.type.ndim),
            *range(n_batch, y.type.ndim),
        )
        write = set_subtensor if core_op.set_instead_of_inc else inc_subtensor
        new = write(region, y)
    [out] = node.outputs
    new = out.type.filter_variable(new)
    copy_stack_trace(out, new)
    return [new]


def broadcast_to_batch(x, inputs, n_batch):
    """``x`` broadcast along the batch axes where another input is longer."""
    batch_shape = tuple(
        max(inp.type.shape[axis] for inp in inputs) for axis in range(n_batch)
    )
    if batch_shape == x.type.shape[:n_batch]:
        return x
    return broadcast_to(x, (*batch_shape, *x.shape[n_batch:]))


optdb.register(
    "local_blockwise_advanced_index",
    in2out(local_blockwise_advanced_index, name="local_blockwise_advanced_index"),
    ONNX_TAG,
    position=BLOCKWISE_ADVANCED_INDEX_POSITION,
)
