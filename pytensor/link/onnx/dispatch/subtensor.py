"""Converters for indexing: basic and advanced subtensors and their updates.

The index tuple of an Op becomes the entries of
`pytensor.link.onnx.numerics.indexing`, which computes NumPy's indexing: basic
indexing as ``Slice`` and ``Gather``; an index along one axis after full
slices (``x[:, idx]``, ``x[:, 2]``, ``x[:, a:b]``, what a log-density evaluated
for several chains reads and updates) as a ``Gather`` or a
``ScatterElements`` along that axis; other advanced indexing and updates
through the flat positions of the elements selected.
"""

from dataclasses import dataclass

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
from pytensor.link.onnx.numerics.indexing import (
    ArrayIndex,
    Mask,
    checked_index,
    flat_positions,
    is_full_slice,
    positions_along,
    scatter_along,
    scatter_at,
    slice_bounds,
    sliced,
    static_slice_length,
)
from pytensor.link.onnx.value import (
    Value,
    equal,
    length,
    logical_and,
    logical_not,
    logical_or,
)


@dataclass(frozen=True)
class Index:
    """A scalar or array index: an ONNX value with its variable, or a literal int."""

    name: str | None = None
    var: Variable | None = None
    literal: int | None = None

    def static_value(self) -> int | None:
        if self.literal is not None:
            return self.literal
        if isinstance(self.var, Constant) and self.var.type.ndim == 0:
            return int(self.var.data)
        return None

    def scalar(self, builder):
        """The index as a Python int if it is static, else as an int64 value."""
        value = self.static_value()
        if value is not None:
            return value
        return builder.value(self.name, self.var.type.dtype).cast("int64")

    def entry(self, builder):
        """The index as an entry of `pytensor.link.onnx.numerics.indexing`."""
        if self.var is not None and self.var.type.dtype == "bool":
            return Mask(builder.value(self.name, "bool"), self.var.type.shape)
        ndim = 0 if self.var is None else self.var.type.ndim
        if ndim and isinstance(self.var, Constant) and self.var.data.size:
            bounds = (int(self.var.data.min()), int(self.var.data.max()))
            return ArrayIndex(self.scalar(builder), ndim, bounds=bounds)
        return ArrayIndex(self.scalar(builder), ndim)


def index_entries(builder, node, inputs, n_skip: int) -> tuple:
    """The index tuple of a ``*Subtensor*`` node whose first ``n_skip`` inputs
    are data, as entries of `pytensor.link.onnx.numerics.indexing`."""
    indices = [
        Index(name, var)
        for name, var in zip(inputs[n_skip:], node.inputs[n_skip:], strict=True)
    ]
    entries = indices_from_subtensor(indices, getattr(node.op, "idx_list", None))
    return tuple(as_entry(builder, unwrap_graph_index(entry)) for entry in entries)


