"""What onnxruntime's kernels compute, and building blocks that respect it.

A node can pass the ONNX checker and still have no kernel in onnxruntime for
its dtypes; converters compute such nodes in the narrowest dtype that has one.
"""

import numpy as np


# Data types of onnxruntime's CPU kernels (measured on onnxruntime 1.31.1).
# Integer ReduceSum/ReduceProd are left out on purpose: onnxruntime computes
# them in float64, which rounds beyond 2**53 and saturates instead of wrapping.
ORDERED_KERNEL_DTYPES = {"int8", "int32", "int64", "uint8", "float32", "float64"}
KERNEL_DTYPES = {
    "ArgMax": ORDERED_KERNEL_DTYPES,
    "ArgMin": ORDERED_KERNEL_DTYPES,
    "ReduceMax": ORDERED_KERNEL_DTYPES,
    "ReduceMin": ORDERED_KERNEL_DTYPES,
    "MatMul": {"int32", "int64", "uint32", "uint64", "float32", "float64"},
    "ReduceSum": {"float32", "float64"},
    "ReduceProd": {"float32", "float64"},
}
WIDENING_ORDER = (
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float32",
    "float64",
)
# Unsigned values minus the offset, wrapped into the signed type, keep their order
ORDER_PRESERVING_SHIFTS = {"uint32": ("int32", 2**31), "uint64": ("int64", 2**63)}


def widened_kernel_dtype(op_type: str, dtype: str) -> str:
    """The narrowest dtype that holds every ``dtype`` value and has an ``op_type`` kernel."""
    supported = KERNEL_DTYPES[op_type]
    if dtype in supported:
        return dtype
    is_float = np.dtype(dtype).kind == "f"
    for candidate in WIDENING_ORDER:
        if (
            candidate in supported
            and (np.dtype(candidate).kind == "f") == is_float
            and np.can_cast(dtype, candidate, "safe")
        ):
            return candidate
    raise NotImplementedError(f"onnxruntime has no {op_type} kernel for {dtype}")


def ordered(builder, x, dtype, op_type):
    """Return ``x`` in a dtype with an ``op_type`` kernel that keeps values in order.

    Also returns that dtype.
    """
    if dtype in ORDER_PRESERVING_SHIFTS:
        signed, offset = ORDER_PRESERVING_SHIFTS[dtype]
        shifted = builder.add("Sub", [x, builder.constant(offset, dtype)])
        return builder.cast(shifted, dtype, signed), signed
    compute = widened_kernel_dtype(op_type, dtype)
    return builder.cast(x, dtype, compute), compute


def unordered(builder, x, dtype, compute):
    """Undo `ordered`: return the ``dtype`` value of ``x``, an ordered ``compute`` value."""
    if dtype in ORDER_PRESERVING_SHIFTS:
        _, offset = ORDER_PRESERVING_SHIFTS[dtype]
        unsigned = builder.cast(x, compute, dtype)
        return builder.add("Add", [unsigned, builder.constant(offset, dtype)])
    return builder.cast(x, compute, dtype)


def matmul(builder, a, b, dtype, a_ndim, b_ndim):
    """``a @ b`` for operands of ``dtype``; narrow integers wrap like NumPy's."""
    compute = widened_kernel_dtype("MatMul", dtype)
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
