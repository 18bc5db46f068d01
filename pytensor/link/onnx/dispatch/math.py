import numpy as np
import pytensor.scalar.basic as ps
from pytensor.tensor.elemwise import CAReduce, DimShuffle
from pytensor.tensor.math import Argmax, Dot, MulWithoutZeros

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.scalar import (
    ARITHMETIC,
    BOOL_ARITHMETIC,
    apply_in,
    cast_all,
    compare,
    output_dtype,
    where,
)
from pytensor.link.onnx.dispatch.signal import summed_convolution
from pytensor.link.onnx.kernels import (
    kernel_dtypes,
    matmul,
    ordered,
    unordered,
    widened_kernel_dtype,
)


def reduced_axes(axis, ndim) -> tuple[int, ...]:
    return tuple(range(ndim)) if axis is None else tuple(axis)


def flatten_axes_last(builder, x, ndim, axes):
    """Move ``axes`` of ``x`` last and merge them into one axis (of length 1 if none)."""
    kept = [axis for axis in range(ndim) if axis not in axes]
    permutation = kept + sorted(axes)
    if permutation != list(range(ndim)):
        x = builder.add("Transpose", [x], perm=permutation, hint="reduced_last")
    if len(axes) == 1:
        return x
    kept_shape = builder.add("Shape", [x], end=len(kept), hint="kept_shape")
    reduced_shape = builder.add("Shape", [x], start=len(kept), hint="reduced_shape")
    merged = builder.add("ReduceProd", [reduced_shape], keepdims=1, hint="length")
    shape = builder.add("Concat", [kept_shape, merged], axis=0, hint="shape")
    return builder.add("Reshape", [x, shape], allowzero=1, hint="flattened")


def static_length(var, axes):
    """The number of elements reduced over ``axes`` of ``var`` if known statically."""
    lengths = [var.type.shape[axis] for axis in axes]
    return None if None in lengths else int(np.prod(lengths, dtype="int64"))


def any_along(builder, condition, axes):
    """Whether any element of the bool ``condition`` is true along ``axes`` (dropped)."""
    return builder.value(condition, "bool").any_along(axes, keepdims=False).name


# CAReduce converters: (builder, node, x, axes) -> (result, its dtype), with
# `axes` a non-empty tuple of the reduced axes of `x`


def accumulator_dtype(node):
    return node.op.acc_dtype or node.outputs[0].type.dtype


def sum_of(builder, node, x, axes):
    dtype = accumulator_dtype(node)
    x = builder.cast(x, node.inputs[0].type.dtype, dtype)
    if np.dtype(dtype).kind == "f":
        compute = widened_kernel_dtype("ReduceSum", dtype, builder.opset)
        total = builder.add(
            "ReduceSum",
            [builder.cast(x, dtype, compute), builder.constant(axes, "int64")],
            keepdims=0,
            hint="sum",
        )
        return total, compute
    # An exact integer sum that wraps like NumPy's: a product with a vector of
    # ones. int64 arithmetic wraps to the bits of any narrower or unsigned type.
    ndim = node.inputs[0].type.ndim
    flat = flatten_axes_last(builder, builder.cast(x, dtype, "int64"), ndim, axes)
    last_axis = ndim - len(axes)
    length = builder.add("Shape", [flat], start=last_axis, hint="length")
    ones = builder.add("Expand", [builder.constant(1, "int64"), length], hint="ones")
    return matmul(builder, flat, ones, "int64", last_axis + 1, 1), "int64"


def pad_with_one(builder, x, axis, pad_length):
    """Append ``pad_length`` (an int64 vector of one element) ones to the last axis
    of ``x``, which is ``axis``.

    The pads are given for every axis: onnxruntime's transpose optimizer
    mishandles the ``axes`` input of Pad.
    """
    no_pads = builder.constant([0] * (2 * axis + 1), "int64", hint="no_pads")
    pads = builder.add("Concat", [no_pads, pad_length], axis=0, hint="pads")
    one = builder.constant(1, "int64")
    return builder.add("Pad", [x, pads, one], hint="padded")


