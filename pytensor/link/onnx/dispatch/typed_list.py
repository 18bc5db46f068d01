"""Typed lists (`pytensor.typed_list`) as ONNX sequences of tensors.

Ops that visit several elements (slices, ``Reverse``, ``Extend``, ``Index``,
``Count``, ``Remove``) run a ``Loop`` over positions of the sequence. Every
converter returns a new sequence, as the Ops that are not in place do.
"""

import numpy as np
from pytensor.graph.basic import Variable
from pytensor.tensor.type_other import SliceType
from pytensor.typed_list.basic import (
    Append,
    Count,
    Extend,
    GetItem,
    Index,
    Insert,
    Length,
    MakeList,
    Remove,
    Reverse,
)

from pytensor.link.onnx.builder import onnx_dtype
from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.value import Value, concat, maximum, minimum, where


def element_type(var):
    """The tensor type of the elements of the typed list ``var``."""
    return var.type.ttype


def length(builder, sequence: str) -> Value:
    return builder.value(builder.add("SequenceLength", [sequence]), "int64")


def empty_sequence(builder, ttype) -> str:
    return builder.add("SequenceEmpty", [], dtype=onnx_dtype(ttype.dtype), hint="empty")


def branch(builder, hint: str, make_value, dtype, shape=(), sequence=False):
    """An ``If`` branch graph whose one output is ``make_value(branch_builder)``."""
    sub = builder.subgraph(hint)
    sub.add_output(make_value(sub), hint, dtype, shape, sequence=sequence)
    return sub.make_graph()


def if_else(builder, condition: str, then_branch, else_branch, hint: str) -> str:
    return builder.add(
        "If", [condition], then_branch=then_branch, else_branch=else_branch, hint=hint
    )


def collect(builder, source: str, positions: Value, into: str, ttype) -> str:
    """The sequence ``into`` followed by the elements of ``source`` at ``positions``."""
    body = builder.loop_body("collect_body")
    iteration, condition = (info.name for info in body.inputs)
    collected = body.add_input(
        "collected", ttype.dtype, ttype.shape, "collected", sequence=True
    )
    position = body.add("Gather", [positions.name, iteration], axis=0)
    element = body.add("SequenceAt", [source, position], hint="element")
    body.add_output(condition, "condition", "bool", ())
    body.add_output(
        body.add("SequenceInsert", [collected, element]),
        "collected",
        ttype.dtype,
        ttype.shape,
        sequence=True,
    )
    count = positions.apply("Size", positions)
    return builder.add("Loop", [count.name, "", into], body=body.make_graph())


@onnx_funcify.register(MakeList)
def onnx_funcify_MakeList(op, node, builder, inputs, **kwargs):
    return [builder.add("SequenceConstruct", list(inputs), hint="list")]


@onnx_funcify.register(Length)
def onnx_funcify_Length(op, node, builder, inputs, **kwargs):
    [sequence] = inputs
    return [length(builder, sequence).name]


@onnx_funcify.register(Append)
def onnx_funcify_Append(op, node, builder, inputs, **kwargs):
    return [builder.add("SequenceInsert", list(inputs), hint="list")]


@onnx_funcify.register(Insert)
def onnx_funcify_Insert(op, node, builder, inputs, **kwargs):
    sequence, index, element = inputs
    # list.insert clamps the position into [0, len]; SequenceInsert rejects it
    n = length(builder, sequence)
    index = builder.value(index, node.inputs[1].type.dtype).cast("int64")
    position = where(index < 0, maximum(index + n, 0), minimum(index, n))
    return [builder.add("SequenceInsert", [sequence, element, position.name])]


@onnx_funcify.register(Extend)
def onnx_funcify_Extend(op, node, builder, inputs, **kwargs):
    sequence, other = inputs
    n = length(builder, other)
    positions = n.apply("Range", 0, n, 1)
    return [collect(builder, other, positions, sequence, element_type(node.inputs[0]))]


@onnx_funcify.register(Reverse)
def onnx_funcify_Reverse(op, node, builder, inputs, **kwargs):
    [sequence] = inputs
    ttype = element_type(node.inputs[0])
    last = length(builder, sequence) - 1
    positions = last.apply("Range", last, -1, -1)
    return [
        collect(builder, sequence, positions, empty_sequence(builder, ttype), ttype)
    ]


@onnx_funcify.register(GetItem)
def onnx_funcify_GetItem(op, node, builder, inputs, **kwargs):
    sequence, index = inputs
    ttype = element_type(node.inputs[0])
    if isinstance(node.inputs[1].type, SliceType):
        positions = slice_positions(builder, node, index, length(builder, sequence))
        return [
            collect(builder, sequence, positions, empty_sequence(builder, ttype), ttype)
        ]
    if not builder.keep_checks:
        return [builder.add("SequenceAt", [sequence, index], hint="element")]
    n = length(builder, sequence)
    position = builder.value(index, node.inputs[1].type.dtype).cast("int64")
    in_range = (position >= -n) & (position < n)
    builder.require(in_range, IndexError, "list index out of range")
    # The check raises after the model ran: an invalid index must not fail before
    placeholder = builder.constant(
        np.zeros((0,) * ttype.ndim, dtype=ttype.dtype), ttype.dtype, hint="placeholder"
    )
    return [
        if_else(
            builder,
            in_range.name,
            branch(
                builder,
                "element",
                lambda sub: sub.add("SequenceAt", [sequence, position.name]),
                ttype.dtype,
                ttype.shape,
            ),
            branch(
                builder,
                "out_of_range",
                lambda sub: placeholder,
                ttype.dtype,
                (None,) * ttype.ndim,
            ),
            hint="element",
        )
    ]


