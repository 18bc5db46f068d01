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
from pytensor.link.onnx.dispatch.shape import (
    all_true,
    any_true,
    int64_max,
    int64_min,
)


def element_type(var):
    """The tensor type of the elements of the typed list ``var``."""
    return var.type.ttype


def int64(builder, value: int) -> str:
    return builder.constant(value, "int64", hint="position")


def length(builder, sequence: str) -> str:
    return builder.add("SequenceLength", [sequence], hint="length")


def empty_sequence(builder, ttype) -> str:
    return builder.add("SequenceEmpty", [], dtype=onnx_dtype(ttype.dtype), hint="empty")


def where(builder, condition: str, if_true: str, if_false: str) -> str:
    return builder.add("Where", [condition, if_true, if_false])


def branch(builder, hint: str, make_value, dtype, shape=(), sequence=False):
    """An ``If`` branch graph whose one output is ``make_value(branch_builder)``."""
    sub = builder.subgraph(hint)
    sub.add_output(make_value(sub), hint, dtype, shape, sequence=sequence)
    return sub.make_graph()


def if_else(builder, condition: str, then_branch, else_branch, hint: str) -> str:
    return builder.add(
        "If", [condition], then_branch=then_branch, else_branch=else_branch, hint=hint
    )


def collect(builder, source: str, positions: str, into: str, ttype) -> str:
    """The sequence ``into`` followed by the elements of ``source`` at ``positions``."""
    body = builder.loop_body("collect_body")
    iteration, condition = (info.name for info in body.inputs)
    collected = body.add_input(
        "collected", ttype.dtype, ttype.shape, "collected", sequence=True
    )
    position = body.add("Gather", [positions, iteration], axis=0, hint="position")
    element = body.add("SequenceAt", [source, position], hint="element")
    body.add_output(condition, "condition", "bool", ())
    body.add_output(
        body.add("SequenceInsert", [collected, element]),
        "collected",
        ttype.dtype,
        ttype.shape,
        sequence=True,
    )
    count = builder.add("Size", [positions], hint="count")
    return builder.add("Loop", [count, "", into], body=body.make_graph(), hint="list")


def positions_between(builder, start: str, stop: str, step: str) -> str:
    return builder.add("Range", [start, stop, step], hint="positions")


@onnx_funcify.register(MakeList)
def onnx_funcify_MakeList(op, node, builder, inputs, **kwargs):
    return [builder.add("SequenceConstruct", list(inputs), hint="list")]


@onnx_funcify.register(Length)
def onnx_funcify_Length(op, node, builder, inputs, **kwargs):
    [sequence] = inputs
    return [length(builder, sequence)]


@onnx_funcify.register(Append)
def onnx_funcify_Append(op, node, builder, inputs, **kwargs):
    return [builder.add("SequenceInsert", list(inputs), hint="list")]


@onnx_funcify.register(Insert)
def onnx_funcify_Insert(op, node, builder, inputs, **kwargs):
    sequence, index, element = inputs
    # list.insert clamps the position into [0, len]; SequenceInsert rejects it
    n = length(builder, sequence)
    from_end = int64_max(builder, builder.add("Add", [index, n]), int64(builder, 0))
    position = where(
        builder,
        builder.add("Less", [index, int64(builder, 0)]),
        from_end,
        int64_min(builder, index, n),
    )
    return [builder.add("SequenceInsert", [sequence, element, position], hint="list")]


@onnx_funcify.register(Extend)
def onnx_funcify_Extend(op, node, builder, inputs, **kwargs):
    sequence, other = inputs
    positions = positions_between(
        builder, int64(builder, 0), length(builder, other), int64(builder, 1)
    )
    return [collect(builder, other, positions, sequence, element_type(node.inputs[0]))]