def multiply_halves(builder, x, axis):
    """Multiply the first and the second half of ``axis`` of the int64 ``x``.

    An odd length is padded with a 1.
    """
    length = builder.add("Shape", [x], start=axis, end=axis + 1, hint="length")
    two = builder.constant([2], "int64", hint="two")
    odd = builder.add("Mod", [length, two], hint="odd")
    padded = pad_with_one(builder, x, axis, odd)
    half = builder.add("Div", [builder.add("Add", [length, odd]), two], hint="half")
    start, end = builder.constant([0], "int64"), builder.constant([2**62], "int64")
    axes = builder.constant([axis], "int64")
    first = builder.add("Slice", [padded, start, half, axes], hint="first")
    second = builder.add("Slice", [padded, half, end, axes], hint="second")
    return builder.add("Mul", [first, second], hint="product")


def longer_than_one(builder, x, axis):
    length = builder.add("Shape", [x], start=axis, end=axis + 1, hint="length")
    longer = builder.add(
        "Greater", [length, builder.constant([1], "int64", hint="one")]
    )
    return builder.add("Squeeze", [longer, builder.constant([0], "int64")], hint="more")


def product_loop_body(builder, axis):
    """The body of a ``Loop`` halving the last axis, ``axis``, of its int64 state."""
    body = builder.loop_body("product_body")
    state = body.add_input("partial_product", "int64", (None,) * (axis + 1))
    product = multiply_halves(body, state, axis)
    body.add_output(longer_than_one(body, product, axis), "more", "bool", ())
    body.add_output(product, "partial_product", "int64", (None,) * (axis + 1))
    return body.make_graph()


def integer_product(builder, x, axis, length):
    """The product along the last axis, ``axis``, of the int64 ``x``, exact and wrapping.

    onnxruntime's ReduceProd computes integers in float64 (inexact beyond
    2**53 and saturating), so multiply pairwise instead: a tree of ``Mul``
    unrolled if the ``length`` of the axis is known, else a ``Loop``.
    """
    # an extra 1 makes the axis non-empty and does not change the product
    x = pad_with_one(builder, x, axis, builder.constant([1], "int64", hint="one"))
    if length is not None:
        for _ in range(int(np.ceil(np.log2(length + 1)))):
            x = multiply_halves(builder, x, axis)
    else:
        more = longer_than_one(builder, x, axis)
        x = builder.add("Loop", ["", more, x], body=product_loop_body(builder, axis))
    return builder.add(
        "Squeeze", [x, builder.constant([axis], "int64")], hint="product"
    )


def product_dtype(node):
    """Products of integers run in int64, which wraps to the bits of any integer type."""
    dtype = accumulator_dtype(node)
    return dtype if np.dtype(dtype).kind == "f" else "int64"


def product_in(builder, node, x, dtype, axes):
    """The product over ``axes`` of ``x``, whose dtype is ``product_dtype(node)``."""
    if dtype != "int64":
        compute = widened_kernel_dtype("ReduceProd", dtype, builder.opset)
        product = builder.add(
            "ReduceProd",
            [builder.cast(x, dtype, compute), builder.constant(axes, "int64")],
            keepdims=0,
            hint="product",
        )
        return builder.cast(product, compute, dtype)
    ndim = node.inputs[0].type.ndim
    flat = flatten_axes_last(builder, x, ndim, axes)
    length = static_length(node.inputs[0], axes)
    return integer_product(builder, flat, ndim - len(axes), length)


def product_of(builder, node, x, axes):
    dtype = product_dtype(node)
    x = builder.cast(x, node.inputs[0].type.dtype, dtype)
    return product_in(builder, node, x, dtype, axes), dtype


def product_without_zeros_of(builder, node, x, axes):
    """The product of the non-zero elements, 0 if all are zeros (`ProdWithoutZeros`)."""
    dtype = product_dtype(node)
    x = builder.cast(x, node.inputs[0].type.dtype, dtype)
    zero, one = builder.constant(0, dtype), builder.constant(1, dtype)
    is_zero = builder.add("Equal", [x, zero], hint="is_zero")
    zeros_as_ones = builder.add("Where", [is_zero, one, x], hint="zeros_as_ones")
    product = product_in(builder, node, zeros_as_ones, dtype, axes)
    is_nonzero = builder.add("Not", [is_zero], hint="is_nonzero")
    any_nonzero = any_along(builder, is_nonzero, axes)
    return builder.add("Where", [any_nonzero, product, zero], hint="product"), dtype


POSITION_OF_EXTREMUM = {"ReduceMax": "ArgMax", "ReduceMin": "ArgMin"}


