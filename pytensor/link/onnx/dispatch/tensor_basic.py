import numpy as np
import pytensor.tensor.basic as ptb
from pytensor.graph.basic import Constant
from pytensor.tensor.basic import (
    Alloc,
    AllocEmpty,
    ARange,
    Choose,
    ExtractDiag,
    Eye,
    Join,
    MakeVector,
    Nonzero,
    PermuteRowElements,
    ScalarFromTensor,
    Split,
    TensorFromScalar,
)
from pytensor.tensor.shape import Shape_i
from pytensor.tensor.type import TensorType
from pytensor.typed_list.basic import MakeList

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.lengths import (
    length_source,
    lengths,
    require_all,
    require_same_lengths,
)
from pytensor.link.onnx.numerics.indexing import bounded_index
from pytensor.link.onnx.value import (
    Value,
    along_runtime_axis,
    arange,
    concat,
    maximum,
    minimum,
    where,
)


def stack_scalars(builder, names, variables, dtype, hint):
    """Return a vector of ``dtype`` holding the 0-d values ``names``, in order."""
    if all(isinstance(var, Constant) for var in variables):
        values = [var.data for var in variables]
        return builder.constant(np.array(values, dtype=dtype), dtype, hint=hint)
    axis = builder.constant([0], "int64")
    elements = [
        builder.add(
            "Unsqueeze", [builder.cast(name, var.type.dtype, dtype), axis], hint=hint
        )
        for name, var in zip(names, variables, strict=True)
    ]
    if len(elements) == 1:
        return elements[0]
    return builder.add("Concat", elements, axis=0, hint=hint)


ALLOC_RUNTIME_BROADCASTING = (
    "Runtime broadcasting not allowed. The output of Alloc requires broadcasting a "
    "dimension of the input value, which was not marked as broadcastable. If "
    "broadcasting was intended, use `specify_broadcastable` on the relevant input."
)


def equal_by_construction(value_var, axis, dim_var) -> bool:
    """Whether ``axis`` of ``value_var`` has the length ``dim_var`` statically
    or by construction (``dim_var`` read from the shape of a variable)."""
    if isinstance(dim_var, Constant):
        return value_var.type.shape[axis] == int(dim_var.data)
    owner = dim_var.owner
    return (
        owner is not None
        and isinstance(owner.op, Shape_i)
        and length_source(value_var, axis) == length_source(owner.inputs[0], owner.op.i)
    )


@onnx_funcify.register(Alloc)
def onnx_funcify_Alloc(op, node, builder, inputs, **kwargs):
    value, *dims = inputs
    shape = stack_scalars(builder, dims, node.inputs[1:], "int64", "shape")
    value_var, *dim_vars = node.inputs
    offset = len(dim_vars) - value_var.type.ndim
    # The value's lengths that are not typed broadcastable must be the output's
    axes = [
        axis
        for axis, broadcastable in enumerate(value_var.type.broadcastable)
        if not broadcastable
        and not equal_by_construction(value_var, axis, dim_vars[axis + offset])
    ]
    if axes and builder.keep_checks:
        value_lengths = lengths(builder.value(value, value_var.type.dtype), axes)
        output_lengths = builder.value(shape, "int64").take(
            [a + offset for a in axes], 0
        )
        require_all(
            builder,
            [value_lengths.eq(output_lengths)],
            len(axes),
            ALLOC_RUNTIME_BROADCASTING,
        )
    return [builder.add("Expand", [value, shape], hint="alloc")]


@onnx_funcify.register(AllocEmpty)
def onnx_funcify_AllocEmpty(op, node, builder, inputs, **kwargs):
    shape = stack_scalars(builder, inputs, node.inputs, "int64", "shape")
    zero = builder.constant(0, op.dtype, hint="zero")
    return [builder.add("Expand", [zero, shape], hint="empty")]


@onnx_funcify.register(MakeVector)
def onnx_funcify_MakeVector(op, node, builder, inputs, **kwargs):
    dtype = node.outputs[0].type.dtype
    return [stack_scalars(builder, inputs, node.inputs, dtype, "vector")]


