"""Slicing, gathering, scattering and sorting: Slice, Gather*, Scatter*, TopK, ..."""

import numpy as np
import pytensor.tensor as pt
from pytensor.gradient import zero_grad

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import (
    as_dtype,
    as_int64,
    constant_value,
    entries,
    normalize_axis,
    per_dim,
    static_ints,
)


def slice_along(x, axes, starts, ends, steps):
    index = [slice(None)] * x.ndim
    for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
        index[normalize_axis(axis, x.ndim)] = slice(start, end, step)
    return x[tuple(index)]


@onnx_op("Slice", until=9)
def slice_attributes(node, x):
    starts, ends = node.attr("starts"), node.attr("ends")
    axes = node.attr("axes") or list(range(len(starts)))
    return slice_along(x, axes, starts, ends, [1] * len(starts))


@onnx_op("Slice", since=10)
def slice_inputs(node, x, starts, ends, axes=None, steps=None):
    if axes is not None and constant_value(axes) is None:
        n = starts.type.shape[0]
        steps = pt.ones(n, dtype=starts.dtype) if steps is None else steps
        bounds = [
            per_dim(axes, values, x.ndim, default)
            for values, default in (
                (starts, 0),
                (ends, np.iinfo("int64").max),
                (steps, 1),
            )
        ]
        return x[tuple(slice(*b) for b in zip(*bounds, strict=True))]
    starts, ends = entries(starts), entries(ends)
    axes = range(len(starts)) if axes is None else static_ints(axes, "axes")
    steps = [1] * len(starts) if steps is None else entries(steps)
    return slice_along(x, axes, starts, ends, steps)


@onnx_op("Gather")
def gather(node, x, indices):
    axis = normalize_axis(node.attr("axis", 0), x.ndim)
    indices = pt.switch(indices < 0, indices + x.shape[axis], indices)
    return pt.take(x, indices, axis=axis)


def grid_indices(x, indices, axis):
    """Index arrays that pick ``x[..., indices, ...]`` elementwise along ``axis``."""
    indices = pt.switch(indices < 0, indices + x.shape[axis], indices)
    index = []
    for dim in range(x.ndim):
        if dim == axis:
            index.append(indices)
        else:
            shape = [1] * x.ndim
            shape[dim] = -1
            index.append(pt.arange(indices.shape[dim]).reshape(shape))
    return tuple(index)


@onnx_op("GatherElements")
def gather_elements(node, x, indices):
    axis = normalize_axis(node.attr("axis", 0), x.ndim)
    return x[grid_indices(x, indices, axis)]


@onnx_op("Scatter", "ScatterElements")
def scatter_elements(node, x, indices, updates):
    axis = normalize_axis(node.attr("axis", 0), x.ndim)
    return scatter(node, x, grid_indices(x, indices, axis), updates)


REDUCTIONS = {
    "mul": (pt.prod, pt.mul),
    "max": (pt.max, pt.maximum),
    "min": (pt.min, pt.minimum),
}


def scatter(node, x, index, updates):
    reduction = node.attr("reduction", "none")
    if reduction == "none":
        return pt.set_subtensor(x[index], updates)
    if reduction == "add":
        return pt.inc_subtensor(x[index], updates)
    if reduction not in REDUCTIONS:
        raise NotImplementedError(f"{node.label}: reduction {reduction!r}")
    reduce, combine = REDUCTIONS[reduction]
    targets = x[index]
    merged, first = merge_duplicates(index, updates, reduction, reduce)
    written = combine(targets, merged)
    # Every duplicate writes the same value; the gradient goes through one.
    written = pt.where(first, written, zero_grad(written))
    return pt.set_subtensor(targets, written)


def identity_of(reduction, dtype):
    if reduction == "mul":
        return np.ones((), dtype)
    limits = np.finfo(dtype) if dtype.kind in "fc" else np.iinfo(dtype)
    bound = np.inf if dtype.kind in "fc" else limits.max
    return np.asarray(-bound if reduction == "max" else bound, dtype)


