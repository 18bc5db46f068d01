"""Constants, casts and ops that change shapes: Reshape, Transpose, Concat, ..."""

import itertools

import numpy as np
import pytensor.tensor as pt
from pytensor.tensor.shape import specify_broadcastable

from onnx import numpy_helper
from pytensor.link.onnx.importer.loading import tensor_to_array
from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import (
    as_dtype,
    as_int64,
    constant_value,
    dims_where,
    entries,
    normalize_axis,
    run_time_axes,
    scalar,
    static_axes,
    static_ints,
)


CONSTANT_ATTRIBUTES = {
    "value_float": "float32",
    "value_floats": "float32",
    "value_int": "int64",
    "value_ints": "int64",
}


@onnx_op("Constant")
def constant(node):
    if "sparse_value" in node.attrs:
        sparse = node.attrs["sparse_value"].sparse_tensor
        return node.constant(numpy_helper.to_array(sparse_to_dense(sparse)))
    if "value" in node.attrs:
        return node.constant(tensor_to_array(node.attrs["value"].t))
    for name, dtype in CONSTANT_ATTRIBUTES.items():
        if name in node.attrs:
            return node.constant(np.asarray(node.attr(name), dtype=dtype))
    raise NotImplementedError(f"{node.label}: Constant with {list(node.attrs)}")


def sparse_to_dense(sparse):
    from onnx.numpy_helper import from_array

    values = tensor_to_array(sparse.values)
    indices = tensor_to_array(sparse.indices)
    dense = np.zeros(int(np.prod(sparse.dims)), dtype=values.dtype)
    if indices.ndim == 2:
        indices = np.ravel_multi_index(indices.T, tuple(sparse.dims))
    dense[indices] = values
    return from_array(dense.reshape(tuple(sparse.dims)))


@onnx_op("Cast")
def cast_to(node, x):
    return as_dtype(x, node.dtype(node.attr("to")))


@onnx_op("CastLike")
def cast_like(node, x, target):
    return as_dtype(x, target.dtype)


@onnx_op("Shape")
def shape(node, x):
    start, end = node.attr("start", 0), node.attr("end", x.ndim)
    return as_int64(static_or_symbolic_shape(x)[start:end])


@onnx_op("Size")
def size(node, x):
    return as_int64(pt.prod(static_or_symbolic_shape(x)))


def static_or_symbolic_shape(x):
    """The shape of ``x``: a constant where PyTensor knows every dim."""
    if None not in x.type.shape:
        return pt.constant(np.asarray(x.type.shape, dtype="int64"))
    return pt.as_tensor(x.shape)


@onnx_op("Reshape", since=5)
def reshape(node, x, shape_input):
    shape = entries(shape_input)
    if not node.attr("allowzero", 0):
        shape = [keep_zero(x, i, s) for i, s in enumerate(shape)]
    target = pt.stack([as_int64(pt.as_tensor(s)) for s in shape]) if shape else ()
    return pt.reshape(x, target, ndim=len(shape))


def keep_zero(x, index, entry):
    if isinstance(entry, int):
        return x.shape[index] if entry == 0 else entry
    return (
        pt.switch(pt.eq(entry, 0), x.shape[index], entry) if index < x.ndim else entry
    )


@onnx_op("Reshape", until=4)
def reshape_attribute(node, x):
    return reshape(node, x, pt.constant(np.asarray(node.attr("shape"), dtype="int64")))


@onnx_op("Flatten")
def flatten(node, x):
    axis = normalize_axis(node.attr("axis", 1), x.ndim)
    rows = pt.prod(pt.as_tensor(x.shape)[:axis]) if axis else 1
    return pt.reshape(x, (rows, -1), ndim=2) if axis else pt.reshape(x, (1, -1), ndim=2)


@onnx_op("Transpose")
def transpose(node, x):
    perm = node.attr("perm") or list(reversed(range(x.ndim)))
    return x.transpose(*perm)


@onnx_op("Concat")
def concat(node, *inputs):
    axis = normalize_axis(node.attr("axis", 0), inputs[0].ndim)
    return pt.concatenate([x for x in inputs if x is not None], axis=axis)


@onnx_op("Unsqueeze")
def unsqueeze(node, x, axes_input=None):
    if axes_input is not None and constant_value(axes_input) is None:
        return unsqueeze_at_run_time(x, axes_input)
    n_axes = len(node.attr("axes") if axes_input is None else static_ints(axes_input))
    axes = sorted(static_axes(node, axes_input, x.ndim + n_axes))
    for axis in axes:
        x = pt.expand_dims(x, axis)
    return x


