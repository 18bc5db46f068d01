"""Blockwise joins and splits of arrays written as one join or split."""

from pytensor.compile.mode import optdb
from pytensor.graph.basic import Constant
from pytensor.graph.rewriting.basic import copy_stack_trace, node_rewriter
from pytensor.tensor.basic import Join, Split, get_underlying_scalar_constant_value
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.exceptions import NotScalarConstantError

from pytensor.link.onnx.rewrites.configuration import ONNX_TAG


@node_rewriter([Blockwise])
def local_blockwise_join_split(fgraph, node):
    """A ``Blockwise`` ``Join`` or ``Split`` whose axis (and split sizes) are
    constants and whose arrays all have the output's batch lengths becomes
    one ``Join`` or ``Split`` along the axis past the batch axes.

    Vectorizing a log-density over chains makes these of PyMC's time series
    (``GaussianRandomWalk``'s innovations): the converter of a ``Blockwise``
    would loop over the chains.
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
    if any(array.type.shape[:n_batch] != batch_shape for array in arrays):
        return None
    axis = int(axis) % (arrays[0].type.ndim - n_batch) + n_batch
    if isinstance(core_op, Join):
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


def constant_of(var):
    try:
        return get_underlying_scalar_constant_value(var)
    except NotScalarConstantError:
        return None


optdb["specialize"].register(
    "local_blockwise_join_split", local_blockwise_join_split, ONNX_TAG
)