# PyTensor < 3: x, or the default where x is None, which a tensor never is
if (Default := getattr(ptb, "Default", None)) is not None:

    @onnx_funcify.register(Default)
    def onnx_funcify_Default(op, node, builder, inputs, **kwargs):
        x_var, _ = node.inputs
        return [builder.cast(inputs[0], x_var.type.dtype, node.outputs[0].type.dtype)]


@onnx_funcify.register(ScalarFromTensor)
@onnx_funcify.register(TensorFromScalar)
def onnx_funcify_scalar_tensor_conversion(op, node, builder, inputs, **kwargs):
    # Scalars are 0-d ONNX tensors, like 0-d PyTensor tensors
    return list(inputs)


JOIN_MISMATCH = (
    "all the input array dimensions except for the concatenation axis must "
    "match exactly"
)


@onnx_funcify.register(Join)
def onnx_funcify_Join(op, node, builder, inputs, value_names=None, **kwargs):
    axis_var, *tensor_vars = node.inputs
    dtype = node.outputs[0].type.dtype
    ndim = node.outputs[0].type.ndim
    parts = [
        builder.cast(name, var.type.dtype, dtype)
        for name, var in zip(inputs[1:], tensor_vars, strict=True)
    ]

    def join_along(axis):
        return builder.value(
            builder.add("Concat", parts, axis=axis, hint="joined"), dtype
        )

    if isinstance(axis_var, Constant):
        axis = int(axis_var.data) % ndim
        other_axes = [a for a in range(ndim) if a != axis]
        require_same_lengths(
            builder,
            tensor_vars,
            inputs[1:],
            other_axes,
            JOIN_MISMATCH,
            value_names,
            broadcasting=False,
        )
        return [join_along(axis).name]
    axis = builder.value(inputs[0], axis_var.type.dtype).cast("int64")
    [joined] = along_runtime_axis(axis, ndim, lambda k: [join_along(k)])
    require_joinable_along(
        builder, [builder.value(p, dtype) for p in parts], axis, ndim
    )
    return [joined.name]


def require_joinable_along(builder, parts: list[Value], axis: Value, ndim: int):
    """Raise NumPy's ``ValueError`` at run time unless ``parts`` have the same
    lengths along every axis but ``axis`` (given at run time, in
    ``range(-ndim, ndim)``)."""
    if len(parts) < 2 or not builder.keep_checks:
        return
    first = parts[0].shape()
    join_axis = first.indices(list(range(ndim))).eq(axis % ndim)
    matches = [part.shape().eq(first) | join_axis for part in parts[1:]]
    require_all(builder, matches, len(matches) * ndim, JOIN_MISMATCH)


def require_valid_split_sizes(builder, node, x: Value, sizes: Value, axis):
    """Raise the ``ValueError``s of ``Split.perform`` at run time unless
    ``sizes`` has one length per output, none negative, summing to the
    length of ``axis`` (an int, or a 0-d int64 value) of ``x``; what the
    types and constants settle is checked now."""
    if not builder.keep_checks:
        return
    x_var, _, sizes_var = node.inputs
    known = sizes_var.data if isinstance(sizes_var, Constant) else None
    split_length = x_var.type.shape[axis] if isinstance(axis, int) else None
    checks = (
        (
            sizes_var.type.shape[0] == node.op.len_splits or None,
            lambda: sizes.dim(0).eq(node.op.len_splits),
            "Length of splits is not equal to n_splits",
        ),
        (
            None
            if known is None or split_length is None
            else bool(known.sum() == split_length),
            lambda: sizes.sum([0], keepdims=False).eq(
                x.dim(axis) if isinstance(axis, int) else x.shape().take(axis, 0)
            ),
            "Split sizes do not sum to the length of the axis split",
        ),
        (
            None if known is None else bool((known >= 0).all()),
            lambda: (sizes >= 0).all(),
            "Split sizes cannot be negative",
        ),
    )
    for settled, holds, message in checks:
        if settled is not True:
            condition = holds() if settled is None else sizes.constant(False, "bool")
            builder.require(
                condition, ValueError, message, is_scalar=True, after_failure=True
            )