def merge_duplicates(index, updates, reduction, reduce):
    """``updates`` with each entry replaced by the reduction of all the updates
    aimed at the same element, and whether each entry is the first so aimed.

    Compares every update's target with every other's: memory grows with the
    square of the number of updates.
    """
    points = pt.broadcast_arrays(*index)
    batch = points[0].ndim
    slice_dims = updates.ndim - batch
    flat = [as_int64(p).ravel() for p in points]
    rest = [updates.shape[batch + i] for i in range(slice_dims)]
    values = updates.reshape((-1, *rest))
    same = pt.all(pt.stack([pt.eq(f[:, None], f[None, :]) for f in flat]), axis=0)
    earlier = pt.lt(
        pt.arange(same.shape[1])[None, :], pt.arange(same.shape[0])[:, None]
    )
    first = pt.invert(pt.any(same & earlier, axis=1))
    same = same.reshape((*same.shape, *[1] * slice_dims))
    neutral = pt.constant(identity_of(reduction, np.dtype(updates.dtype)))
    merged = reduce(pt.where(same, values[None], neutral), axis=1)
    batch_shape = [points[0].shape[i] for i in range(batch)]
    first = first.reshape((*batch_shape, *[1] * slice_dims))
    return merged.reshape(updates.shape), first


def nd_index(x, indices, batch_dims=0):
    depth = indices.type.shape[-1]
    if depth is None:
        raise NotImplementedError("the last dimension of the indices must be static")
    rest = indices.ndim - 1 - batch_dims
    batch = []
    for dim in range(batch_dims):
        shape = [1] * (batch_dims + rest)
        shape[dim] = -1
        batch.append(pt.arange(x.shape[dim]).reshape(shape))
    picked = [
        pt.switch(
            indices[..., i] < 0,
            indices[..., i] + x.shape[batch_dims + i],
            indices[..., i],
        )
        for i in range(depth)
    ]
    return (*batch, *picked)


@onnx_op("GatherND")
def gather_nd(node, x, indices):
    return x[nd_index(x, indices, node.attr("batch_dims", 0))]


@onnx_op("ScatterND")
def scatter_nd(node, x, indices, updates):
    return scatter(node, x, nd_index(x, indices), updates)


@onnx_op("TensorScatter")
def tensor_scatter(node, cache, update, write_indices=None):
    axis = normalize_axis(node.attr("axis", -2), cache.ndim)
    starts = (
        pt.zeros(cache.shape[0], dtype="int64")
        if write_indices is None
        else as_int64(write_indices)
    )
    positions = starts[:, None] + pt.arange(update.shape[axis])[None, :]
    if node.attr("mode", "linear") == "circular":
        positions = positions % cache.shape[axis]
    index = [
        pt.arange(cache.shape[d]).reshape(
            [-1 if e == d else 1 for e in range(axis + 1)]
        )
        for d in range(axis)
    ]
    index.append(positions.reshape([-1, *[1] * (axis - 1), positions.shape[1]]))
    return pt.set_subtensor(cache[tuple(index)], update)


@onnx_op("Compress")
def compress(node, x, condition):
    axis = node.attr("axis")
    if axis is None:
        x, axis = x.ravel(), 0
    positions = pt.nonzero(condition)[0]
    return pt.take(x, positions, axis=normalize_axis(axis, x.ndim))


@onnx_op("NonZero")
def nonzero(node, x):
    if x.ndim == 0:
        x = x[None]
    return as_int64(pt.stack(pt.nonzero(x), axis=0)) if x.ndim else None


@onnx_op("OneHot")
def one_hot(node, indices, depth, values):
    axis = node.attr("axis", -1)
    depth = as_dtype(pt.squeeze(depth) if depth.ndim else depth, "int64")
    indices = as_dtype(indices, "int64")
    indices = pt.switch(indices < 0, indices + depth, indices)
    axis = normalize_axis(axis, indices.ndim + 1)
    shape = [1] * (indices.ndim + 1)
    shape[axis] = -1
    hot = pt.eq(pt.expand_dims(indices, axis), pt.arange(depth).reshape(shape))
    return pt.switch(hot, values[1], values[0])


@onnx_op("TopK")
def top_k(node, x, k=None):
    axis = normalize_axis(node.attr("axis", -1), x.ndim)
    k = node.attr("k") if k is None else k.ravel()[0]
    key = -x if node.attr("largest", 1) else x
    if x.dtype.startswith("uint") and node.attr("largest", 1):
        key = -as_dtype(x, "int64") if x.dtype != "uint64" else ~x
    order = pt.argsort(key, axis=axis, stable=True)
    order = order[(slice(None),) * axis + (slice(0, k),)]
    return pt.take_along_axis(x, order, axis=axis), as_int64(order)


