"""NumPy's indexing as ONNX graphs: slices, index arrays, masks and updates.

An index is a tuple of entries: ``None`` (a new axis), ``slice`` objects of
scalars (Python ints when static, 0-d int64 values otherwise, or ``None``),
`ArrayIndex` (an integer index, 0-d for a scalar index) and `Mask` (a
boolean mask). Basic indexing is ``Slice`` and ``Gather``; advanced
indexing and updates go through the flat positions (in the raveled array)
of the elements NumPy selects (`flat_positions`): a ``Gather`` from, or a
``ScatterElements`` into, the raveled array reproduces NumPy for any mix of
entries.

Integer indices are checked (`checked_index`): the compiled function raises
NumPy's ``IndexError`` for an index out of bounds, and the graph reads index
0 there instead, since onnxruntime reports checks only after a run succeeds,
except where a ``Gather`` or ``ScatterElements`` of the main graph fails on
the index itself, which makes the check free until a run fails.
"""

from dataclasses import dataclass

import numpy as np

from pytensor.link.onnx.value import (
    Value,
    concat,
    length,
    logical_and,
    maximum,
    minimum,
    strides,
    where,
)


INT64_MIN = int(np.iinfo(np.int64).min)
INT64_MAX = int(np.iinfo(np.int64).max)


@dataclass(frozen=True)
class ArrayIndex:
    """An integer index of ``ndim`` dimensions: an int64 value or a Python int,
    with the least and greatest of its entries if they are static."""

    value: Value | int
    ndim: int
    from_mask: bool = False
    bounds: tuple[int, int] | None = None


@dataclass(frozen=True)
class Mask:
    """A boolean mask index, with its static shape (``None`` where unknown)."""

    value: Value
    static_shape: tuple

    @property
    def ndim(self) -> int:
        return len(self.static_shape)


@dataclass(frozen=True)
class Positions:
    """Flat positions of indexed elements, shaped like the indexing result."""

    value: Value
    may_repeat: bool


def is_static(scalar, number: int) -> bool:
    """Whether ``scalar`` is the Python int ``number``."""
    return isinstance(scalar, int) and scalar == number


def is_full_slice(entry: slice) -> bool:
    return (
        (entry.start is None or is_static(entry.start, 0))
        and entry.stop is None
        and (entry.step is None or is_static(entry.step, 1))
    )


def slice_bounds(entry: slice, dim):
    """``(start, stop, step)`` making ONNX ``Slice`` select what NumPy does
    along an axis of length ``dim``."""
    step = 1 if entry.step is None else entry.step
    negative = step < 0
    start = where(negative, INT64_MAX, 0) if entry.start is None else entry.start
    stop = where(negative, INT64_MIN, INT64_MAX) if entry.stop is None else entry.stop
    if negative is not False and (isinstance(stop, Value) or stop == INT64_MAX):
        # onnxruntime reads a stop of INT64_MAX as "past the first element"
        # even in descending slices; to NumPy any stop >= dim means dim.
        stop = minimum(stop, dim)
    if entry.start is not None and negative is not False:
        # ONNX clamps the start of a descending slice to 0 when NumPy selects
        # nothing (start < -dim); a stop of 0 empties the slice.
        stop = where(logical_and(negative, start < -dim), 0, stop)
    return start, stop, step


def static_slice_length(entry: slice, dim) -> int | None:
    """The length of ``entry`` along an axis of length ``dim``, if it is static."""
    bounds = (entry.start, entry.stop, entry.step, dim)
    if any(isinstance(bound, Value) for bound in bounds):
        return None
    return len(range(dim)[entry])


def sliced(data: Value, bounds_by_axis: dict) -> Value:
    """``data`` sliced along the axes of ``bounds_by_axis`` (see `slice_bounds`)."""
    if not bounds_by_axis:
        return data
    starts, stops, steps = zip(*bounds_by_axis.values(), strict=True)
    return data.apply(
        "Slice",
        data,
        data.indices(list(starts)),
        data.indices(list(stops)),
        data.indices(list(bounds_by_axis)),
        data.indices(list(steps)),
    )


def positions_along(like: Value, dim) -> Value:
    """``numpy.arange(dim)`` for a scalar ``dim``."""
    zero = like.indices(0)
    return zero.apply("Range", zero, dim, 1)