def unsqueeze_at_run_time(x, axes):
    ndim = x.ndim + axes.type.shape[0]
    axes = run_time_axes(axes, ndim)
    inserted = [pt.any(pt.eq(axes, d)) for d in range(ndim)]
    sources = pt.cumsum(pt.invert(pt.stack(inserted))) - 1
    old_shape = pt.concatenate([pt.as_tensor(x.shape, dtype="int64"), [1]])
    shape = [pt.switch(inserted[d], 1, old_shape[sources[d]]) for d in range(ndim)]
    return pt.reshape(x, pt.stack(shape), ndim=ndim)


@onnx_op("Squeeze")
def squeeze(node, x, axes_input=None):
    if axes_input is not None and constant_value(axes_input) is None:
        axes = run_time_axes(axes_input, x.ndim)
        keep = [pt.invert(pt.any(pt.eq(axes, d))) for d in range(x.ndim)]
        return pt.reshape(x, dims_where(x, keep), ndim=x.ndim - axes.type.shape[0])
    axes = static_axes(node, axes_input, x.ndim)
    if axes is None:
        return pt.squeeze(x)
    return pt.squeeze(specify_broadcastable(x, *axes), axis=axes)


@onnx_op("Expand")
def expand(node, x, shape_input):
    shape = entries(shape_input)
    rank = max(x.ndim, len(shape))
    x = pt.shape_padleft(x, rank - x.ndim)
    shape = [1] * (rank - len(shape)) + shape
    target = [expanded_dim(x.shape[i], s) for i, s in enumerate(shape)]
    return pt.broadcast_to(x, target)


def expanded_dim(length, entry):
    if isinstance(entry, int):
        return length if entry == 1 else entry
    return pt.switch(pt.eq(entry, 1), length, entry)


@onnx_op("ConstantOfShape")
def constant_of_shape(node, shape_input):
    value = node.attr("value")
    value = np.zeros(1, "float32") if value is None else value
    fill = node.constant(value.reshape(()))
    return pt.alloc(fill, *entries(shape_input))


@onnx_op("Range")
def arange(node, start, limit, delta):
    start, limit, delta = (scalar(v) for v in (start, limit, delta))
    count = pt.maximum(pt.ceil((limit - start) / as_dtype(delta, "float64")), 0)
    steps = pt.arange(as_dtype(count, "int64"), dtype="int64")
    return as_dtype(start + as_dtype(steps, start.dtype) * delta, start.dtype)


@onnx_op("Tile")
def tile(node, x, repeats):
    return pt.tile(x, entries(repeats))


@onnx_op("EyeLike")
def eye_like(node, x):
    dtype = node.dtype(node.attr("dtype")) if "dtype" in node.attrs else x.dtype
    return pt.eye(x.shape[0], x.shape[1], k=node.attr("k", 0), dtype=dtype)


@onnx_op("Split")
def split(node, x, split_input=None):
    axis = normalize_axis(node.attr("axis", 0), x.ndim)
    n = node.n_outputs
    sizes = node.attr("split") if split_input is None else entries(split_input)
    if sizes:
        bounds = [0]
        for size in sizes:
            bounds.append(bounds[-1] + size)
    else:
        length = x.shape[axis] if x.type.shape[axis] is None else x.type.shape[axis]
        chunk = -(-length // n) if node.attr("num_outputs") else length // n
        bounds = [i * chunk for i in range(n)] + [None]
    before = (slice(None),) * axis
    return [x[(*before, slice(a, b))] for a, b in itertools.pairwise(bounds)]


@onnx_op("Trilu")
def trilu(node, x, k=None):
    k = 0 if k is None else k
    rows, cols = x.shape[-2], x.shape[-1]
    i = pt.arange(rows)[:, None]
    j = pt.arange(cols)[None, :]
    mask = (j - i >= k) if node.attr("upper", 1) else (j - i <= k)
    return pt.switch(mask, x, pt.zeros((), dtype=x.dtype))


@onnx_op("SpaceToDepth")
def space_to_depth(node, x):
    b = node.attr("blocksize")
    n, c, h, w = (x.shape[i] for i in range(4))
    y = pt.reshape(x, (n, c, h // b, b, w // b, b), ndim=6)
    if node.attr("mode", "DCR") == "DCR":
        y = y.transpose(0, 3, 5, 1, 2, 4)
    else:
        y = y.transpose(0, 1, 3, 5, 2, 4)
    return pt.reshape(y, (n, c * b * b, h // b, w // b), ndim=4)


@onnx_op("DepthToSpace")
def depth_to_space(node, x):
    b = node.attr("blocksize")
    n, c, h, w = (x.shape[i] for i in range(4))
    if node.attr("mode", "DCR") == "DCR":
        y = pt.reshape(x, (n, b, b, c // (b * b), h, w), ndim=6).transpose(
            0, 3, 4, 1, 5, 2
        )
    else:
        y = pt.reshape(x, (n, c // (b * b), b, b, h, w), ndim=6).transpose(
            0, 1, 4, 2, 5, 3
        )
    return pt.reshape(y, (n, c // (b * b), h * b, w * b), ndim=4)