@onnx_op("ReverseSequence")
def reverse_sequence(node, x, lengths):
    time_axis = node.attr("time_axis", 0)
    batch_axis = node.attr("batch_axis", 1)
    steps = pt.arange(x.shape[time_axis])
    steps = steps[:, None] if time_axis == 0 else steps[None, :]
    lengths = lengths[None, :] if batch_axis == 1 else lengths[:, None]
    source = pt.switch(steps < lengths, lengths - 1 - steps, steps)
    shape = [1] * x.ndim
    shape[time_axis], shape[batch_axis] = -1, -1
    for _ in range(x.ndim - 2):
        source = source[..., None]
    index = [
        pt.arange(x.shape[d]).reshape([-1 if i == d else 1 for i in range(x.ndim)])
        for d in range(x.ndim)
    ]
    index[time_axis] = source
    return x[tuple(index)]


@onnx_op("Unique")
def unique(node, x):
    """Sorted, or (``sorted=0``) in the order of first occurrence."""
    axis = node.attr("axis")
    values, first, inverse, counts = pt.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    if not node.attr("sorted", 1):
        order = pt.argsort(first)
        first, counts = first[order], counts[order]
        inverse = pt.argsort(order)[inverse]
        flat = x.ravel() if axis is None else x
        values = pt.take(flat, first, axis=0 if axis is None else axis)
    return values, as_int64(first), as_int64(inverse.ravel()), as_int64(counts)


@onnx_op("Pad", until=10)
def pad_attributes(node, x):
    pads = node.attr("pads") or node.attr("paddings")
    value = pt.constant(np.asarray(node.attr("value", 0.0), dtype=x.dtype))
    return pad_tensor(x, pads, node.attr("mode", "constant"), value)


@onnx_op("Pad", since=11)
def pad(node, x, pads, value=None, axes=None):
    if axes is not None and constant_value(axes) is None:
        k = axes.type.shape[0]
        before = per_dim(axes, pads[:k], x.ndim, 0)
        pads = before + per_dim(axes, pads[k:], x.ndim, 0)
    elif axes is not None:
        pads = entries(pads)
        axes = [normalize_axis(a, x.ndim) for a in static_ints(axes, "axes")]
        full = [0] * (2 * x.ndim)
        for i, axis in enumerate(axes):
            full[axis], full[x.ndim + axis] = pads[i], pads[len(axes) + i]
        pads = full
    else:
        pads = entries(pads)
    value = pt.zeros((), dtype=x.dtype) if value is None else value.ravel()[0]
    return pad_tensor(x, pads, node.attr("mode", "constant"), as_dtype(value, x.dtype))


def pad_tensor(x, pads, mode, value):
    n = x.ndim
    for axis in range(n):
        before, after = pads[axis], pads[n + axis]
        if not (
            isinstance(before, int) and isinstance(after, int) and before == after == 0
        ):
            x = pad_axis(x, axis, before, after, mode, value)
    return x


def clipped_at_zero(p):
    return max(p, 0) if isinstance(p, int) else pt.maximum(p, 0)


def pad_axis(x, axis, before, after, mode, value):
    """``x`` with ``before``/``after`` entries added (removed if negative) on ``axis``."""
    leading = (slice(None),) * axis
    crop = slice(clipped_at_zero(-before), x.shape[axis] - clipped_at_zero(-after))
    x = x[(*leading, crop)]
    before, after = clipped_at_zero(before), clipped_at_zero(after)
    length = x.shape[axis]
    if mode == "constant":
        shape = [
            length + before + after if d == axis else x.shape[d] for d in range(x.ndim)
        ]
        filled = pt.alloc(value, *shape)
        return pt.set_subtensor(filled[(*leading, slice(before, before + length))], x)
    index = pt.arange(-before, length + after)
    if mode == "edge":
        index = pt.clip(index, 0, length - 1)
    elif mode == "wrap":
        index = index % length
    elif mode == "reflect":
        period = 2 * (length - 1)
        index = index % period
        index = pt.switch(index >= length, period - index, index)
    else:
        raise NotImplementedError(f"Pad mode {mode!r}")
    return pt.take(x, index, axis=axis)