def checked_index(
    like: Value, index: ArrayIndex, dim, axis: int, fails_out_of_bounds=False
):
    """``index.value``, required to lie in ``[-dim, dim)`` and replaced by 0 where not.

    The compiled function raises NumPy's ``IndexError`` for an index out of
    bounds; reading index 0 there keeps onnxruntime's ``Gather`` and
    ``ScatterElements`` from failing first. Static indices in bounds of a
    static axis add no node. Where the caller reads or writes along an axis
    of length ``dim`` with the index (``Gather``, ``ScatterElements``),
    onnxruntime ``fails_out_of_bounds`` itself: in the main graph, the bounds
    are then checked only after a failed run, and cost nothing to the runs
    that succeed.
    """
    value = index.value
    symbolic = isinstance(value, Value) or isinstance(dim, Value)
    bounds = (value, value) if isinstance(value, int) else index.bounds
    if bounds is not None and not isinstance(dim, Value):
        least, greatest = bounds
        if -dim <= least and greatest < dim:
            return value
    if index.from_mask or not like.builder.keep_checks:
        return value
    in_bounds = (
        bounds_condition(value, dim) if symbolic else like.constant(False, "bool")
    )
    message = f"index out of bounds for axis {axis}"
    if isinstance(value, int):
        message = f"index {value} is out of bounds for axis {axis}"
    if isinstance(dim, int):
        message += f" with size {dim}"
    checked_by_onnxruntime = (
        symbolic and fails_out_of_bounds and not like.builder.nested
    )
    like.builder.require(
        in_bounds,
        IndexError,
        message,
        is_scalar=index.ndim == 0,
        after_failure=checked_by_onnxruntime,
    )
    if checked_by_onnxruntime:
        return value
    return where(in_bounds, value, 0) if symbolic else 0


def bounds_condition(index, dim) -> Value:
    """Whether ``-dim <= index < dim``, for an int64 value or int ``index``."""
    if isinstance(index, Value):
        return logical_and(-dim <= index, index < dim)
    return dim > index if index >= 0 else dim >= -index


def mask_indices(x: Value, static_shape, mask: Mask, first_axis: int) -> list:
    """The index arrays NumPy's ``nonzero`` makes of ``mask``, which covers
    the axes of ``x`` from ``first_axis`` on."""
    covered = tuple(static_shape[first_axis : first_axis + mask.ndim])
    message = "boolean index did not match the shape of the indexed dimensions"
    if None in mask.static_shape or None in covered:
        matches = mask.value.shape().eq(x.shape(first_axis, first_axis + mask.ndim))
        x.builder.require(matches, IndexError, message)
    elif tuple(mask.static_shape) != covered:
        # PyTensor's AdvancedIncSubtensor accepts such a mask; NumPy raises
        x.builder.require(
            x.constant(False, "bool"), IndexError, message, is_scalar=True
        )
    nonzero = mask.value.apply("NonZero", mask.value)
    return [
        ArrayIndex(nonzero.take(nonzero.indices(i), axis=0), 1, from_mask=True)
        for i in range(mask.ndim)
    ]


def explicit_entries(x: Value, static_shape, entries) -> list:
    """``entries`` with masks as index arrays and a full slice for every axis left."""
    explicit = []
    for entry in entries:
        if isinstance(entry, Mask):
            first_axis = sum(e is not None for e in explicit)
            explicit.extend(mask_indices(x, static_shape, entry, first_axis))
        else:
            explicit.append(entry)
    n_left = len(static_shape) - sum(e is not None for e in explicit)
    return explicit + [slice(None)] * n_left


def flat_positions(x: Value, static_shape, entries) -> Positions:
    """Positions in raveled ``x`` of the elements of ``x[entries]``.

    Each indexed axis contributes its coordinates times its stride, broadcast
    to the output dimensions NumPy gives that axis; their sum is the result.
    Scalar indices act as 0-d index arrays, which only matters for where the
    broadcast index dimensions go: NumPy moves them to the front when basic
    entries separate index arrays.
    """
    dims = [length(x, axis, dim) for axis, dim in enumerate(static_shape)]
    explicit = explicit_entries(x, static_shape, entries)
    advanced = [i for i, e in enumerate(explicit) if isinstance(e, ArrayIndex)]
    block_ndim = max((explicit[i].ndim for i in advanced), default=0)
    block_start = 0
    if advanced and advanced == list(range(advanced[0], advanced[-1] + 1)):
        block_start = sum(
            not isinstance(e, ArrayIndex) for e in explicit[: advanced[0]]
        )
    block_end = block_start + block_ndim
    ndim = sum(not isinstance(e, ArrayIndex) for e in explicit) + block_ndim

    terms, axis_strides = [], strides(dims)
    axis = basic_dim = 0
    for entry in explicit:
        if entry is None:
            basic_dim += 1
            continue
        coords = positions_along(x, dims[axis])
        if not is_static(axis_strides[axis], 1):
            coords = coords * axis_strides[axis]
        if isinstance(entry, slice):
            if not is_full_slice(entry):
                coords = sliced(coords, {0: slice_bounds(entry, dims[axis])})
            out_dims = [basic_dim + (block_ndim if basic_dim >= block_start else 0)]
            basic_dim += 1
        else:
            index = checked_index(x, entry, dims[axis], axis, fails_out_of_bounds=True)
            coords = coords.take(index, axis=0)
            out_dims = list(range(block_end - entry.ndim, block_end))
        new_axes = [d for d in range(ndim) if d not in out_dims]
        terms.append(coords.unsqueeze(new_axes) if new_axes else coords)
        axis += 1

    if not terms:
        return Positions(x.indices(np.zeros((1,) * ndim)), False)
    positions = terms[0]
    for term in terms[1:]:
        positions = positions + term
    may_repeat = any(
        isinstance(e, ArrayIndex) and e.ndim > 0 and not e.from_mask for e in explicit
    )
    return Positions(positions, may_repeat)


