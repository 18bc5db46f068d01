"""Matrix products in the dtypes onnxruntime has ``MatMul`` kernels for."""

from pytensor.link.onnx.kernels import widened_kernel_dtype


def matmul(builder, a, b, dtype, a_ndim, b_ndim):
    """``a @ b`` for operands of ``dtype``; narrow integers wrap like NumPy's.

    uint64, which no other kernel holds, is computed by the uint64 kernel
    with one more zero term (see ``kernels.FAILS_WHEN_EMPTY``).
    """
    if dtype == "uint64":
        a, b = with_a_zero_term(builder, a, b, a_ndim, b_ndim)
        compute = dtype
    else:
        compute = widened_kernel_dtype("MatMul", dtype, builder.opset)
    a, b = builder.cast(a, dtype, compute), builder.cast(b, dtype, compute)
    if b_ndim != 1:
        product = builder.add("MatMul", [a, b], hint="matmul")
    else:
        # onnxruntime rejects a matrix with no rows times a vector: use a column
        column = builder.add("Unsqueeze", [b, builder.constant([1], "int64")])
        product = builder.add("MatMul", [a, column], hint="matmul")
        product = builder.add(
            "Squeeze", [product, builder.constant([a_ndim - 1], "int64")]
        )
    return builder.cast(product, compute, dtype)


def with_a_zero_term(builder, a, b, a_ndim, b_ndim):
    """``a`` and ``b`` with a zero appended along the dimension ``a @ b`` sums over."""
    pads_a = [0] * a_ndim + [0] * (a_ndim - 1) + [1]
    b_axis = b_ndim - (1 if b_ndim == 1 else 2)
    pads_b = [0] * b_ndim + [int(axis == b_axis) for axis in range(b_ndim)]
    return [
        builder.add("Pad", [x, builder.constant(pads, "int64")], hint="zero_term")
        for x, pads in ((a, pads_a), (b, pads_b))
    ]
