import numpy as np
import pytensor.scalar.basic as ps
from pytensor.tensor.elemwise import CAReduce
from pytensor.tensor.math import Argmax, Dot, MulWithoutZeros

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.lengths import (
    reduced_axes,
    require_equal_lengths,
    require_not_empty,
    static_length,
)
from pytensor.link.onnx.dispatch.operands import (
    apply_in,
    cannot_hold_nan,
    cast_all,
    cast_values,
    output_dtype,
)
from pytensor.link.onnx.kernels import kernel_dtypes, widened_kernel_dtype
from pytensor.link.onnx.numerics.matmul import matmul
from pytensor.link.onnx.numerics.ordered_dtypes import ordered, unordered
from pytensor.link.onnx.numerics.reductions import (
    extremum_by_position,
    flatten_axes_last,
    integer_product,
    integer_sum,
    sequential_float_product,
)
from pytensor.link.onnx.passes.dense_layers import GEMM_DTYPES, GEMM_PRODUCT
from pytensor.link.onnx.value import where


# CAReduce converters: (builder, node, x, axes) -> (result, its dtype), with
# `x` the Value of node.inputs[0] and `axes` a non-empty tuple of its reduced axes


def accumulator_dtype(node):
    return node.op.acc_dtype or node.outputs[0].type.dtype


def sum_of(builder, node, x, axes):
    dtype = accumulator_dtype(node)
    x = x.cast(dtype)
    if np.dtype(dtype).kind != "f":
        return integer_sum(x.cast("int64"), x_ndim(node), axes), "int64"
    compute = widened_kernel_dtype("ReduceSum", dtype, builder.opset)
    return x.cast(compute).sum(axes, keepdims=False), compute


def x_ndim(node) -> int:
    return node.inputs[0].type.ndim


def product_dtype(node):
    """Products of integers run in int64, which wraps to the bits of any integer type."""
    dtype = accumulator_dtype(node)
    return dtype if np.dtype(dtype).kind == "f" else "int64"


def product_in(builder, node, x, axes):
    """The product over ``axes`` of ``x``, whose dtype is ``product_dtype(node)``."""
    flat = flatten_axes_last(x, x_ndim(node), axes)
    length = static_length(node.inputs[0], axes)
    if x.dtype == "int64":
        return integer_product(flat, x_ndim(node) - len(axes), length)
    return sequential_float_product(flat, x_ndim(node) - len(axes), length)


def product_of(builder, node, x, axes):
    dtype = product_dtype(node)
    return product_in(builder, node, x.cast(dtype), axes), dtype


def product_without_zeros_of(builder, node, x, axes):
    """The product of the non-zero elements, 0 if all are zeros (`ProdWithoutZeros`)."""
    dtype = product_dtype(node)
    x = x.cast(dtype)
    is_zero = x.eq(0)
    product = product_in(builder, node, where(is_zero, 1, x), axes)
    any_nonzero = (~is_zero).any_along(axes, keepdims=False)
    return where(any_nonzero, product, 0), dtype


POSITION_OF_EXTREMUM = {"ReduceMax": "ArgMax", "ReduceMin": "ArgMin"}


def extremum_of(op_type):
    def reduce_extremum(builder, node, x, axes):
        dtype = x.dtype
        position_op = POSITION_OF_EXTREMUM[op_type]
        values, compute = ordered(builder, x.name, dtype, position_op)
        values = builder.value(values, compute)
        if compute in kernel_dtypes(op_type, builder.opset):
            result = values.apply(op_type, values, values.indices(axes), keepdims=0)
        else:
            result = extremum_by_position(values, x_ndim(node), axes, position_op)
        if np.dtype(dtype).kind == "f" and not cannot_hold_nan(node.inputs[0]):
            # onnxruntime skips NaN; NumPy propagates it
            has_nan = x.isnan().any_along(axes, keepdims=False)
            result = where(has_nan, np.nan, result)
        ufunc = type(node.op.scalar_op).__name__.lower()
        require_not_empty(
            builder,
            node,
            x,
            axes,
            f"zero-size array to reduction operation {ufunc} which has no identity",
        )
        return builder.value(
            unordered(builder, result.name, dtype, compute), dtype
        ), dtype

    return reduce_extremum


def boolean_reduction(op_type):
    def reduce_bool(builder, node, x, axes):
        if x.dtype != "bool":
            raise NotImplementedError(
                f"the bitwise reduction {node.op.scalar_op} of {x.dtype} values is "
                "not supported, only that of booleans (`all`, `any`)"
            )
        # on empty axes uint8 ReduceMin gives 255 (true) and ReduceMax 0 (false)
        as_uint8 = x.cast("uint8")
        result = as_uint8.apply(op_type, as_uint8, x.indices(axes), keepdims=0)
        return result.cast("bool"), "bool"

    return reduce_bool