def last_occurrences(targets: Value, updates: Value):
    """Keep one update per target: the last, which NumPy's assignment leaves."""
    reverse = [targets.indices([bound]) for bound in (-1, INT64_MIN, 0, -1)]
    unique_targets, first_in_reverse = targets.apply_multi(
        "Unique",
        targets.apply("Slice", targets, *reverse),
        dtypes=("int64", "int64"),
        sorted=0,
    )
    reversed_updates = updates.apply("Slice", updates, *reverse)
    return unique_targets, reversed_updates.take(first_in_reverse, axis=0)


VALUE_DOES_NOT_FIT = (
    "shape mismatch: value array could not be broadcast to indexing result"
)


def require_fits(y: Value, y_shape, region_shape: Value, *, after_failure=True):
    """Raise NumPy's ``ValueError`` unless ``y`` (of static shape ``y_shape``)
    broadcasts to ``region_shape``: each of its lengths is 1 or that of the
    region's axis it stands for (the last ones).

    The caller's ``Expand`` or ``ScatterElements`` fails first on a region
    that is not empty (see ``after_failure`` of ``ONNXGraphBuilder.require``).
    """
    axes = [axis for axis, dim in enumerate(y_shape) if dim != 1]
    if not axes or not y.builder.keep_checks:
        return
    y_lengths = y.shape().take(axes, axis=0)
    region_axes = [axis - len(y_shape) for axis in axes]
    region_lengths = region_shape.take(region_axes, axis=0)
    y.builder.require(
        y_lengths.eq(1) | y_lengths.eq(region_lengths),
        ValueError,
        VALUE_DOES_NOT_FIT,
        after_failure=after_failure,
    )


def scatter_at(
    x: Value, y: Value, positions: Positions, y_shape, *, increment, keep_last
):
    """``x`` with ``y`` (of static shape ``y_shape``) written to (or added at)
    the flat ``positions``.

    With ``keep_last``, of repeated positions the last write wins.
    """
    flat = x.indices([-1])
    targets = positions.value.reshape(flat)
    region_shape = positions.value.shape()
    require_fits(y, y_shape, region_shape)
    updates = y.cast(x.dtype).expand(region_shape)
    if keep_last and positions.may_repeat:
        # as many updates as targets, or onnxruntime fails: a value that does
        # not fit would give more
        updates = updates.reshape(targets.shape())
        targets, updates = last_occurrences(targets, updates)
    else:
        updates = updates.reshape(flat)
    # Not ScatterND: onnxruntime loses some of its repeated additions when
    # it runs on several threads.
    result = x.apply(
        "ScatterElements",
        x.reshape(flat),
        targets,
        updates,
        axis=0,
        reduction="add" if increment else "none",
    )
    return result.reshape(x.shape())


def scatter_along(
    x: Value, y: Value, positions: Value, count, static_shape, y_shape, axis, *,
    increment,
):  # fmt: skip
    """``x`` with ``y`` (of static shape ``y_shape``, broadcast to the region)
    written to (or added at) the distinct ``positions`` of its ``axis``, of
    which there are ``count`` if known statically: ``x[:, positions]`` for
    ``axis=1``."""
    ndim = len(static_shape)
    static_region = (*static_shape[:axis], count, *static_shape[axis + 1 :])
    if None not in static_region:
        region_shape = x.indices(static_region)
        if 0 in static_region:
            # onnxruntime's constant folding mis-shapes the empty targets
            require_fits(y, y_shape, region_shape, after_failure=False)
            return x
    else:
        parts = [x.shape(0, axis)] if axis else []
        parts.append(positions.shape())
        if axis + 1 < ndim:
            parts.append(x.shape(axis + 1))
        region_shape = concat(parts, axis=0) if len(parts) > 1 else parts[0]
    require_fits(y, y_shape, region_shape)
    other_axes = [a for a in range(ndim) if a != axis]
    targets = positions.unsqueeze(other_axes) if other_axes else positions
    if other_axes:
        targets = targets.expand(region_shape)
    updates = y.cast(x.dtype).expand(region_shape)
    reduction = "add" if increment else "none"
    return x.apply(
        "ScatterElements", x, targets, updates, axis=axis, reduction=reduction
    )


def require_in_range(index: Value, end: Value, message: str):
    """Make the function raise ``ValueError(message)`` unless ``0 <= index < end``."""
    if index.builder.keep_checks:
        index.builder.require((index >= 0) & (index < end), ValueError, message)


def bounded_index(
    index: Value,
    length: Value,
    mode: str,
    message: str = "invalid entry in coordinates array",
) -> Value:
    """``index`` wrapped or clipped into ``[0, length)`` as NumPy's ``mode``
    argument does (``ravel_multi_index``, ``choose``), or checked to be in it
    (``mode="raise"``, raising ``ValueError(message)``)."""
    if mode == "raise":
        require_in_range(index, length, message)
        return index
    if mode == "wrap":
        return index % maximum(length, length.constant(1))
    return maximum(minimum(index, length - 1), index.constant(0))
