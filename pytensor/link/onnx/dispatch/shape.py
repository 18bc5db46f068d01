import numpy as np
from pytensor.graph.basic import Constant
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.type_other import NoneTypeT

from pytensor.link.onnx.dispatch.basic import onnx_funcify


def int64_constant(builder, values, hint="axes"):
    """Return an ONNX int64 constant holding ``values`` (axes, shapes, indices)."""
    return builder.constant(np.asarray(values, dtype="int64"), "int64", hint=hint)


def int64_max(builder, a: str, b: str) -> str:
    """``max(a, b)`` of int64 values.

    Not ``Max``: onnxruntime 1.31's int64 ``Max`` and ``Min`` compare the low
    32 bits as signed when the high halves are equal (wrong from 2**31 on).
    """
    return builder.add("Where", [builder.add("Less", [a, b]), b, a], hint="max")


def int64_min(builder, a: str, b: str) -> str:
    """``min(a, b)`` of int64 values (see `int64_max`)."""
    return builder.add("Where", [builder.add("Less", [b, a]), b, a], hint="min")


def dim_size(builder, x, axis):
    """Return the length of ``x`` along ``axis`` as an int64 vector of one element."""
    return builder.add("Shape", [x], start=axis, end=axis + 1, hint="dim")


@onnx_funcify.register(Shape)
def onnx_funcify_Shape(op, node, builder, inputs, **kwargs):
    return [builder.add("Shape", inputs, hint="shape")]


@onnx_funcify.register(Shape_i)
def onnx_funcify_Shape_i(op, node, builder, inputs, **kwargs):
    [x] = inputs
    shape = builder.add("Shape", [x], hint="shape")
    return [builder.add("Gather", [shape, int64_constant(builder, op.i, "index")])]


@onnx_funcify.register(Reshape)
def onnx_funcify_Reshape(op, node, builder, inputs, **kwargs):
    x, shape = inputs
    shape = builder.cast(shape, node.inputs[1].type.dtype, "int64")
    # allowzero=1: a 0 in the shape is a length, as in NumPy, not "copy this dim"
    return [builder.add("Reshape", [x, shape], allowzero=1, hint="reshaped")]


def all_true(builder, conditions):
    """Reduce a boolean tensor to one boolean scalar: are all its elements true?"""
    as_uint8 = builder.cast(conditions, "bool", "uint8")
    return builder.cast(
        builder.add("ReduceMin", [as_uint8], keepdims=0, hint="all_true"),
        "uint8",
        "bool",
    )


def any_true(builder, condition, axis=None):
    """Whether any element is true along ``axis`` (all axes if None); false if empty."""
    axes = [] if axis is None else [int64_constant(builder, [axis])]
    as_uint8 = builder.cast(condition, "bool", "uint8")
    found = builder.add("ReduceMax", [as_uint8, *axes], keepdims=0)
    return builder.cast(found, "uint8", "bool")


def add_runtime_check(builder, condition, exc_type, msg):
    """Make the compiled function raise ``exc_type(msg)`` unless ``condition`` holds.

    ``condition`` is a boolean tensor whose elements must all be true. Callers
    build it only when ``builder.keep_checks`` (it is false for export).
    """
    builder.require(condition, exc_type, msg)


def known_statically(x_dim, expected) -> bool:
    return isinstance(expected.type, NoneTypeT) or (
        isinstance(expected, Constant) and x_dim == int(expected.data)
    )


def describe_dim(expected):
    if isinstance(expected.type, NoneTypeT):
        return None
    if isinstance(expected, Constant):
        return int(expected.data)
    return str(expected)


@onnx_funcify.register(SpecifyShape)
def onnx_funcify_SpecifyShape(op, node, builder, inputs, **kwargs):
    x, *expected_dims = inputs
    if not builder.keep_checks:
        return [x]
    x_var, *expected_vars = node.inputs
    matches = [
        builder.add(
            "Equal",
            [
                dim_size(builder, x, axis),
                builder.cast(
                    builder.add("Unsqueeze", [dim, int64_constant(builder, [0])]),
                    var.type.dtype,
                    "int64",
                ),
            ],
            hint="dim_matches",
        )
        for axis, (dim, var, x_dim) in enumerate(
            zip(expected_dims, expected_vars, x_var.type.shape, strict=True)
        )
        if not known_statically(x_dim, var)
    ]
    if matches:
        expected = tuple(describe_dim(var) for var in expected_vars)
        add_runtime_check(
            builder,
            builder.add("Concat", matches, axis=0) if len(matches) > 1 else matches[0],
            AssertionError,
            f"SpecifyShape: the input's shape does not match {expected}",
        )
    return [x]
