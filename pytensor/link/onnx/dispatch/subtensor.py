"""Converters for indexing: basic and advanced subtensors and their updates.

Basic indexing becomes ``Slice`` and ``Gather``. Advanced indexing and all
set/increment Ops go through the flat positions (in the raveled input) of the
elements NumPy's indexing selects: a ``Gather`` from, or a ``ScatterElements``
into, the raveled input then reproduces NumPy for any mix of slices, integers,
index arrays, boolean masks and new axes.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pytensor.graph.basic import Constant, Variable
from pytensor.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    IncSubtensor,
    Subtensor,
    indices_from_subtensor,
)
from pytensor.tensor.type_other import MakeSlice, NoneTypeT, SliceType

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.shape import all_true, int64_min


INT64_MIN = int(np.iinfo(np.int64).min)
INT64_MAX = int(np.iinfo(np.int64).max)


@dataclass(frozen=True)
class Index:
    """A scalar or array index: an ONNX value with its variable, or a literal int."""

    name: str | None = None
    var: Variable | None = None
    literal: int | None = None

    @property
    def ndim(self) -> int:
        return 0 if self.var is None else self.var.type.ndim

    @property
    def is_mask(self) -> bool:
        return self.var is not None and self.var.type.dtype == "bool"

    def static_value(self) -> int | None:
        if self.literal is not None:
            return self.literal
        if isinstance(self.var, Constant) and self.var.type.ndim == 0:
            return int(self.var.data)
        return None

    def int64(self, builder) -> str:
        value = self.static_value()
        if value is not None:
            return builder.constant(value, "int64", hint="index")
        return builder.cast(self.name, self.var.type.dtype, "int64")


def index_entries(node, inputs, n_skip: int) -> tuple:
    """The index tuple of a ``*Subtensor*`` node whose first ``n_skip`` inputs are data.

    Entries are ``None`` (new axis), ``slice`` objects holding ``Index`` or
    ``None``, and ``Index``.
    """
    indices = [
        Index(name, var)
        for name, var in zip(inputs[n_skip:], node.inputs[n_skip:], strict=True)
    ]
    entries = indices_from_subtensor(indices, getattr(node.op, "idx_list", None))
    return tuple(unwrap_graph_index(entry) for entry in entries)


def unwrap_graph_index(entry):
    """Decode the ``None`` and slice values PyTensor < 3 passes as graph inputs."""
    if isinstance(entry, slice) or not isinstance(
        entry.var.type, NoneTypeT | SliceType
    ):
        return entry
    if isinstance(entry.var.type, NoneTypeT):
        return None
    if isinstance(entry.var, Constant):
        data = entry.var.data
        return slice(
            *(
                None if value is None else Index(literal=int(value))
                for value in (data.start, data.stop, data.step)
            )
        )
    names = entry.name
    return slice(
        *(
            None if isinstance(var.type, NoneTypeT) else Index(name, var)
            for name, var in zip(
                (names.start, names.stop, names.step),
                entry.var.owner.inputs,
                strict=True,
            )
        )
    )


@onnx_funcify.register(MakeSlice)
def onnx_funcify_MakeSlice(op, node, builder, inputs, **kwargs):
    return [slice(*inputs)]


# Scalar arithmetic on values that are Python ints (or bools) when known at
# conversion time and names of int64 (or bool) scalars otherwise.


def int64_value(builder, value) -> str:
    if isinstance(value, str):
        return value
    return builder.constant(value, "int64", hint="index")


def binary(builder, op_type, python_fn, a, b):
    if not isinstance(a, str) and not isinstance(b, str):
        return python_fn(a, b)
    return builder.add(op_type, [int64_value(builder, a), int64_value(builder, b)])


def smaller(builder, a, b):
    if not isinstance(a, str) and not isinstance(b, str):
        return min(a, b)
    return int64_min(builder, int64_value(builder, a), int64_value(builder, b))


def mul(builder, a, b):
    if a == 1 or b == 1:
        return b if a == 1 else a
    return binary(builder, "Mul", int.__mul__, a, b)


def less(builder, a, b):
    return binary(builder, "Less", int.__lt__, a, b)


def equal(builder, a, b):
    return binary(builder, "Equal", int.__eq__, a, b)


def neg(builder, a):
    return builder.add("Neg", [a]) if isinstance(a, str) else -a


def negate(builder, a):
    return builder.add("Not", [a]) if isinstance(a, str) else not a


def both(builder, a, b):
    if a is False or b is False:
        return False
    if a is True or b is True:
        return b if a is True else a
    return builder.add("And", [a, b])


def either(builder, a, b):
    if a is True or b is True:
        return True
    if a is False or b is False:
        return b if a is False else a
    return builder.add("Or", [a, b])


def where(builder, condition, a, b):
    if isinstance(condition, bool):
        return a if condition else b
    return builder.add(
        "Where", [condition, int64_value(builder, a), int64_value(builder, b)]
    )


def int64_vector(builder, values) -> str:
    if not any(isinstance(value, str) for value in values):
        return builder.constant(list(values), "int64", hint="indices")
    axis = builder.constant([0], "int64")
    parts = [
        builder.add("Unsqueeze", [value, axis])
        if isinstance(value, str)
        else builder.constant([value], "int64", hint="index")
        for value in values
    ]
    return parts[0] if len(parts) == 1 else builder.add("Concat", parts, axis=0)


class Dims:
    """The dimensions of a tensor: static ones as ints, others as int64 scalars."""

    def __init__(self, builder, name: str, static_shape: Sequence[int | None]):
        self.builder = builder
        self.name = name
        self.static_shape = tuple(static_shape)
        self.ndim = len(self.static_shape)
        self._shape = None
        self._dims: dict[int, str] = {}

    def __getitem__(self, axis: int):
        if self.static_shape[axis] is not None:
            return self.static_shape[axis]
        if axis not in self._dims:
            self._dims[axis] = self.builder.add(
                "Gather",
                [self.shape(), self.builder.constant(axis, "int64")],
                axis=0,
                hint="dim",
            )
        return self._dims[axis]

    def shape(self) -> str:
        if self._shape is None:
            self._shape = self.builder.add("Shape", [self.name], hint="shape")
        return self._shape

    def strides(self) -> list:
        """Row-major strides, in elements."""
        strides, stride = [], 1
        for axis in reversed(range(self.ndim)):
            strides.append(stride)
            stride = mul(self.builder, stride, self[axis])
        return strides[::-1]


def is_full_slice(entry: slice) -> bool:
    return (
        (entry.start is None or entry.start.static_value() == 0)
        and entry.stop is None
        and (entry.step is None or entry.step.static_value() == 1)
    )


def scalar_value(builder, index: Index):
    value = index.static_value()
    return index.int64(builder) if value is None else value


def slice_bounds(builder, entry: slice, dims: Dims, axis: int):
    """``(start, stop, step)`` making ONNX ``Slice`` select what NumPy does."""
    step = 1 if entry.step is None else scalar_value(builder, entry.step)
    negative = less(builder, step, 0)
    if entry.start is None:
        start = where(builder, negative, INT64_MAX, 0)
    else:
        start = scalar_value(builder, entry.start)
    if entry.stop is None:
        stop = where(builder, negative, INT64_MIN, INT64_MAX)
    else:
        stop = scalar_value(builder, entry.stop)
    if negative is not False and (isinstance(stop, str) or stop == INT64_MAX):
        # onnxruntime reads a stop of INT64_MAX as "past the first element"
        # even in descending slices; to NumPy any stop >= dim means dim.
        stop = smaller(builder, stop, dims[axis])
    if entry.start is not None and negative is not False:
        # ONNX clamps the start of a descending slice to 0 when NumPy selects
        # nothing (start < -dim); a stop of 0 empties the slice.
        before_first = less(builder, start, neg(builder, dims[axis]))
        stop = where(builder, both(builder, negative, before_first), 0, stop)
    return start, stop, step


def apply_slices(builder, data: str, bounds_by_axis: dict) -> str:
    if not bounds_by_axis:
        return data
    starts, stops, steps = zip(*bounds_by_axis.values(), strict=True)
    return builder.add(
        "Slice",
        [
            data,
            int64_vector(builder, starts),
            int64_vector(builder, stops),
            builder.constant(list(bounds_by_axis), "int64", hint="axes"),
            int64_vector(builder, steps),
        ],
        hint="sliced",
    )


@onnx_funcify.register(Subtensor)
def onnx_funcify_Subtensor(op, node, builder, inputs, **kwargs):
    x = inputs[0]
    entries = index_entries(node, inputs, 1)
    dims = Dims(builder, x, node.inputs[0].type.shape)
    result = apply_slices(
        builder,
        x,
        {
            axis: slice_bounds(builder, entry, dims, axis)
            for axis, entry in enumerate(entries)
            if isinstance(entry, slice) and not is_full_slice(entry)
        },
    )
    for axis in reversed(range(len(entries))):
        if not isinstance(entries[axis], slice):
            result = builder.add(
                "Gather", [result, entries[axis].int64(builder)], axis=axis
            )
    return [result]


@onnx_funcify.register(AdvancedSubtensor1)
def onnx_funcify_AdvancedSubtensor1(op, node, builder, inputs, **kwargs):
    x, indices = inputs
    indices = builder.cast(indices, node.inputs[1].type.dtype, "int64")
    return [builder.add("Gather", [x, indices], axis=0)]


@dataclass(frozen=True)
class ArrayIndex:
    """An int64 index array for one axis (a boolean mask yields one per axis)."""

    name: str
    ndim: int
    from_mask: bool = False


def mask_indices(builder, mask: Index, dims: Dims, first_axis: int) -> list:
    """The index arrays NumPy's ``nonzero`` makes of a boolean mask."""
    mask_shape = mask.var.type.shape
    covered_shape = dims.static_shape[first_axis : first_axis + mask.ndim]
    if None in mask_shape or None in covered_shape:
        same_shape = builder.add(
            "Equal",
            [
                builder.add("Shape", [mask.name]),
                builder.add(
                    "Shape", [dims.name], start=first_axis, end=first_axis + mask.ndim
                ),
            ],
        )
        builder.require(
            all_true(builder, same_shape),
            IndexError,
            "boolean index did not match the shape of the indexed dimensions",
            is_scalar=True,
        )
    nonzero = builder.add("NonZero", [mask.name], hint="nonzero")
    return [
        ArrayIndex(
            builder.add("Gather", [nonzero, builder.constant(i, "int64")], axis=0),
            1,
            from_mask=True,
        )
        for i in range(mask.ndim)
    ]