def extremum_by_position(builder, node, x, axes, op_type):
    """``op_type`` (ReduceMax/ReduceMin) of ``x`` read at the position of the extremum.

    onnxruntime's int64 ReduceMax, ReduceMin and Max are wrong for values that
    differ only in their low 32 bits; its ArgMax and ArgMin are right.
    """
    ndim = node.inputs[0].type.ndim
    flat = flatten_axes_last(builder, x, ndim, axes)
    last_axis = ndim - len(axes)
    position = builder.add(
        POSITION_OF_EXTREMUM[op_type], [flat], axis=last_axis, keepdims=1
    )
    extremum = builder.add("GatherElements", [flat, position], axis=last_axis)
    return builder.add("Squeeze", [extremum, builder.constant([last_axis], "int64")])


def extremum_of(op_type):
    def reduce_extremum(builder, node, x, axes):
        dtype = node.inputs[0].type.dtype
        position_op = POSITION_OF_EXTREMUM[op_type]
        values, compute = ordered(builder, x, dtype, position_op)
        if compute in kernel_dtypes(op_type, builder.opset):
            result = builder.add(
                op_type, [values, builder.constant(axes, "int64")], keepdims=0
            )
        else:
            result = extremum_by_position(builder, node, values, axes, op_type)
        if np.dtype(dtype).kind == "f":
            # onnxruntime skips NaN; NumPy propagates it
            has_nan = any_along(builder, builder.add("IsNaN", [x]), axes)
            nan = builder.constant(np.nan, compute)
            result = builder.add("Where", [has_nan, nan, result], hint="nan_propagated")
        if builder.keep_checks and static_length(node.inputs[0], axes) in (None, 0):
            check_not_empty(builder, node, x, axes)
        return unordered(builder, result, dtype, compute), dtype

    return reduce_extremum


def check_not_empty(builder, node, x, axes):
    lengths = builder.value(x, node.inputs[0].type.dtype).shape().take(list(axes), 0)
    builder.require(
        lengths > 0,
        ValueError,
        f"zero-size array to reduction operation {node.op.scalar_op} which has no "
        "identity",
    )


def boolean_reduction(op_type):
    def reduce_bool(builder, node, x, axes):
        dtype = node.inputs[0].type.dtype
        if dtype != "bool":
            raise NotImplementedError(
                f"the bitwise reduction {node.op.scalar_op} of {dtype} values is not "
                "supported, only that of booleans (`all`, `any`)"
            )
        # on empty axes uint8 ReduceMin gives 255 (true) and ReduceMax 0 (false)
        as_uint8 = builder.cast(x, "bool", "uint8")
        result = builder.add(
            op_type, [as_uint8, builder.constant(axes, "int64")], keepdims=0
        )
        return builder.cast(result, "uint8", "bool"), "bool"

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
def onnx_funcify_CAReduce(op, node, builder, inputs, value_names=None, **kwargs):
    if (summed := summed_convolution(builder, node, value_names)) is not None:
        return [summed]
    [x] = inputs
    in_dtype = node.inputs[0].type.dtype
    out_dtype = node.outputs[0].type.dtype
    axes = reduced_axes(op.axis, node.inputs[0].type.ndim)
    if not axes:
        return [builder.cast(x, in_dtype, out_dtype)]
    reduce = CAREDUCE_CONVERTERS.get(type(op.scalar_op))
    if reduce is None:
        raise NotImplementedError(
            f"reductions with the scalar Op {op.scalar_op} are not supported "
            "(only add, mul, maximum, minimum, and, or)"
        )
    result, result_dtype = reduce(builder, node, x, axes)
    return [builder.cast(result, result_dtype, out_dtype)]


@onnx_funcify.register(MulWithoutZeros)
def onnx_funcify_MulWithoutZeros(op, node, builder, inputs, **kwargs):
    # x * y, where a zero operand counts as one
    dtype = output_dtype(node)
    x, y = cast_all(builder, node, inputs, dtype)
    if dtype == "bool":
        product = builder.add(BOOL_ARITHMETIC[ps.Mul], [x, y])
    else:
        product = apply_in(builder, ARITHMETIC[ps.Mul], [x, y], dtype, dtype)
    zero = builder.constant(0, dtype)
    x_is_zero, y_is_zero = (compare(builder, "Equal", v, zero, dtype) for v in (x, y))
    return [
        where(
            builder, x_is_zero, y, where(builder, y_is_zero, x, product, dtype), dtype
        )
    ]