def slice_positions(builder, node, bounds: slice, n: str) -> str:
    """The positions ``range(*bounds.indices(n))`` a list slice selects, as int64."""
    slice_var = node.inputs[1]
    bound_vars = slice_var.owner.inputs if slice_var.owner else (None,) * 3
    start, stop, step = (
        as_int64(builder, value, var)
        for value, var in zip(
            (bounds.start, bounds.stop, bounds.step), bound_vars, strict=True
        )
    )
    if step is None:
        step = n.constant(1)
    elif not isinstance(bounds.step, int | np.integer) or bounds.step == 0:
        is_zero = step.eq(0)
        builder.require(~is_zero, ValueError, "slice step cannot be zero")
        step = where(is_zero, 1, step)
    # Python clamps bounds into [lower, upper]: [0, n] going up, [-1, n - 1] down
    descending = step < 0
    lower = where(descending, -1, 0)
    upper = where(descending, n - 1, n)
    start = (
        where(descending, upper, lower)
        if start is None
        else clamped_bound(start, n, lower, upper)
    )
    stop = (
        where(descending, lower, upper)
        if stop is None
        else clamped_bound(stop, n, lower, upper)
    )
    return start.apply("Range", start, stop, step)


def as_int64(builder, value, var) -> Value | None:
    """An int64 scalar for a slice bound: ``None``, an int or a graph value."""
    if value is None:
        return None
    if isinstance(value, Variable):
        raise NotImplementedError(
            "a list slice holding symbolic bounds in a constant cannot be "
            "evaluated; build it with pytensor.tensor.type_other.make_slice"
        )
    if isinstance(value, str):
        return builder.value(value, var.type.dtype).cast("int64")
    return builder.value(builder.constant(int(value), "int64"), "int64")


def clamped_bound(bound: Value, n: Value, lower: Value, upper: Value) -> Value:
    from_end = maximum(bound + n, lower)
    return where(bound < 0, from_end, minimum(bound, upper))


def values_equal(builder, a: Value, b: Value, ttype) -> Value:
    """Whether the tensors ``a`` and ``b`` are equal, as ``TensorType.values_eq`` says."""
    if ttype.ndim == 0:
        return same_shape_values_equal(a, b)
    equal = if_else(
        builder,
        a.shape().eq(b.shape()).all().name,
        branch(
            builder,
            "same_shape",
            lambda sub: same_shape_values_equal(a.into(sub), b.into(sub)).name,
            "bool",
        ),
        branch(builder, "other_shape", lambda sub: sub.constant(False, "bool"), "bool"),
        hint="equal",
    )
    return builder.value(equal, "bool")


def same_shape_values_equal(a: Value, b: Value) -> Value:
    equal = a.eq(b)
    if np.dtype(a.dtype).kind != "f":
        return equal.all()
    # values_eq, once `a` has a NaN, only asks each position to be equal or
    # to be NaN in both or neither of `a` and `b`
    a_nan = a.isnan()
    nan_lenient = (equal | a_nan.eq(b.isnan())).all()
    return equal.all() | (a_nan.any() & nan_lenient)


def matches(builder, sequence: str, element: str, ttype) -> Value:
    """A boolean vector: whether each element of ``sequence`` equals ``element``."""
    body = builder.loop_body("match_body")
    iteration, condition = (info.name for info in body.inputs)
    item = body.value(body.add("SequenceAt", [sequence, iteration]), ttype.dtype)
    body.add_output(condition, "condition", "bool", ())
    match = values_equal(body, item, body.value(element, ttype.dtype), ttype)
    body.add_output(match.name, "match", "bool", ())
    n = length(builder, sequence)
    return n.apply("Loop", n, None, dtype="bool", body=body.make_graph())


def first_match(builder, node, inputs) -> tuple[Value, Value]:
    """The position of the first element equal to the searched one, and the length.

    The position is the length when no element is equal.
    """
    sequence, element = inputs
    found = matches(builder, sequence, element, element_type(node.inputs[0]))
    with_sentinel = concat([found.cast("int32"), found.constant([1], "int32")], axis=0)
    position = with_sentinel.apply("ArgMax", with_sentinel, axis=0, keepdims=0)
    return position, length(builder, sequence)


@onnx_funcify.register(Index)
def onnx_funcify_Index(op, node, builder, inputs, **kwargs):
    position, n = first_match(builder, node, inputs)
    builder.require(position < n, ValueError, "x not in list")
    return [position.name]


@onnx_funcify.register(Count)
def onnx_funcify_Count(op, node, builder, inputs, **kwargs):
    sequence, element = inputs
    found = matches(builder, sequence, element, element_type(node.inputs[0]))
    as_int = found.cast("int64")
    return [as_int.apply("ReduceSum", as_int, keepdims=0).name]


@onnx_funcify.register(Remove)
def onnx_funcify_Remove(op, node, builder, inputs, **kwargs):
    sequence = inputs[0]
    ttype = element_type(node.inputs[0])
    position, n = first_match(builder, node, inputs)
    return [
        if_else(
            builder,
            (position < n).name,
            branch(
                builder,
                "erased",
                lambda sub: sub.add("SequenceErase", [sequence, position.name]),
                ttype.dtype,
                ttype.shape,
                sequence=True,
            ),
            branch(
                builder,
                "unchanged",
                lambda sub: sequence,
                ttype.dtype,
                ttype.shape,
                sequence=True,
            ),
            hint="list",
        )
    ]
