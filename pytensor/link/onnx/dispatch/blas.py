from pytensor.tensor.blas import BatchedDot, Dot22, Dot22Scalar, Gemm, Gemv, Ger

from pytensor.link.onnx.dispatch.basic import onnx_funcify
from pytensor.link.onnx.dispatch.operands import cast_all, output_dtype
from pytensor.link.onnx.numerics.matmul import matmul


# The C variants (`CGemv`, `CGer` in `pytensor.tensor.blas_c`) subclass `Gemv`
# and `Ger`, and so use the same converters.


def blas_update(builder, dtype, accumulator, beta, alpha, product, hint):
    """``beta * accumulator + alpha * product``, BLAS style.

    BLAS does not read the accumulator when ``beta == 0``, so NaN or inf in it
    do not propagate; PyTensor relies on it to accumulate into uninitialized
    buffers.
    """
    zero = builder.constant(0, dtype)
    beta_is_zero = builder.add("Equal", [beta, zero], hint="beta_is_zero")
    scaled = builder.add("Mul", [beta, accumulator], hint="scaled")
    kept = builder.add("Where", [beta_is_zero, zero, scaled], hint="kept")
    scaled_product = builder.add("Mul", [alpha, product], hint="scaled_product")
    return builder.add("Add", [kept, scaled_product], hint=hint)


@onnx_funcify.register(Dot22)
@onnx_funcify.register(BatchedDot)
def onnx_funcify_Dot22(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    x, y = cast_all(builder, node, inputs, dtype)
    ndim = node.inputs[0].type.ndim
    return [matmul(builder, x, y, dtype, ndim, ndim)]


@onnx_funcify.register(Dot22Scalar)
def onnx_funcify_Dot22Scalar(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    x, y, scale = cast_all(builder, node, inputs, dtype)
    product = matmul(builder, x, y, dtype, 2, 2)
    return [builder.add("Mul", [scale, product], hint="dot22scalar")]


@onnx_funcify.register(Gemm)
def onnx_funcify_Gemm(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    z, alpha, x, y, beta = cast_all(builder, node, inputs, dtype)
    product = matmul(builder, x, y, dtype, 2, 2)
    return [blas_update(builder, dtype, z, beta, alpha, product, "gemm")]


@onnx_funcify.register(Gemv)
def onnx_funcify_Gemv(op, node, builder, inputs, **kwargs):
    dtype = output_dtype(node)
    y, alpha, A, x, beta = cast_all(builder, node, inputs, dtype)
    product = matmul(builder, A, x, dtype, 2, 1)
    return [blas_update(builder, dtype, y, beta, alpha, product, "gemv")]


@onnx_funcify.register(Ger)
def onnx_funcify_Ger(op, node, builder, inputs, **kwargs):
    A, alpha, x, y = inputs
    column = builder.add(
        "Unsqueeze", [x, builder.constant([1], "int64")], hint="column"
    )
    scaled_y = builder.add("Mul", [alpha, y], hint="scaled_y")
    row = builder.add(
        "Unsqueeze", [scaled_y, builder.constant([0], "int64")], hint="row"
    )
    outer = builder.add("Mul", [column, row], hint="outer")
    return [builder.add("Add", [A, outer], hint="ger")]