@onnx_funcify.register(Split)
def onnx_funcify_Split(op, node, builder, inputs, **kwargs):
    x, _, sizes = inputs
    x_var, axis_var, sizes_var = node.inputs
    dtype = x_var.type.dtype
    sizes = builder.cast(sizes, sizes_var.type.dtype, "int64")

    def split_along(axis):
        parts = builder.add_multi(
            "Split", [x, sizes], n_outputs=op.len_splits, axis=axis, hint="split"
        )
        return [builder.value(part, dtype) for part in parts]

    if isinstance(axis_var, Constant):
        axis = int(axis_var.data) % x_var.type.ndim
        parts = split_along(axis)
    else:
        axis = builder.value(inputs[1], axis_var.type.dtype).cast("int64")
        parts = along_runtime_axis(axis, x_var.type.ndim, split_along)
    require_valid_split_sizes(
        builder, node, builder.value(x, dtype), builder.value(sizes, "int64"), axis
    )
    return [part.name for part in parts]


@onnx_funcify.register(ARange)
def onnx_funcify_ARange(op, node, builder, inputs, **kwargs):
    is_float = np.dtype(op.dtype).kind == "f"
    if not is_float and any(var.type.dtype.startswith("float") for var in node.inputs):
        raise NotImplementedError(
            f"an arange of {op.dtype} values with float bounds or step is not "
            "supported: cast the bounds and step to integers"
        )
    compute = "float64" if is_float else "int64"
    bounds = [
        builder.cast(name, var.type.dtype, compute)
        for name, var in zip(inputs, node.inputs, strict=True)
    ]
    values = builder.add("Range", bounds, hint="arange")
    return [builder.cast(values, compute, op.dtype)]


def scalar_int64(builder, name, dtype):
    return builder.cast(name, dtype, "int64")


@onnx_funcify.register(Eye)
def onnx_funcify_Eye(op, node, builder, inputs, **kwargs):
    n, m, k = (
        scalar_int64(builder, name, var.type.dtype)
        for name, var in zip(inputs, node.inputs, strict=True)
    )
    n, m, k = (builder.value(name, "int64") for name in (n, m, k))
    on_diagonal = (arange(n) + k).unsqueeze([1]).eq(arange(m))
    return [on_diagonal.cast(op.dtype).name]


@onnx_funcify.register(ExtractDiag)
def onnx_funcify_ExtractDiag(op, node, builder, inputs, **kwargs):
    # The diagonal, moved to the last axis, is gathered from the two axes
    # flattened into one: element (i + row_start, i + column_start).
    x = builder.value(inputs[0], node.inputs[0].type.dtype)
    ndim = node.inputs[0].type.ndim
    batch_axes = [a for a in range(ndim) if a not in (op.axis1, op.axis2)]
    x = x.transpose([*batch_axes, op.axis1, op.axis2])
    n_rows, n_columns = x.shape(ndim - 2, ndim - 1), x.shape(ndim - 1, ndim)
    row_start, column_start = (0, op.offset) if op.offset >= 0 else (-op.offset, 0)
    available = minimum(n_rows - row_start, n_columns - column_start)
    steps = arange(maximum(available, available.indices([0])).squeeze([0]))
    flat_index = (steps + row_start) * n_columns + (steps + column_start)
    flat = x.reshape(concat([x.shape(0, ndim - 2), n_rows * n_columns], axis=0))
    return [flat.take(flat_index, axis=ndim - 2).name]


