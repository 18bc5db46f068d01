"""Spatial sampling: GridSample and AffineGrid.

``GridSample`` gathers, for every output point, the taps of its interpolation
kernel (1 for nearest, 2 per dim for linear, 4 per dim for cubic) from the
flattened spatial dims of the input in one advanced index, and sums them with
their weights: differentiable in the input and in the grid.
"""

import functools
import itertools
from operator import mul

import pytensor.tensor as pt

from pytensor.link.onnx.importer.ops import onnx_op
from pytensor.link.onnx.importer.ops.common import as_dtype, entries, like


MODES = {"bilinear": "linear", "bicubic": "cubic"}
CUBIC_ALPHA = -0.75


def denormalize(n, length, align_corners):
    """Grid coordinates in [-1, 1] as positions along an axis of ``length``."""
    if align_corners:
        return (n + 1) / 2 * (length - 1)
    return ((n + 1) * length - 1) / 2


def reflect(x, low, high):
    """``x`` reflected by the nearer border until it lies in ``[low, high]``."""
    span = high - low
    below = x < low
    distance = pt.switch(below, low - x, x - high)
    folds = pt.floor(distance / span)
    rest = distance - folds * span
    even = pt.eq(pt.mod(folds, 2), 0)
    reflected = pt.switch(pt.eq(even, below), low + rest, high - rest)
    return pt.switch(below | (x > high), reflected, x)


def cubic_weights(t):
    """Keys' cubic convolution weights of the 4 taps around a point at ``t`` in [0, 1)."""
    a = CUBIC_ALPHA

    def near(s):
        return ((a + 2) * s - (a + 3)) * s * s + 1

    def far(s):
        return ((a * s - 5 * a) * s + 8 * a) * s - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def taps(x, mode):
    """The (index, weight) pairs of the interpolation kernel at positions ``x``."""
    if mode == "nearest":
        return [(as_dtype(x, "int64"), None)]
    start = pt.floor(x)
    t = x - start
    start = as_dtype(start, "int64")
    if mode == "linear":
        return [(start, 1 - t), (start + 1, t)]
    return [(start + k - 1, w) for k, w in enumerate(cubic_weights(t))]


def pixel_index(index, length, low, high, padding_mode):
    """An index inside the axis, and whether the tap reads a pixel (zeros padding)."""
    last = length - 1
    if padding_mode == "zeros":
        inside = (index >= 0) & (index <= last)
        return pt.clip(index, 0, last), inside
    if padding_mode == "reflection":
        dtype = low.dtype
        index = as_dtype(reflect(as_dtype(index, dtype), low, high), "int64")
    return pt.clip(index, 0, last), None


@onnx_op("GridSample", since=16)
def grid_sample(node, x, grid):
    mode = node.attr("mode", "bilinear" if node.opset < 20 else "linear")
    mode = MODES.get(mode, mode)
    padding_mode = node.attr("padding_mode", "zeros")
    align_corners = node.attr("align_corners", 0)
    if mode != "nearest" and x.dtype.startswith(("int", "uint")):
        raise NotImplementedError(
            f"{node.label}: GridSample's {mode} mode on integers; as_dtype the input to float"
        )
    spatial = x.ndim - 2
    positions, bounds = [], []
    for d in range(spatial):
        length = as_dtype(x.shape[2 + d], grid.dtype)
        position = denormalize(grid[..., spatial - 1 - d], length, align_corners)
        if align_corners:
            low, high = like(0, position), length - 1
        else:
            low, high = like(-0.5, position), length - 0.5
        if mode == "nearest":
            position = pt.round(position, mode="half_to_even")
        if padding_mode == "border":
            outside = (position < low) | (position > high)
            position = pt.switch(outside, pt.clip(position, 0, length - 1), position)
        elif padding_mode == "reflection":
            position = reflect(position, low, high)
        positions.append(position)
        bounds.append((low, high))
    return interpolate(x, positions, mode, padding_mode, bounds)


def interpolate(x, positions, mode="linear", padding_mode="zeros", bounds=None):
    """``x`` (N, C, *spatial) interpolated at ``positions``, shaped (N, C, *points).

    ``positions`` holds one tensor (N, *points) of coordinates in pixels per
    spatial dim; ``bounds`` the ``(low, high)`` that reflection folds into.
    """
    axis_taps = []
    for d, position in enumerate(positions):
        low, high = (None, None) if bounds is None else bounds[d]
        axis_taps.append(
            [
                (*pixel_index(i, x.shape[2 + d], low, high, padding_mode), w)
                for i, w in taps(position, mode)
            ]
        )
    flat_indices, weights = [], []
    for combination in itertools.product(*axis_taps):
        flat, factors = 0, []
        for d, (index, inside, weight) in enumerate(combination):
            flat = flat * x.shape[2 + d] + index
            factors += [f for f in (weight, inside) if f is not None]
        flat_indices.append(flat)
        weights.append(
            functools.reduce(mul, [as_dtype(f, positions[0].dtype) for f in factors])
            if factors
            else None
        )
    return as_dtype(gather_weighted(x, positions[0], flat_indices, weights), x.dtype)


def gather_weighted(x, points, flat_indices, weights):
    """``sum_k weights[k] * x[n, c, flat_indices[k]]`` shaped ``(N, C, *points)``."""
    n = x.shape[0]
    values = x.reshape((n, x.shape[1], -1), ndim=3)
    indices = pt.stack([i.reshape((n, -1), ndim=2) for i in flat_indices], axis=1)
    gathered = values[pt.arange(n)[:, None, None], :, indices]
    if weights[0] is None:
        total = gathered[:, 0]
    else:
        stacked = pt.stack([w.reshape((n, -1), ndim=2) for w in weights], axis=1)
        total = (as_dtype(gathered, points.dtype) * stacked[..., None]).sum(axis=1)
    shape = (n, x.shape[1], *(points.shape[d] for d in range(1, points.ndim)))
    return pt.moveaxis(total, -1, 1).reshape(shape, ndim=points.ndim + 1)


def base_coordinates(length, align_corners, dtype):
    """The normalized coordinates of the points along an axis of ``length``."""
    steps = as_dtype(pt.arange(length), dtype)
    length = as_dtype(pt.as_tensor(length), dtype)
    if align_corners:
        return steps * (2 / pt.maximum(length - 1, 1)) - 1
    return (2 * steps + 1) / length - 1


@onnx_op("AffineGrid", since=20)
def affine_grid(node, theta, size):
    lengths = entries(size)[2:]
    spatial = len(lengths)
    align_corners = node.attr("align_corners", 0)
    axes = [base_coordinates(length, align_corners, theta.dtype) for length in lengths]
    columns = []
    for d in reversed(range(spatial)):
        shape = [1] * spatial
        shape[d] = -1
        columns.append(axes[d].reshape(shape))
    grid_shape = [pt.as_tensor(length) for length in lengths]
    homogeneous = pt.stack(
        [pt.broadcast_to(c, grid_shape) for c in columns]
        + [pt.ones(grid_shape, dtype=theta.dtype)],
        axis=-1,
    )
    points = homogeneous.reshape((-1, spatial + 1))
    grid = pt.tensordot(points, theta, axes=[[1], [2]])
    return pt.moveaxis(grid, 0, 1).reshape(
        (theta.shape[0], *lengths, spatial), ndim=spatial + 2
    )