@dataclass(frozen=True)
class Positions:
    """Flat positions of indexed elements, shaped like the indexing result."""

    name: str
    may_repeat: bool


def flat_positions(builder, x_var, x: str, entries) -> Positions:
    """Positions in raveled ``x`` of the elements of ``x[entries]``.

    Each indexed axis contributes its coordinates times its stride, broadcast
    to the output dimensions NumPy gives that axis; their sum is the result.
    Scalar indices act as 0-d index arrays, which only matters for where the
    broadcast index dimensions go: NumPy moves them to the front when basic
    entries separate index arrays.
    """
    dims = Dims(builder, x, x_var.type.shape)
    explicit = []
    for entry in entries:
        if isinstance(entry, Index) and entry.is_mask:
            first_axis = sum(e is not None for e in explicit)
            explicit.extend(mask_indices(builder, entry, dims, first_axis))
        elif isinstance(entry, Index):
            explicit.append(ArrayIndex(entry.int64(builder), entry.ndim))
        else:
            explicit.append(entry)
    explicit += [slice(None)] * (dims.ndim - sum(e is not None for e in explicit))

    advanced = [i for i, e in enumerate(explicit) if isinstance(e, ArrayIndex)]
    block_ndim = max((explicit[i].ndim for i in advanced), default=0)
    if advanced and advanced == list(range(advanced[0], advanced[-1] + 1)):
        block_start = sum(
            not isinstance(e, ArrayIndex) for e in explicit[: advanced[0]]
        )
    else:
        block_start = 0
    block_end = block_start + block_ndim
    ndim = sum(not isinstance(e, ArrayIndex) for e in explicit) + block_ndim

    strides = dims.strides()
    terms = []
    axis = basic_dim = 0
    for entry in explicit:
        if entry is None:
            basic_dim += 1
            continue
        coords = builder.add(
            "Range",
            [
                builder.constant(0, "int64"),
                int64_value(builder, dims[axis]),
                builder.constant(1, "int64"),
            ],
            hint="coords",
        )
        if strides[axis] != 1:
            coords = builder.add("Mul", [coords, int64_value(builder, strides[axis])])
        if isinstance(entry, slice):
            if not is_full_slice(entry):
                bounds = slice_bounds(builder, entry, dims, axis)
                coords = apply_slices(builder, coords, {0: bounds})
            out_dims = [basic_dim + (block_ndim if basic_dim >= block_start else 0)]
            basic_dim += 1
        else:
            coords = builder.add("Gather", [coords, entry.name], axis=0)
            out_dims = list(range(block_end - entry.ndim, block_end))
        new_axes = [d for d in range(ndim) if d not in out_dims]
        if new_axes:
            coords = builder.add(
                "Unsqueeze", [coords, builder.constant(new_axes, "int64")]
            )
        terms.append(coords)
        axis += 1

    if not terms:
        return Positions(builder.constant(np.zeros((1,) * ndim), "int64"), False)
    positions = terms[0]
    for term in terms[1:]:
        positions = builder.add("Add", [positions, term], hint="positions")
    may_repeat = any(
        isinstance(e, ArrayIndex) and e.ndim > 0 and not e.from_mask for e in explicit
    )
    return Positions(positions, may_repeat)