def as_entry(builder, entry):
    if entry is None:
        return None
    if isinstance(entry, slice):
        parts = (entry.start, entry.stop, entry.step)
        return slice(*(None if p is None else p.scalar(builder) for p in parts))
    return entry.entry(builder)


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
    if entry.var.owner is None:
        raise NotImplementedError(
            f"the slice {entry.var} is an input of the function: mode ONNX takes "
            "arrays; pass the slice's bounds as scalars and index with them"
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


def data_value(builder, node, inputs, position=0) -> Value:
    return builder.value(inputs[position], node.inputs[position].type.dtype)


@onnx_funcify.register(Subtensor)
def onnx_funcify_Subtensor(op, node, builder, inputs, **kwargs):
    x = data_value(builder, node, inputs)
    static_shape = node.inputs[0].type.shape
    entries = index_entries(builder, node, inputs, 1)
    dims = [length(x, axis, dim) for axis, dim in enumerate(static_shape)]
    result = sliced(
        x,
        {
            axis: slice_bounds(entry, dims[axis])
            for axis, entry in enumerate(entries)
            if isinstance(entry, slice) and not is_full_slice(entry)
        },
    )
    for axis in reversed(range(len(entries))):
        if not isinstance(entries[axis], slice):
            index = checked_index(
                x, entries[axis], dims[axis], axis, fails_out_of_bounds=True
            )
            result = result.take(index, axis=axis)
    return [result.name]


@onnx_funcify.register(AdvancedSubtensor1)
def onnx_funcify_AdvancedSubtensor1(op, node, builder, inputs, **kwargs):
    x = data_value(builder, node, inputs)
    [index] = index_entries(builder, node, inputs, 1)
    dim = length(x, 0, node.inputs[0].type.shape[0])
    return [
        x.take(checked_index(x, index, dim, 0, fails_out_of_bounds=True), axis=0).name
    ]


@onnx_funcify.register(AdvancedSubtensor)
def onnx_funcify_AdvancedSubtensor(op, node, builder, inputs, **kwargs):
    x = data_value(builder, node, inputs)
    entries = index_entries(builder, node, inputs, 1)
    axis = partial_axis(entries)
    if axis is not None and isinstance(entries[axis], ArrayIndex):
        # One index array after full slices (x[:, idx]): a Gather along its axis
        dim = length(x, axis, node.inputs[0].type.shape[axis])
        index = checked_index(x, entries[axis], dim, axis, fails_out_of_bounds=True)
        return [x.take(index, axis=axis).name]
    positions = flat_positions(x, node.inputs[0].type.shape, entries)
    return [x.reshape(x.indices([-1])).take(positions.value, axis=0).name]


def partial_axis(entries):
    """The axis of the only entry of ``entries`` that is not a full slice
    (``x[:, :, i]``: 2), or None; trailing entries may be left out."""
    partial = [
        axis
        for axis, entry in enumerate(entries)
        if not (isinstance(entry, slice) and is_full_slice(entry))
    ]
    return partial[0] if len(partial) == 1 else None


def distinct_positions(builder, node, x: Value, inputs):
    """Where an update writes, if it writes each position of one axis once
    (or adds at repeated positions, as ``np.add.at`` does): the axis, the
    positions along it, how many they are (None if unknown) and whether the
    index is a scalar (the region lacks the axis), or None.

    That is a single scalar, slice or vector index after full slices (a set
    or increment of ``x[i]``, ``x[:, a:b:c]``, ``x[:, :, i]``), or an
    increment through a vector index (``AdvancedIncSubtensor1``,
    ``AdvancedIncSubtensor`` of ``x[:, idx]``) that accumulates at repeated
    positions, as ``ScatterElements`` does.
    """
    op = node.op
    advanced = isinstance(op, AdvancedIncSubtensor1 | AdvancedIncSubtensor)
    accumulates = not op.set_instead_of_inc and not getattr(
        op, "ignore_duplicates", False
    )
    if not isinstance(op, IncSubtensor) and not (advanced and accumulates):
        return None
    entries = index_entries(builder, node, inputs, 2)
    axis = partial_axis(entries)
    if axis is None:
        return None
    entry = entries[axis]
    dim = length(x, axis, node.inputs[0].type.shape[axis])
    if isinstance(entry, slice):
        positions = sliced(positions_along(x, dim), {0: slice_bounds(entry, dim)})
        return axis, positions, static_slice_length(entry, dim), False
    if not isinstance(entry, ArrayIndex) or entry.ndim > 1:
        return None
    positions = checked_index(x, entry, dim, axis, fails_out_of_bounds=True)
    if entry.ndim:
        return axis, positions, vector_index_length(node, axis), False
    if isinstance(positions, int):
        return axis, x.indices([positions]), 1, True
    return axis, positions.reshape(x.indices([1])), 1, True


def vector_index_length(node, axis):
    """The static length of the vector index of an update along ``axis``: of
    the index itself (``AdvancedIncSubtensor1``), or of the value written
    along that axis if it does not broadcast there; else None."""
    x, y, *indices = node.inputs
    if isinstance(node.op, AdvancedIncSubtensor1):
        return indices[0].type.shape[0]
    if y.type.ndim != x.type.ndim or y.type.shape[axis] == 1:
        return None
    return y.type.shape[axis]


@onnx_funcify.register(IncSubtensor)
@onnx_funcify.register(AdvancedIncSubtensor)
@onnx_funcify.register(AdvancedIncSubtensor1)
def onnx_funcify_IncSubtensor(op, node, builder, inputs, **kwargs):
    x, y = data_value(builder, node, inputs), data_value(builder, node, inputs, 1)
    static_shape, y_shape = (var.type.shape for var in node.inputs[:2])
    if isinstance(op, AdvancedIncSubtensor1):
        require_no_runtime_broadcast(builder, op, node, inputs)
    increment = not op.set_instead_of_inc
    target = distinct_positions(builder, node, x, inputs)
    if target is not None:
        axis, positions, count, scalar_index = target
        if scalar_index:
            y, y_shape = with_axis_of_scalar_index(y, y_shape, len(static_shape), axis)
        return [
            scatter_along(
                x, y, positions, count, static_shape, y_shape, axis,
                increment=increment,
            ).name
        ]  # fmt: skip
    entries = index_entries(builder, node, inputs, 2)
    keep_last = op.set_instead_of_inc or getattr(op, "ignore_duplicates", False)
    positions = flat_positions(x, static_shape, entries)
    return [
        scatter_at(
            x, y, positions, y_shape, increment=increment, keep_last=keep_last
        ).name
    ]


def with_axis_of_scalar_index(y: Value, y_shape, ndim, axis):
    """``y``, written at a scalar index of ``axis`` (which its region lacks),
    given a length-1 ``axis`` so that it broadcasts to the region that has
    it; and its static shape. A ``y`` that already broadcasts there (it has
    every axis, or none after ``axis``) is returned as it is."""
    if len(y_shape) == ndim or axis <= ndim - 1 - len(y_shape):
        return y, y_shape
    leading = ndim - 1 - len(y_shape)
    y_shape = (1,) * leading + tuple(y_shape)
    y_shape = (*y_shape[:axis], 1, *y_shape[axis:])
    return y.unsqueeze([*range(leading), axis]), y_shape


def require_no_runtime_broadcast(builder, op, node, inputs):
    """Raise, as ``AdvancedIncSubtensor1`` does, when ``y`` would be broadcast
    along a dimension its type does not declare broadcastable."""
    x, y, indices = (data_value(builder, node, inputs, i) for i in range(3))
    x_var, y_var, indices_var = node.inputs
    broadcasts = False
    for y_axis in range(y_var.type.ndim):
        if y_var.type.broadcastable[y_axis]:
            continue
        region_axis = x_var.type.ndim - y_var.type.ndim + y_axis
        target = (
            length(indices, 0, indices_var.type.shape[0])
            if region_axis == 0
            else length(x, region_axis, x_var.type.shape[region_axis])
        )
        y_dim = length(y, y_axis, y_var.type.shape[y_axis])
        stretched = logical_and(equal(y_dim, 1), logical_not(equal(target, 1)))
        broadcasts = logical_or(broadcasts, stretched)
    if isinstance(broadcasts, Value):
        builder.require(
            ~broadcasts, ValueError, op._runtime_broadcast_error_msg, is_scalar=True
        )
