"""One-element slices whose axis a ``DimShuffle`` drops, read as an index."""

from pytensor.compile.mode import optdb
from pytensor.graph.basic import Constant
from pytensor.graph.rewriting.basic import copy_stack_trace, node_rewriter
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.subtensor import Subtensor, get_idx_list

from pytensor.link.onnx.rewrites.configuration import ONNX_TAG


@node_rewriter([DimShuffle])
def local_dimshuffle_unit_slice(fgraph, node):
    """``x[a:b:c].dimshuffle(...)`` that drops the axis the slice cut to one
    element becomes ``x[i].dimshuffle(...)``, ``i`` that element's index.

    PyMC's raveled inputs read a scalar as ``joined[i:i + 1]`` reshaped to
    ``()`` in one place and as ``joined[i]`` in another; in this form the
    two merge. It replaces PyTensor's ``local_dimshuffle_subtensor``, which
    takes the slice's start (or 0) as the index whatever the step, so that
    ``x[:-2:-1]`` becomes ``x[0]`` instead of ``x[-1]``. Only slices of
    constant bounds on axes of static length are rewritten.
    """
    [sliced] = node.inputs
    if sliced.owner is None or not isinstance(sliced.owner.op, Subtensor):
        return None
    dropped = node.op.drop
    if not dropped:
        return None
    x = sliced.owner.inputs[0]
    indices = list(get_idx_list(sliced.owner.inputs, sliced.owner.op.idx_list))
    indices += [slice(None)] * (x.type.ndim - len(indices))
    slice_axes = [
        axis for axis, index in enumerate(indices) if isinstance(index, slice)
    ]
    for axis in (slice_axes[axis] for axis in dropped):
        element = only_element(indices[axis], x.type.shape[axis])
        if element is None:
            return None
        indices[axis] = element
    remaining = [axis for axis in range(sliced.type.ndim) if axis not in dropped]
    order = [
        axis if axis == "x" else remaining.index(axis) for axis in node.op.new_order
    ]
    indexed = x[tuple(indices)].dimshuffle(order)
    copy_stack_trace(node.outputs[0], indexed)
    return [indexed]


def only_element(index: slice, length: int | None) -> int | None:
    """The index of the one element ``index`` takes from an axis of
    ``length``, or None if that is not known before run time."""
    bounds = [index.start, index.stop, index.step]
    if length is None or not all(
        bound is None or isinstance(bound, Constant) for bound in bounds
    ):
        return None
    taken = range(
        *slice(
            *(None if bound is None else int(bound.data) for bound in bounds)
        ).indices(length)
    )
    return taken[0] if len(taken) == 1 else None


optdb["canonicalize"].register(
    "local_dimshuffle_unit_slice", local_dimshuffle_unit_slice, ONNX_TAG
)
