"""Values moved into a dtype whose kernels keep their order, and back."""

from pytensor.link.onnx.kernels import widened_kernel_dtype


# Unsigned values minus the offset, wrapped into the signed type, keep their order
ORDER_PRESERVING_SHIFTS = {"uint32": ("int32", 2**31), "uint64": ("int64", 2**63)}


def ordered(builder, x, dtype, op_type):
    """Return ``x`` in a dtype with an ``op_type`` kernel that keeps values in order.

    Also returns that dtype.
    """
    if dtype in ORDER_PRESERVING_SHIFTS:
        signed, offset = ORDER_PRESERVING_SHIFTS[dtype]
        shifted = builder.add("Sub", [x, builder.constant(offset, dtype)])
        return builder.cast(shifted, dtype, signed), signed
    compute = widened_kernel_dtype(op_type, dtype, builder.opset)
    return builder.cast(x, dtype, compute), compute


def unordered(builder, x, dtype, compute):
    """Undo `ordered`: return the ``dtype`` value of ``x``, an ordered ``compute`` value."""
    if dtype in ORDER_PRESERVING_SHIFTS:
        _, offset = ORDER_PRESERVING_SHIFTS[dtype]
        unsigned = builder.cast(x, compute, dtype)
        return builder.add("Add", [unsigned, builder.constant(offset, dtype)])
    return builder.cast(x, compute, dtype)