@onnx_funcify.register(Reverse)
def onnx_funcify_Reverse(op, node, builder, inputs, **kwargs):
    [sequence] = inputs
    ttype = element_type(node.inputs[0])
    last = builder.add("Sub", [length(builder, sequence), int64(builder, 1)])
    positions = positions_between(builder, last, int64(builder, -1), int64(builder, -1))
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
    in_range = builder.add(
        "And",
        [
            builder.add("GreaterOrEqual", [index, builder.add("Neg", [n])]),
            builder.add("Less", [index, n]),
        ],
    )
    builder.require(in_range, IndexError, "list index out of range")
    # The check raises after the model ran: an invalid index must not fail before
    placeholder = builder.constant(
        np.zeros((0,) * ttype.ndim, dtype=ttype.dtype), ttype.dtype, hint="placeholder"
    )
    return [
        if_else(
            builder,
            in_range,
            branch(
                builder,
                "element",
                lambda sub: sub.add("SequenceAt", [sequence, index]),
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
        step = int64(builder, 1)
    elif not isinstance(bounds.step, int | np.integer) or bounds.step == 0:
        is_zero = builder.add("Equal", [step, int64(builder, 0)])
        if builder.keep_checks:
            builder.require(
                builder.add("Not", [is_zero]),
                ValueError,
                "slice step cannot be zero",
            )
        step = where(builder, is_zero, int64(builder, 1), step)
    # Python clamps bounds into [lower, upper]: [0, n] going up, [-1, n - 1] down
    descending = builder.add("Less", [step, int64(builder, 0)], hint="descending")
    lower = where(builder, descending, int64(builder, -1), int64(builder, 0))
    upper = where(builder, descending, builder.add("Sub", [n, int64(builder, 1)]), n)
    start = (
        where(builder, descending, upper, lower)
        if start is None
        else clamped_bound(builder, start, n, lower, upper)
    )
    stop = (
        where(builder, descending, lower, upper)
        if stop is None
        else clamped_bound(builder, stop, n, lower, upper)
    )
    return positions_between(builder, start, stop, step)


def as_int64(builder, value, var) -> str | None:
    """An int64 ONNX scalar for a slice bound: ``None``, an int or a graph value."""
    if value is None:
        return None
    if isinstance(value, Variable):
        raise NotImplementedError(
            "a list slice holding symbolic bounds in a constant cannot be "
            "evaluated; build it with pytensor.tensor.type_other.make_slice"
        )
    if isinstance(value, str):
        return builder.cast(value, var.type.dtype, "int64")
    return int64(builder, int(value))


def clamped_bound(builder, bound: str, n: str, lower: str, upper: str) -> str:
    from_end = int64_max(builder, builder.add("Add", [bound, n]), lower)
    return where(
        builder,
        builder.add("Less", [bound, int64(builder, 0)]),
        from_end,
        int64_min(builder, bound, upper),
    )


def values_equal(builder, a: str, b: str, ttype) -> str:
    """Whether the tensors ``a`` and ``b`` are equal, as ``TensorType.values_eq`` says."""
    if ttype.ndim == 0:
        return same_shape_values_equal(builder, a, b, ttype.dtype)
    shapes_equal = builder.add(
        "Equal", [builder.add("Shape", [a]), builder.add("Shape", [b])]
    )
    return if_else(
        builder,
        all_true(builder, shapes_equal),
        branch(
            builder,
            "same_shape",
            lambda sub: same_shape_values_equal(sub, a, b, ttype.dtype),
            "bool",
        ),
        branch(builder, "other_shape", lambda sub: sub.constant(False, "bool"), "bool"),
        hint="equal",
    )


def same_shape_values_equal(builder, a: str, b: str, dtype) -> str:
    equal = builder.add("Equal", [a, b])
    all_equal = all_true(builder, equal)
    if np.dtype(dtype).kind != "f":
        return all_equal
    # values_eq, once `a` has a NaN, only asks each position to be equal or
    # to be NaN in both or neither of `a` and `b`
    a_nan = builder.add("IsNaN", [a])
    nan_lenient = all_true(
        builder,
        builder.add(
            "Or", [equal, builder.add("Equal", [a_nan, builder.add("IsNaN", [b])])]
        ),
    )
    return builder.add(
        "Or",
        [all_equal, builder.add("And", [any_true(builder, a_nan), nan_lenient])],
        hint="equal",
    )


def matches(builder, sequence: str, element: str, ttype) -> str:
    """A boolean vector: whether each element of ``sequence`` equals ``element``."""
    body = builder.loop_body("match_body")
    iteration, condition = (info.name for info in body.inputs)
    item = body.add("SequenceAt", [sequence, iteration], hint="item")
    body.add_output(condition, "condition", "bool", ())
    body.add_output(values_equal(body, item, element, ttype), "match", "bool", ())
    return builder.add(
        "Loop",
        [length(builder, sequence), ""],
        body=body.make_graph(),
        hint="matches",
    )


def first_match(builder, node, inputs) -> tuple[str, str]:
    """The position of the first element equal to the searched one, and the length.

    The position is the length when no element is equal.
    """
    sequence, element = inputs
    found = builder.cast(
        matches(builder, sequence, element, element_type(node.inputs[0])),
        "bool",
        "int32",
    )
    with_sentinel = builder.add(
        "Concat", [found, builder.constant([1], "int32")], axis=0
    )
    position = builder.add("ArgMax", [with_sentinel], axis=0, keepdims=0)
    return position, length(builder, sequence)


@onnx_funcify.register(Index)
def onnx_funcify_Index(op, node, builder, inputs, **kwargs):
    position, n = first_match(builder, node, inputs)
    if builder.keep_checks:
        builder.require(builder.add("Less", [position, n]), ValueError, "x not in list")
    return [position]


@onnx_funcify.register(Count)
def onnx_funcify_Count(op, node, builder, inputs, **kwargs):
    sequence, element = inputs
    found = matches(builder, sequence, element, element_type(node.inputs[0]))
    as_int = builder.cast(found, "bool", "int64")
    return [builder.add("ReduceSum", [as_int], keepdims=0, hint="count")]


@onnx_funcify.register(Remove)
def onnx_funcify_Remove(op, node, builder, inputs, **kwargs):
    sequence = inputs[0]
    ttype = element_type(node.inputs[0])
    position, n = first_match(builder, node, inputs)
    return [
        if_else(
            builder,
            builder.add("Less", [position, n]),
            branch(
                builder,
                "erased",
                lambda sub: sub.add("SequenceErase", [sequence, position]),
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
