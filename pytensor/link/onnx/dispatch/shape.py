from pytensor.graph.basic import Constant
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.type_other import NoneTypeT

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.value import concat, maximum, minimum


# Thin names over `builder.constant` and `pytensor.link.onnx.value`, kept
# only for the modules that still import them: pad.py (`int64_constant`,
# `int64_max`, `int64_min`), subtensor.py (`all_true`, `int64_min`),
# typed_list.py (`all_true`, `any_true`, `int64_max`, `int64_min`) and
# special_math.py (`any_true`). New code uses the vocabulary.


def int64_constant(builder, values, hint="axes"):
    """Return an ONNX int64 constant holding ``values`` (axes, shapes, indices)."""
    return builder.constant(values, "int64", hint=hint)


def int64_max(builder, a: str, b: str) -> str:
    """``max(a, b)`` of int64 values, without ``Max`` (see `kernels.WRONG_RESULTS`)."""
    return maximum(builder.value(a, "int64"), builder.value(b, "int64")).name


def int64_min(builder, a: str, b: str) -> str:
    """``min(a, b)`` of int64 values, without ``Min`` (see `kernels.WRONG_RESULTS`)."""
    return minimum(builder.value(a, "int64"), builder.value(b, "int64")).name


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
    return [
        builder.add("Gather", [shape, builder.constant(op.i, "int64", hint="index")])
    ]


@onnx_funcify.register(Reshape)
def onnx_funcify_Reshape(op, node, builder, inputs, **kwargs):
    x, shape = inputs
    shape = builder.cast(shape, node.inputs[1].type.dtype, "int64")
    # allowzero=1: a 0 in the shape is a length, as in NumPy, not "copy this dim"
    return [builder.add("Reshape", [x, shape], allowzero=1, hint="reshaped")]


def all_true(builder, conditions):
    """Whether every element of the bool tensor ``conditions`` is true."""
    return builder.value(conditions, "bool").all().name


def any_true(builder, condition, axis=None):
    """Whether any element is true along ``axis`` (all axes if None); false if empty."""
    condition = builder.value(condition, "bool")
    if axis is None:
        return condition.any().name
    return condition.any_along([axis], keepdims=False).name


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
    x = builder.value(x, x_var.type.dtype)
    matches = [
        x.shape(axis, axis + 1).eq(
            builder.value(dim, var.type.dtype).unsqueeze([0]).cast("int64")
        )
        for axis, (dim, var, x_dim) in enumerate(
            zip(expected_dims, expected_vars, x_var.type.shape, strict=True)
        )
        if not known_statically(x_dim, var)
    ]
    if matches:
        expected = tuple(describe_dim(var) for var in expected_vars)
        builder.require(
            concat(matches, axis=0) if len(matches) > 1 else matches[0],
            AssertionError,
            f"SpecifyShape: the input's shape does not match {expected}",
        )
    return [x.name]