CAREDUCE_CONVERTERS = {
    ps.Add: sum_of,
    ps.Mul: product_of,
    MulWithoutZeros: product_without_zeros_of,
    ps.Maximum: extremum_of("ReduceMax"),
    ps.Minimum: extremum_of("ReduceMin"),
    ps.AND: boolean_reduction("ReduceMin"),
    ps.OR: boolean_reduction("ReduceMax"),
}


@onnx_funcify.register(CAReduce)
def onnx_funcify_CAReduce(op, node, builder, inputs, **kwargs):
    x = builder.value(inputs[0], node.inputs[0].type.dtype)
    out_dtype = node.outputs[0].type.dtype
    axes = reduced_axes(op.axis, x_ndim(node))
    if not axes:
        return [x.cast(out_dtype).name]
    reduce = CAREDUCE_CONVERTERS.get(type(op.scalar_op))
    if reduce is None:
        raise NotImplementedError(
            f"reductions with the scalar Op {op.scalar_op} are not supported "
            "(only add, mul, maximum, minimum, and, or)"
        )
    result, result_dtype = reduce(builder, node, x, axes)
    return [builder.cast(result.name, result_dtype, out_dtype)]


@onnx_funcify.register(MulWithoutZeros)
def onnx_funcify_MulWithoutZeros(op, node, builder, inputs, **kwargs):
    # x * y, where a zero operand counts as one
    dtype = output_dtype(node)
    x, y = cast_values(builder, node, inputs, dtype)
    if dtype == "bool":
        product = x & y
    else:
        product = apply_in(builder, "Mul", [x.name, y.name], dtype, dtype)
        product = builder.value(product, dtype)
    return [where(x.eq(0), y, where(y.eq(0), x, product)).name]


@onnx_funcify.register(Argmax)
def onnx_funcify_Argmax(op, node, builder, inputs, **kwargs):
    x = builder.value(inputs[0], node.inputs[0].type.dtype)
    axes = reduced_axes(op.axis, x_ndim(node))
    require_not_empty(
        builder, node, x, axes, "attempt to get argmax of an empty sequence"
    )
    values = builder.value(*ordered(builder, x.name, x.dtype, "ArgMax"))
    flat = flatten_axes_last(values, x_ndim(node), axes)
    # onnxruntime mishandles empty inputs given a negative axis
    last_axis = x_ndim(node) - len(axes)
    argmax = flat.apply("ArgMax", flat, axis=last_axis, keepdims=0)
    if np.dtype(x.dtype).kind != "f" or cannot_hold_nan(node.inputs[0]):
        return [argmax.name]
    # NumPy returns the position of the first NaN, onnxruntime skips NaN
    is_nan = flat.isnan()
    nan_as_uint8 = is_nan.cast("uint8")
    first_nan = nan_as_uint8.apply("ArgMax", nan_as_uint8, axis=last_axis, keepdims=0)
    return [where(is_nan.any_along([last_axis], False), first_nan, argmax).name]


DOT_NOT_ALIGNED = (
    "shapes not aligned: the axes a dot product sums over differ in length"
)


@onnx_funcify.register(Dot)
def onnx_funcify_Dot(op, node, builder, inputs, **kwargs):
    require_aligned(builder, node, inputs)
    dtype = output_dtype(node)
    x, y = cast_all(builder, node, inputs, dtype)
    product = matmul(builder, x, y, dtype, *(var.type.ndim for var in node.inputs))
    if dtype in GEMM_DTYPES and all(
        var.type.ndim == 2 and var.type.dtype == dtype for var in node.inputs
    ):
        builder.mark(GEMM_PRODUCT, product)
    return [product]


def require_aligned(builder, node, inputs):
    """Raise NumPy's ``ValueError`` at run time unless the axes a ``Dot``
    sums over have one length (checked where a length is symbolic, after
    onnxruntime's ``MatMul`` fails)."""
    x_var, y_var = node.inputs
    if x_var.type.ndim == 0 or y_var.type.ndim == 0:
        return
    x_axis = x_var.type.ndim - 1
    x_length, y_length = x_var.type.shape[x_axis], y_var.type.shape[0]
    if x_length is not None and y_length is not None:
        return
    x, y = (
        builder.value(name, var.type.dtype)
        for name, var in zip(inputs, node.inputs, strict=True)
    )
    if y_length is not None:
        comparisons = {(x, None): [(x_axis, y_length)]}
    elif x_length is not None:
        comparisons = {(y, None): [(0, x_length)]}
    else:
        comparisons = {(x, y): [(x_axis, 0)]}
    require_equal_lengths(builder, comparisons, DOT_NOT_ALIGNED, after_failure=True)