@onnx_funcify.register(AdvancedSubtensor)
def onnx_funcify_AdvancedSubtensor(op, node, builder, inputs, **kwargs):
    positions = flat_positions(
        builder, node.inputs[0], inputs[0], index_entries(node, inputs, 1)
    )
    flat = builder.add("Reshape", [inputs[0], builder.constant([-1], "int64")])
    return [builder.add("Gather", [flat, positions.name], axis=0)]


def last_occurrences(builder, targets: str, updates: str):
    """Keep one update per target: the last, which NumPy's assignment leaves."""
    reverse = [
        builder.constant([-1], "int64"),
        builder.constant([INT64_MIN], "int64"),
        builder.constant([0], "int64"),
        builder.constant([-1], "int64"),
    ]
    unique_targets, first_in_reverse = builder.add_multi(
        "Unique", [builder.add("Slice", [targets, *reverse])], n_outputs=2, sorted=0
    )
    reversed_updates = builder.add("Slice", [updates, *reverse])
    return unique_targets, builder.add(
        "Gather", [reversed_updates, first_in_reverse], axis=0
    )


def update_at(builder, node, inputs, positions: Positions, *, increment, keep_last):
    """Input 0 with input 1 written to (or added at) ``positions``."""
    x, y = inputs[:2]
    x_var, y_var = node.inputs[:2]
    flat = builder.constant([-1], "int64")
    updates = builder.add(
        "Expand",
        [
            builder.cast(y, y_var.type.dtype, x_var.type.dtype),
            builder.add("Shape", [positions.name]),
        ],
    )
    targets = builder.add("Reshape", [positions.name, flat])
    updates = builder.add("Reshape", [updates, flat])
    if keep_last and positions.may_repeat:
        targets, updates = last_occurrences(builder, targets, updates)
    # Not ScatterND: onnxruntime loses some of its repeated additions when
    # it runs on several threads.
    result = builder.add(
        "ScatterElements",
        [builder.add("Reshape", [x, flat]), targets, updates],
        axis=0,
        reduction="add" if increment else "none",
    )
    return builder.add("Reshape", [result, builder.add("Shape", [x])], allowzero=1)