@onnx_funcify.register(Nonzero)
def onnx_funcify_Nonzero(op, node, builder, inputs, **kwargs):
    [x] = inputs
    is_nonzero = builder.cast(x, node.inputs[0].type.dtype, "bool")
    positions = builder.add("NonZero", [is_nonzero], hint="nonzero")
    return [
        builder.add(
            "Gather",
            [positions, builder.constant(axis, "int64")],
            axis=0,
            hint="indices",
        )
        for axis in range(node.inputs[0].type.ndim)
    ]


def stacked_choices(choices_var, name, builder, a: Value, a_ndim, ndim) -> Value:
    """The choices of a ``Choose`` as one array, the choices along axis 0,
    broadcast against each other and ``a``: an array input as it is, the
    elements of a list that ``MakeList`` builds stacked."""
    if isinstance(choices_var.type, TensorType):
        return builder.value(name, choices_var.type.dtype)
    owner = choices_var.owner
    if owner is None or not isinstance(owner.op, MakeList):
        raise NotImplementedError(
            "choose from a list whose length is only known at run time is not "
            "supported: pass the choices as a tuple, a list or one array"
        )
    dtype = choices_var.type.ttype.dtype
    if max(a_ndim, choices_var.type.ttype.ndim) != ndim:
        raise NotImplementedError(
            f"choose gives {ndim}-d values here while NumPy's result of a list of "
            f"{choices_var.type.ttype.ndim}-d choices has more dims: give the "
            "index array as many dims as the choices"
        )
    elements = [
        a.apply("SequenceAt", builder.value(name, dtype), a.indices(i), dtype=dtype)
        for i in range(len(owner.inputs))
    ]
    shape = a
    for element in elements:
        shape = shape.expand(element.shape())
    shape = shape.shape()
    return concat([element.expand(shape).unsqueeze([0]) for element in elements], 0)


@onnx_funcify.register(Choose)
def onnx_funcify_Choose(op, node, builder, inputs, **kwargs):
    a_var, choices_var = node.inputs
    a = builder.value(inputs[0], a_var.type.dtype).cast("int64")
    ndim = node.outputs[0].type.ndim
    choices = stacked_choices(choices_var, inputs[1], builder, a, a_var.type.ndim, ndim)
    n_choices = choices.shape(0, 1)
    a = bounded_index(a, n_choices, op.mode, "invalid entry in choice array")
    a = a.expand(choices.shape(1)).unsqueeze([0])
    choices_ndim = (
        choices_var.type.ndim if isinstance(choices_var.type, TensorType) else ndim + 1
    )
    extra_axes = ndim - (choices_ndim - 1)
    if extra_axes:
        choices = choices.unsqueeze(list(range(1, extra_axes + 1)))
    choices = choices.expand(concat([n_choices, a.shape(1)], axis=0))
    return [choices.take_along(a, axis=0).squeeze([0]).name]


@onnx_funcify.register(PermuteRowElements)
def onnx_funcify_PermuteRowElements(
    op, node, builder, inputs, value_names=None, **kwargs
):
    ndim = node.outputs[0].type.ndim
    require_same_lengths(
        builder,
        node.inputs,
        inputs,
        range(ndim),
        "Dimension mismatch: permute_row_elements needs equal lengths or "
        "broadcastable ones along every axis",
        value_names,
    )
    x_var, y_var = node.inputs
    x = builder.value(inputs[0], x_var.type.dtype)
    y = builder.value(inputs[1], y_var.type.dtype).cast("int64")
    length = x.shape(ndim - 1, ndim)
    if builder.keep_checks:
        builder.require(
            (y >= -length) & (y < length), IndexError, "index out of bounds"
        )
    y = where(y < 0, y + length, y)
    x_leading, y_leading = x.shape(0, ndim - 1), y.shape(0, ndim - 1)
    out_shape = where(x_leading.eq(1), y_leading, x_leading)
    y = y.expand(concat([out_shape, y.shape(ndim - 1)], axis=0))
    x = x.expand(concat([out_shape, length], axis=0))
    if op.inverse:
        return [x.apply("ScatterElements", x, y, x, axis=ndim - 1).name]
    return [x.take_along(y, axis=ndim - 1).name]
