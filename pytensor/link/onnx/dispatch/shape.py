from pytensor.graph.basic import Constant
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.type_other import NoneTypeT

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.lengths import require_reshapable
from pytensor.link.onnx.value import concat


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
    if builder.keep_checks:
        x_value = builder.value(x, node.inputs[0].type.dtype)
        require_reshapable(builder, x_value, builder.value(shape, "int64"))
    # allowzero=1: a 0 in the shape is a length, as in NumPy, not "copy this dim"
    return [builder.add("Reshape", [x, shape], allowzero=1, hint="reshaped")]


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