@dataclass(frozen=True)
class Rows:
    """Distinct int64 positions along axis 0, and how many when known statically."""

    name: str
    length: int | None


def update_rows(builder, node, inputs, rows: Rows, *, increment):
    """Input 0 with input 1 written to (or added at) ``rows``."""
    x, y = inputs[:2]
    x_var, y_var = node.inputs[:2]
    ndim = x_var.type.ndim
    static_region = (rows.length, *x_var.type.shape[1:])
    if None not in static_region:
        region_shape = builder.constant(static_region, "int64", hint="shape")
    else:
        region_shape = builder.add("Shape", [rows.name])
        if ndim > 1:
            rest = builder.add("Shape", [x], start=1)
            region_shape = builder.add("Concat", [region_shape, rest], axis=0)
    targets = rows.name
    if ndim > 1:
        trailing = builder.constant(list(range(1, ndim)), "int64")
        targets = builder.add("Unsqueeze", [targets, trailing])
        targets = builder.add("Expand", [targets, region_shape])
    updates = builder.add(
        "Expand",
        [builder.cast(y, y_var.type.dtype, x_var.type.dtype), region_shape],
    )
    return builder.add(
        "ScatterElements",
        [x, targets, updates],
        axis=0,
        reduction="add" if increment else "none",
    )