@onnx_funcify.register(Argmax)
def onnx_funcify_Argmax(op, node, builder, inputs, **kwargs):
    [x] = inputs
    dtype = node.inputs[0].type.dtype
    ndim = node.inputs[0].type.ndim
    axes = reduced_axes(op.axis, ndim)
    values, _ = ordered(builder, x, dtype, "ArgMax")
    flat = flatten_axes_last(builder, values, ndim, axes)
    # onnxruntime mishandles empty inputs given a negative axis
    last_axis = ndim - len(axes)
    argmax = builder.add("ArgMax", [flat], axis=last_axis, keepdims=0, hint="argmax")
    if np.dtype(dtype).kind != "f":
        return [argmax]
    # NumPy returns the position of the first NaN, onnxruntime skips NaN
    is_nan = builder.cast(builder.add("IsNaN", [flat]), "bool", "uint8")
    first_nan = builder.add(
        "ArgMax", [is_nan], axis=last_axis, keepdims=0, hint="first_nan"
    )
    has_nan = any_along(builder, builder.add("IsNaN", [flat]), [last_axis])
    return [builder.add("Where", [has_nan, first_nan, argmax], hint="argmax")]


@onnx_funcify.register(Dot)
def onnx_funcify_Dot(op, node, builder, inputs, value_names=None, **kwargs):
    dtype = output_dtype(node)
    if (
        product := transposed_matrix_times_vector(node, value_names, builder)
    ) is not None:
        return [product]
    x, y = cast_all(builder, node, inputs, dtype)
    return [matmul(builder, x, y, dtype, *(var.type.ndim for var in node.inputs))]


def transposed_matrix_times_vector(node, value_names, builder) -> str | None:
    """``a.T @ v``, for a float vector or column ``v``, as ``(v.T @ a).T``.

    onnxruntime multiplies a row by a matrix faster than a transposed matrix
    by a column (about 1.5 times in float64, as the gradient of a linear
    model needs it).
    """
    transposed, v = node.inputs
    dtype = node.outputs[0].type.dtype
    owner = transposed.owner
    if (
        value_names is None
        or dtype not in GEMM_DTYPES
        or owner is None
        or not isinstance(owner.op, DimShuffle)
        or owner.op.new_order != (1, 0)
        or v.type.ndim not in (1, 2)
        or (v.type.ndim == 2 and v.type.shape[1] != 1)
        or any(var.type.dtype != dtype for var in (transposed, v))
    ):
        return None
    a, column = value_names[owner.inputs[0]], value_names[v]
    if v.type.ndim == 2:
        row = builder.add("Transpose", [column], perm=[1, 0])
        product = builder.add("MatMul", [row, a], hint="matmul")
        return builder.add("Transpose", [product], perm=[1, 0])
    row = builder.add("Unsqueeze", [column, builder.constant([0], "int64")])
    product = builder.add("MatMul", [row, a], hint="matmul")
    return builder.add("Squeeze", [product, builder.constant([0], "int64")])


GEMM_DTYPES = kernel_dtypes("Gemm")


def is_dense_layer(node) -> bool:
    """Whether the Elemwise ``node`` adds a bias to a product of two matrices.

    The product must be the one ``Gemm`` computes (``MatMul`` of two matrices
    of the output's float dtype) and the bias must not enlarge it, since
    ``Gemm`` only broadcasts its third input.
    """
    if not isinstance(node.op.scalar_op, ps.Add) or len(node.inputs) != 2:
        return False
    dtype = node.outputs[0].type.dtype
    if dtype not in GEMM_DTYPES or any(v.type.dtype != dtype for v in node.inputs):
        return False
    for product, bias in (node.inputs, node.inputs[::-1]):
        owner = product.owner
        if (
            owner is None
            or not isinstance(owner.op, Dot)
            or any(v.type.ndim != 2 or v.type.dtype != dtype for v in owner.inputs)
            or bias.type.ndim > 2
        ):
            continue
        bias_shape = (1,) * (2 - bias.type.ndim) + bias.type.shape
        if not any(
            p == 1 and b != 1
            for p, b in zip(product.type.shape, bias_shape, strict=True)
        ):
            return True
    return False
