"""Max-pooling written with ``reshape`` and ``max``, converted to ``MaxPool``.

PyTensor has no pooling Op: max-pooling over ``k``-long windows of the
trailing axes of ``x``, ``(n, c, h, w)``, is written
``x.reshape((n, c, h // k, k, w // k, k)).max(axis=(3, 5))``. That ``max``
becomes one ``MaxPool`` of ``x`` reshaped to ``(n, c, (h // k) * k, (w // k) * k)``,
a reshape that succeeds exactly when the original does and that an export
folds away (its shape is ``x``'s).
"""

import numpy as np
import pytensor.scalar.basic as ps
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
    if target.owner is None or not isinstance(target.owner.op, MakeVector):
        return None
    try:
        return int(get_underlying_scalar_constant_value(target.owner.inputs[axis]))
    except NotScalarConstantError:
        return None


def window_split(node):
    """``(x, target, windows, window)`` if ``node``, a max over axes, is
    max-pooling of ``x`` by a reshape to ``target`` into ``windows`` windows of
    ``window`` elements along each trailing axis; else None."""
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
    windows = [target_entry(split, target, axis) for axis, _ in pairs]
    window = [target_entry(split, target, axis) for _, axis in pairs]
    if any(length is None or length <= 0 for length in (*windows, *window)):
        return None
    return x, target, windows, window


def max_pooled(builder, node, value_names):
    """``node``, a ``Max``, as one ``MaxPool`` if it is max-pooling (see `window_split`)."""
    if value_names is None or not isinstance(node.op.scalar_op, ps.Maximum):
        return None
    split = window_split(node)
    if split is None:
        return None
    x_var, target_var, windows, window = split
    x = builder.value(value_names[x_var], x_var.type.dtype)
    target = builder.value(value_names[target_var], target_var.type.dtype)
    lengths = np.multiply(windows, window).tolist()
    merged = concat([target.cast("int64").slice(0, 2), x.indices(lengths)], axis=0)
    return max_pool(x.reshape(merged), window).name