def static_slice_length(entry: slice, dim) -> int | None:
    parts = (entry.start, entry.stop, entry.step)
    bounds = [None if part is None else part.static_value() for part in parts]
    unknown = any(
        b is None and p is not None for b, p in zip(bounds, parts, strict=True)
    )
    if unknown or isinstance(dim, str):
        return None
    return len(range(dim)[slice(*bounds)])


def distinct_rows(builder, node, inputs) -> Rows | None:
    """The rows of axis 0 an update writes, if it writes each row once.

    That is a single scalar or slice index (a set or increment of ``x[i]`` or
    ``x[a:b:c]``) or an ``AdvancedIncSubtensor1`` increment, whose repeated
    rows ``ScatterElements`` accumulates as ``np.add.at`` does.
    """
    op = node.op
    if isinstance(op, AdvancedIncSubtensor1):
        if op.set_instead_of_inc:
            return None
        [length] = node.inputs[2].type.shape
        return Rows(builder.cast(inputs[2], node.inputs[2].type.dtype, "int64"), length)
    if not isinstance(op, IncSubtensor):
        return None
    entries = list(index_entries(node, inputs, 2))
    while entries and isinstance(entries[-1], slice) and is_full_slice(entries[-1]):
        entries.pop()
    if len(entries) != 1:
        return None
    [entry] = entries
    if isinstance(entry, Index):
        value = entry.static_value()
        if value is not None:
            return Rows(builder.constant([value], "int64", hint="index"), 1)
        one = builder.constant([1], "int64")
        return Rows(builder.add("Reshape", [entry.int64(builder), one]), 1)
    dims = Dims(builder, inputs[0], node.inputs[0].type.shape)
    coords = builder.add(
        "Range",
        [
            builder.constant(0, "int64"),
            int64_value(builder, dims[0]),
            builder.constant(1, "int64"),
        ],
        hint="coords",
    )
    rows = apply_slices(builder, coords, {0: slice_bounds(builder, entry, dims, 0)})
    return Rows(rows, static_slice_length(entry, dims[0]))


@onnx_funcify.register(IncSubtensor)
@onnx_funcify.register(AdvancedIncSubtensor)
@onnx_funcify.register(AdvancedIncSubtensor1)
def onnx_funcify_IncSubtensor(op, node, builder, inputs, **kwargs):
    if isinstance(op, AdvancedIncSubtensor1):
        require_no_runtime_broadcast(builder, op, node, inputs)
    increment = not op.set_instead_of_inc
    rows = distinct_rows(builder, node, inputs)
    if rows is not None:
        return [update_rows(builder, node, inputs, rows, increment=increment)]
    positions = flat_positions(
        builder, node.inputs[0], inputs[0], index_entries(node, inputs, 2)
    )
    return [
        update_at(
            builder,
            node,
            inputs,
            positions,
            increment=increment,
            keep_last=op.set_instead_of_inc or getattr(op, "ignore_duplicates", False),
        )
    ]


def require_no_runtime_broadcast(builder, op, node, inputs):
    """Raise, as ``AdvancedIncSubtensor1`` does, when ``y`` would be broadcast
    along a dimension its type does not declare broadcastable."""
    x_var, y_var, indices_var = node.inputs
    x_dims = Dims(builder, inputs[0], x_var.type.shape)
    y_dims = Dims(builder, inputs[1], y_var.type.shape)
    n_indices = Dims(builder, inputs[2], indices_var.type.shape)
    broadcasts = False
    for y_axis in range(y_dims.ndim):
        if y_var.type.broadcastable[y_axis]:
            continue
        region_axis = x_dims.ndim - y_dims.ndim + y_axis
        target = n_indices[0] if region_axis == 0 else x_dims[region_axis]
        stretched = both(
            builder,
            equal(builder, y_dims[y_axis], 1),
            negate(builder, equal(builder, target, 1)),
        )
        broadcasts = either(builder, broadcasts, stretched)
    if isinstance(broadcasts, str):
        builder.require(
            negate(builder, broadcasts),
            ValueError,
            op._runtime_broadcast_error_msg,
            is_scalar=True,
        )
