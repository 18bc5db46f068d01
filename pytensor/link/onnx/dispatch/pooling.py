"""Max-pooling written with ``reshape`` and ``max``, converted to ``MaxPool``.

PyTensor has no pooling Op: max-pooling over ``k``-long windows of the
trailing axes of ``x``, ``(n, c, h, w)``, is written
``x.reshape((n, c, h // k, k, w // k, k)).max(axis=(3, 5))``. That ``max``
becomes one ``MaxPool`` of ``x`` reshaped to ``(n, c, (h // k) * k, (w // k) * k)``:
that reshape succeeds exactly when the original does, the original is a reshape
of its result whose window axes ``max`` reduces, and an export folds it away
when it keeps ``x``'s shape. All lengths but the batch must be static.
"""

import pytensor.scalar.basic as ps
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import MakeVector, get_underlying_scalar_constant_value
from pytensor.tensor.exceptions import NotScalarConstantError
from pytensor.tensor.shape import Reshape

from pytensor.link.onnx.kernels import kernel_dtypes
from pytensor.link.onnx.numerics.pooling import max_pool
from pytensor.link.onnx.value import concat


POOLING_DTYPES = kernel_dtypes("MaxPool") & {"float32", "float64"}


def target_entry(split, target, axis) -> int | None:
    """The length of ``split``, a reshape to ``target``, along ``axis`` if static."""
    if split.type.shape[axis] is not None:
        return split.type.shape[axis]
    if isinstance(target, Constant):
        return int(target.data[axis])
    if target.owner is None or not isinstance(target.owner.op, MakeVector):
        return None
    try:
        return int(get_underlying_scalar_constant_value(target.owner.inputs[axis]))
    except NotScalarConstantError:
        return None


def window_split(node):
    """``(x, target, lengths, window)`` if ``node``, a max over axes, is
    max-pooling of ``x`` by a reshape to ``target`` into windows of shape
    ``window`` along its trailing axes; else None.

    ``lengths`` are the static lengths of the channel and spatial axes the
    reshape implies, ``(c, (h // k) * k, (w // k) * k)``: positive, since
    onnxruntime's ``MaxPool`` refuses empty inputs unless the batch is empty.
    """
    [split] = node.inputs
    reshape = split.owner
    if reshape is None or not isinstance(reshape.op, Reshape):
        return None
    x, target = reshape.inputs
    n_spatial = x.type.ndim - 2
    axes = node.op.axis
    pairs = [(2 + 2 * i, 3 + 2 * i) for i in range(n_spatial)]
    if (
        n_spatial not in (1, 2, 3)
        or split.type.ndim != x.type.ndim + n_spatial
        or axes is None
        or sorted(axes) != [window_axis for _, window_axis in pairs]
        or x.type.dtype not in POOLING_DTYPES
        or node.outputs[0].type.dtype != x.type.dtype
    ):
        return None
    window = [target_entry(split, target, axis) for _, axis in pairs]
    windows = [target_entry(split, target, axis) for axis, _ in pairs]
    channels = target_entry(split, target, 1)
    if any(n is None or n <= 0 for n in (channels, *windows, *window)):
        return None
    lengths = [channels, *(n * k for n, k in zip(windows, window, strict=True))]
    return x, target, lengths, window


def max_pooled(builder, node, value_names):
    """``node``, a ``Max``, as one ``MaxPool`` if it is max-pooling (see `window_split`)."""
    if value_names is None or not isinstance(node.op.scalar_op, ps.Maximum):
        return None
    split = window_split(node)
    if split is None:
        return None
    x_var, target_var, lengths, window = split
    x = builder.value(value_names[x_var], x_var.type.dtype)
    target = builder.value(value_names[target_var], target_var.type.dtype)
    merged = concat([target.cast("int64").slice(0, 1), x.indices(lengths)], axis=0)
    return max_pool(x.reshape(merged), window).name
